#include "remoting_client.hpp"

#include <gtest/gtest.h>

#include <future>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "plugin_fixture.hpp"

namespace mqkit::testing {

using plugin::v1::RemotingCommand;
using plugin::v1::Result;

RemotingCommand make_request(std::int32_t code, std::initializer_list<std::pair<const char*, std::string>> fields) {
  auto r = RemotingCommand::request(code);
  for (const auto& [k, v] : fields) r.ext_fields.set(k, v);
  return r;
}

RemotingClient::RemotingClient() : transport_(load_plugin<plugin::v1::Transport>("remoting")) {}

RemotingClient::~RemotingClient() {
  if (transport_) transport_->shutdown();
}

Result<RemotingCommand> RemotingClient::call(const std::string& address, RemotingCommand request,
                                             std::chrono::milliseconds timeout) {
  if (!transport_) return plugin::v1::Status::unavailable("the remoting transport plugin did not load");
  auto promise = std::make_shared<std::promise<Result<RemotingCommand>>>();
  auto future = promise->get_future();
  transport_->invoke(address, std::move(request), timeout,
                     [promise](Result<RemotingCommand> response) { promise->set_value(std::move(response)); });
  return future.get();
}

void RemotingClient::create_topic(const std::string& broker, const std::string& topic, int queues) {
  auto r = call(broker, make_request(protocol::request_code::kUpdateAndCreateTopic,
                                     {{"topic", topic}, {"defaultTopic", "TBW102"},
                                      {"readQueueNums", std::to_string(queues)},
                                      {"writeQueueNums", std::to_string(queues)}, {"perm", "6"},
                                      {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}}));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->code, protocol::response_code::kSuccess) << r->remark.value_or("");
}

std::vector<std::vector<std::uint8_t>> RemotingClient::pull_records(const std::string& broker, const std::string& topic,
                                                                    int queue_id, std::int64_t offset,
                                                                    const std::string& group) {
  auto request = RemotingCommand::request(protocol::request_code::kPullMessage);
  for (const auto& [key, value] : std::initializer_list<std::pair<const char*, std::string>>{
           {"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(queue_id)},
           {"queueOffset", std::to_string(offset)}, {"maxMsgNums", "32"}, {"sysFlag", "4"}, {"commitOffset", "0"},
           {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"}}) {
    request.ext_fields.set(key, value);
  }
  auto response = call(broker, std::move(request));
  std::vector<std::vector<std::uint8_t>> records;
  if (!response || response->code != protocol::response_code::kSuccess) return records;
  std::span<const std::uint8_t> bytes(response->body);
  while (!bytes.empty()) {
    auto record = plugin::v1::decode_record(bytes, plugin::v1::CrcCheck::kVerify);
    if (!record) {
      ADD_FAILURE() << record.status().to_string();
      break;
    }
    const auto size = static_cast<std::size_t>(record->total_size);
    records.emplace_back(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    bytes = bytes.subspan(size);
  }
  return records;
}

std::vector<std::string> RemotingClient::pull_bodies(const std::string& broker, const std::string& topic,
                                                     int queue_id, const std::string& group) {
  std::vector<std::string> bodies;
  for (const auto& bytes : pull_records(broker, topic, queue_id, 0, group)) {
    auto record = plugin::v1::decode_record(bytes);
    if (record) bodies.emplace_back(record->body.begin(), record->body.end());
  }
  return bodies;
}

}  // namespace mqkit::testing
