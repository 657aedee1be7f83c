#include "send_request_headers.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/codes.hpp"
#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace request_code = protocol::request_code;
using testing::SendRequest;

TEST(SendRequestHeaderTest, V1AndV2KeysDecodeAlike) {
  SendRequest request;
  request.queue_id = 3;
  request.reconsume_times = 2;
  request.max_reconsume_times = 5;
  request.code = request_code::kSendMessage;
  auto v1 = parse_send_message_header(request.build());
  request.code = request_code::kSendMessageV2;
  auto v2 = parse_send_message_header(request.build());
  ASSERT_TRUE(v1.is_ok()) << v1.status().to_string();
  ASSERT_TRUE(v2.is_ok()) << v2.status().to_string();
  for (const auto* h : {&*v1, &*v2}) {
    EXPECT_EQ(h->producer_group, "PG");
    EXPECT_EQ(h->topic, "T");
    EXPECT_EQ(h->default_topic, "TBW102");
    EXPECT_EQ(h->default_topic_queue_nums, 4);
    EXPECT_EQ(h->queue_id, 3);
    EXPECT_EQ(h->born_timestamp, 1'700'000'000'000);
    EXPECT_EQ(h->reconsume_times, 2);
    EXPECT_EQ(h->max_reconsume_times, 5);
    EXPECT_FALSE(h->unit_mode);
  }
  EXPECT_EQ(v1->properties, v2->properties);
}

TEST(SendRequestHeaderTest, MissingRequiredFieldIsNamedAsSent) {
  SendRequest long_keys;
  long_keys.code = request_code::kSendMessage;
  auto v1 = long_keys.build();
  v1.ext_fields = {};
  v1.ext_fields.set("producerGroup", std::string("PG"));
  EXPECT_EQ(parse_send_message_header(v1).status().message(), "the custom field <topic> is null");
  auto v2 = SendRequest{}.build();
  v2.ext_fields = {};
  v2.ext_fields.set("a", std::string("PG"));
  v2.ext_fields.set("b", std::string("T"));
  EXPECT_EQ(parse_send_message_header(v2).status().message(), "the custom field <c> is null");
}

TEST(SendRequestHeaderTest, OptionalFieldsMayBeAbsentButNotMalformed) {
  auto request = SendRequest{}.build();
  for (const char* optional : {"i", "j", "k", "l", "m"}) request = testing::without_field(std::move(request), optional);
  auto header = parse_send_message_header(request);
  ASSERT_TRUE(header.is_ok()) << header.status().to_string();
  EXPECT_EQ(header->properties, "");
  EXPECT_EQ(header->reconsume_times, 0);
  EXPECT_FALSE(header->max_reconsume_times.has_value());
  request.ext_fields.set("j", std::string("two"));
  EXPECT_FALSE(parse_send_message_header(request).is_ok());
  request.ext_fields.set("j", std::string("0"));
  request.ext_fields.set("e", std::string("4294967296"));  // beyond Java's int
  EXPECT_FALSE(parse_send_message_header(request).is_ok());
}

TEST(SendRequestHeaderTest, SendBackHeader) {
  auto request = plugin::v1::RemotingCommand::request(request_code::kConsumerSendMsgBack);
  request.ext_fields.set("offset", std::string("1234"));
  request.ext_fields.set("group", std::string("G"));
  EXPECT_EQ(parse_send_back_header(request).status().message(), "the custom field <delayLevel> is null");
  request.ext_fields.set("delayLevel", std::string("-1"));
  request.ext_fields.set("originMsgId", std::string("ID"));
  request.ext_fields.set("maxReconsumeTimes", std::string("3"));
  auto header = parse_send_back_header(request);
  ASSERT_TRUE(header.is_ok()) << header.status().to_string();
  EXPECT_EQ(header->offset, 1234);
  EXPECT_EQ(header->group, "G");
  EXPECT_EQ(header->delay_level, -1);
  EXPECT_EQ(header->origin_msg_id, "ID");
  EXPECT_EQ(header->max_reconsume_times, 3);
}

}  // namespace
}  // namespace mqkit::broker
