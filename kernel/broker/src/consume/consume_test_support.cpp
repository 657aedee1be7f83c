#include "consume_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace mqkit::broker::testing {

namespace v1 = plugin::v1;

v1::AppendResult append(BrokerContext& context, const TestMessage& message) {
  v1::Properties properties;
  if (!message.tags.empty()) properties.emplace_back(std::string(v1::property::kTags), message.tags);
  if (!message.keys.empty()) properties.emplace_back(std::string(v1::property::kKeys), message.keys);
  if (!message.unique_key.empty()) properties.emplace_back(std::string(v1::property::kUniqueKey), message.unique_key);
  properties.insert(properties.end(), message.user_properties.begin(), message.user_properties.end());
  const std::string encoded = v1::encode_properties(properties);
  v1::MessageToAppend m;
  m.topic = message.topic;
  m.queue_id = message.queue_id;
  m.born_timestamp = context.clock();
  m.born_host = context.store_host;
  m.store_host = context.store_host;
  m.body = {reinterpret_cast<const std::uint8_t*>(message.body.data()), message.body.size()};
  m.properties = encoded;
  std::promise<v1::Result<v1::AppendResult>> done;
  auto future = done.get_future();
  context.store->append({&m, 1}, {}, [&](v1::Result<v1::AppendResult> r) { done.set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "append did not complete";
    return {};
  }
  auto result = future.get();
  EXPECT_TRUE(result.is_ok()) << result.status().to_string();
  return result ? *result : v1::AppendResult{};
}

protocol::ConsumerData consumer_data(std::string group, const std::vector<std::string>& topics) {
  protocol::ConsumerData d;
  d.group_name = std::move(group);
  d.message_model = "CLUSTERING";
  d.consume_type = "CONSUME_PASSIVELY";
  for (const auto& t : topics) {
    protocol::SubscriptionData s;
    s.topic = t;
    s.sub_string = "*";
    d.subscription_data_set.push_back(s);
  }
  return d;
}

void create_topic(BrokerContext& context, const std::string& topic, std::int32_t queues) {
  protocol::TopicConfig t;
  t.topic_name = topic;
  t.read_queue_nums = t.write_queue_nums = queues;
  t.perm = 6;
  const auto status = context.topics->update(t);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
}

RemotingCommand make_request(std::int32_t code, std::initializer_list<std::pair<std::string, std::string>> fields) {
  static std::atomic<std::int32_t> next_opaque{1};
  auto request = RemotingCommand::request(code);
  request.opaque = next_opaque++;
  for (const auto& [k, v] : fields) request.ext_fields.set(k, v);
  return request;
}

RemotingCommand call(RequestProcessor& processor, const std::shared_ptr<FakeChannel>& channel,
                     RemotingCommand request) {
  const std::size_t before = channel->sent().size();
  Responder responder(channel, request);
  processor.process(std::move(request), responder);
  if (!channel->wait_for(before + 1)) {
    ADD_FAILURE() << "no answer";
    return {};
  }
  return channel->sent().at(before);
}

std::vector<v1::RecordView> records_of(const RemotingCommand& response) {
  std::vector<v1::RecordView> out;
  for (const auto& slice : response.body_slices) {
    auto record = v1::decode_record(slice.bytes, v1::CrcCheck::kVerify);
    EXPECT_TRUE(record.is_ok()) << record.status().to_string();
    if (record) out.push_back(*record);
  }
  return out;
}

std::string body_of(const v1::RecordView& record) {
  return {reinterpret_cast<const char*>(record.body.data()), record.body.size()};
}

std::int64_t ext_int(const RemotingCommand& command, std::string_view name) {
  auto value = command.ext_fields.get_int(name);
  EXPECT_TRUE(value.is_ok()) << "extField " << name << ": " << value.status().to_string();
  return value.value_or(-999);
}

}  // namespace mqkit::broker::testing
