#include "message_conversion.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::proxy {
namespace {

constexpr std::int64_t kNow = 1'760'000'000'000;

v2::Message message(std::string body = "hello") {
  v2::Message m;
  m.mutable_topic()->set_name("TopicA");
  m.set_body(std::move(body));
  auto& system = *m.mutable_system_properties();
  system.set_message_id("01AABBCCDDEEFF00112233445566");
  system.set_message_type(v2::NORMAL);
  return m;
}

v2::SendMessageRequest request_of(std::initializer_list<v2::Message> messages) {
  v2::SendMessageRequest r;
  for (const auto& m : messages) *r.add_messages() = m;
  return r;
}

std::map<std::string, std::string> properties_of(const BrokerBoundSend& send) {
  std::map<std::string, std::string> out;
  for (auto& [k, v] : plugin::v1::decode_properties(send.request.properties)) out[k] = v;
  return out;
}

v2::Code refusal(const v2::SendMessageRequest& request, ProxySettings settings = {}) {
  auto result = to_broker_send(request, settings, "10.0.0.9:5000", kNow);
  if (std::holds_alternative<BrokerBoundSend>(result)) return v2::OK;
  return std::get<v2::Status>(result).code();
}

TEST(MessageConversionTest, MapsSystemPropertiesAsRocketMqsProxyDoes) {
  auto m = message();
  auto& system = *m.mutable_system_properties();
  system.set_tag("TagA");
  system.add_keys("k1");
  system.add_keys("k2");
  system.set_message_group("order-7");
  system.mutable_delivery_timestamp()->set_seconds(kNow / 1000 + 60);
  system.set_delivery_attempt(2);
  system.set_trace_context("00-abc-01");
  system.mutable_born_timestamp()->set_seconds(kNow / 1000);
  (*m.mutable_user_properties())["color"] = "blue";
  auto result = to_broker_send(request_of({m}), {}, "10.0.0.9:5000", kNow);
  ASSERT_TRUE(std::holds_alternative<BrokerBoundSend>(result)) << std::get<v2::Status>(result).message();
  const auto& send = std::get<BrokerBoundSend>(result);
  EXPECT_EQ(send.topic, "TopicA");
  EXPECT_EQ(send.message_group, "order-7");
  EXPECT_FALSE(send.request.batch);
  EXPECT_EQ(send.request.producer_group, "TopicA");
  EXPECT_EQ(send.request.born_timestamp, kNow);
  EXPECT_EQ(*send.request.body, "hello");
  const auto p = properties_of(send);
  EXPECT_EQ(p.at("TAGS"), "TagA");
  EXPECT_EQ(p.at("KEYS"), "k1 k2");
  EXPECT_EQ(p.at("UNIQ_KEY"), "01AABBCCDDEEFF00112233445566");
  EXPECT_EQ(p.at("__SHARDINGKEY"), "order-7");
  EXPECT_EQ(p.at("TIMER_DELIVER_MS"), std::to_string(kNow + 60'000));
  EXPECT_EQ(p.at("RECONSUME_TIME"), "2");
  EXPECT_EQ(p.at("PGROUP"), "TopicA");
  EXPECT_EQ(p.at("TRACE_CONTEXT"), "00-abc-01");
  EXPECT_EQ(p.at("__BORNHOST"), "10.0.0.9:5000");
  EXPECT_EQ(p.at("BORN_TIMESTAMP"), std::to_string(kNow));
  EXPECT_EQ(p.at("color"), "blue");
}

// The attempt is one more than the reconsumes; a count a client stored at the int limit stays
// there instead of wrapping below zero.
TEST(MessageConversionTest, ADeliveryAttemptIsOneMoreThanTheReconsumesUpToTheIntLimit) {
  v2::Resource topic;
  topic.set_name("TopicA");
  for (const auto& [reconsumed, attempt] : {std::pair{0, 1}, std::pair{4, 5},
                                            std::pair{std::numeric_limits<std::int32_t>::max(),
                                                      std::numeric_limits<std::int32_t>::max()}}) {
    client::MessageExt received;
    received.reconsume_times = reconsumed;
    EXPECT_EQ(to_grpc_message(received, topic).system_properties().delivery_attempt(), attempt) << reconsumed;
  }
}

TEST(MessageConversionTest, ATransactionalMessageIsSentAsAHalfMessage) {
  auto m = message();
  m.mutable_system_properties()->set_message_type(v2::TRANSACTION);
  m.mutable_system_properties()->mutable_orphaned_transaction_recovery_duration()->set_seconds(30);
  auto result = to_broker_send(request_of({m}), {}, "", kNow);
  ASSERT_TRUE(std::holds_alternative<BrokerBoundSend>(result));
  const auto& send = std::get<BrokerBoundSend>(result);
  EXPECT_TRUE(send.transactional);
  EXPECT_EQ(send.request.sys_flag & plugin::v1::sys_flag::kTransactionPrepared, plugin::v1::sys_flag::kTransactionPrepared);
  const auto p = properties_of(send);
  EXPECT_EQ(p.at("TRAN_MSG"), "true");
  EXPECT_EQ(p.at("CHECK_IMMUNITY_TIME_IN_SECONDS"), "30");
  EXPECT_EQ(p.at("PGROUP"), "TopicA");
}

TEST(MessageConversionTest, ANamespacedTopicIsNamespacePercentTopic) {
  auto m = message();
  m.mutable_topic()->set_resource_namespace("ns1");
  auto result = to_broker_send(request_of({m}), {}, "", kNow);
  ASSERT_TRUE(std::holds_alternative<BrokerBoundSend>(result));
  EXPECT_EQ(std::get<BrokerBoundSend>(result).topic, "ns1%TopicA");
}

TEST(MessageConversionTest, SeveralMessagesGoAsOneBatchWithoutAGroup) {
  auto a = message("one");
  auto b = message("two");
  b.mutable_system_properties()->set_message_id("01AABBCCDDEEFF00112233445567");
  a.mutable_system_properties()->set_message_group("g");
  auto result = to_broker_send(request_of({a, b}), {}, "", kNow);
  ASSERT_TRUE(std::holds_alternative<BrokerBoundSend>(result));
  const auto& send = std::get<BrokerBoundSend>(result);
  EXPECT_TRUE(send.request.batch);
  EXPECT_EQ(send.message_count, 2U);
  EXPECT_EQ(send.message_group, "");  // RocketMQ hashes the group of a lone message only
  auto items = plugin::v1::decode_batch(
      std::span(reinterpret_cast<const std::uint8_t*>(send.request.body->data()), send.request.body->size()));
  ASSERT_TRUE(items.is_ok());
  ASSERT_EQ(items->size(), 2U);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>((*items)[1].body.data()), (*items)[1].body.size()), "two");
}

TEST(MessageConversionTest, InflatesGzipBodies) {
  const std::string plain(10'000, 'x');
  z_stream stream{};
  ASSERT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string gz(deflateBound(&stream, plain.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  stream.avail_in = static_cast<uInt>(plain.size());
  stream.next_out = reinterpret_cast<Bytef*>(gz.data());
  stream.avail_out = static_cast<uInt>(gz.size());
  ASSERT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  gz.resize(stream.total_out);
  deflateEnd(&stream);
  auto m = message(gz);
  m.mutable_system_properties()->set_body_encoding(v2::GZIP);
  auto result = to_broker_send(request_of({m}), {}, "", kNow);
  ASSERT_TRUE(std::holds_alternative<BrokerBoundSend>(result));
  EXPECT_EQ(*std::get<BrokerBoundSend>(result).request.body, plain);
  EXPECT_EQ(std::get<BrokerBoundSend>(result).request.sys_flag, 0);

  ProxySettings small;
  small.max_message_size = 1000;  // the gzip is small, what it inflates to is not
  EXPECT_EQ(refusal(request_of({m}), small), v2::MESSAGE_BODY_TOO_LARGE);
  m.set_body("not gzip");
  EXPECT_EQ(refusal(request_of({m})), v2::MESSAGE_CORRUPTED);
}

TEST(MessageConversionTest, RefusesWhatRocketMqsProxyRefuses) {
  EXPECT_EQ(refusal(request_of({})), v2::MESSAGE_CORRUPTED);
  auto bad_topic = message();
  bad_topic.mutable_topic()->set_name("bad topic!");
  EXPECT_EQ(refusal(request_of({bad_topic})), v2::ILLEGAL_TOPIC);
  auto system_topic = message();
  system_topic.mutable_topic()->set_name("SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(refusal(request_of({system_topic})), v2::ILLEGAL_TOPIC);
  auto other_topic = message();
  other_topic.mutable_topic()->set_name("TopicB");
  EXPECT_EQ(refusal(request_of({message(), other_topic})), v2::MESSAGE_CORRUPTED);
  EXPECT_EQ(refusal(request_of({message("")})), v2::MESSAGE_BODY_EMPTY);
  ProxySettings small;
  small.max_message_size = 4;
  EXPECT_EQ(refusal(request_of({message("hello")}), small), v2::MESSAGE_BODY_TOO_LARGE);

  const auto with = [](auto change) {
    auto m = message();
    change(m);
    return request_of({m});
  };
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->set_tag("a|b"); })), v2::ILLEGAL_MESSAGE_TAG);
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->set_tag("  "); })), v2::ILLEGAL_MESSAGE_TAG);
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->add_keys(" "); })), v2::ILLEGAL_MESSAGE_KEY);
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->add_keys("a\x01"); })), v2::ILLEGAL_MESSAGE_KEY);
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->set_message_id(""); })), v2::ILLEGAL_MESSAGE_ID);
  EXPECT_EQ(refusal(with([](v2::Message& m) { (*m.mutable_user_properties())["TAGS"] = "x"; })),
            v2::ILLEGAL_MESSAGE_PROPERTY_KEY);
  EXPECT_EQ(refusal(with([](v2::Message& m) { (*m.mutable_user_properties())["k"] = "\xC2\x85"; })),
            v2::ILLEGAL_MESSAGE_PROPERTY_KEY);  // U+0085, a C1 control
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->set_message_group(std::string(64, 'g')); })),
            v2::ILLEGAL_MESSAGE_GROUP);
  EXPECT_EQ(refusal(with([](v2::Message& m) {
              m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(kNow / 1000 + 2 * 86400);
            })),
            v2::ILLEGAL_DELIVERY_TIME);
  // Any number of seconds a client sends is compared without overflow.
  EXPECT_EQ(refusal(with([](v2::Message& m) {
              m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(INT64_MAX);
            })),
            v2::ILLEGAL_DELIVERY_TIME);
  auto half = message();
  half.mutable_system_properties()->set_message_type(v2::TRANSACTION);
  EXPECT_EQ(refusal(request_of({half, half})), v2::BAD_REQUEST);  // one transactional message at a time
  ProxySettings few;
  few.user_property_max_num = 1;
  EXPECT_EQ(refusal(with([](v2::Message& m) {
                      (*m.mutable_user_properties())["a"] = "1";
                      (*m.mutable_user_properties())["b"] = "2";
                    }),
                    few),
            v2::MESSAGE_PROPERTIES_TOO_LARGE);
  ProxySettings tiny;
  tiny.max_user_property_size = 8;
  EXPECT_EQ(refusal(with([](v2::Message& m) { m.mutable_system_properties()->set_tag("a-long-tag"); }), tiny),
            v2::MESSAGE_PROPERTIES_TOO_LARGE);
}

}  // namespace
}  // namespace mqkit::proxy
