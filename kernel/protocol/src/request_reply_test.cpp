#include "mqkit/protocol/request_reply.hpp"

#include <gtest/gtest.h>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::protocol::reply {
namespace {

using plugin::v1::ExtFields;

ReplyMessageHeader sample() {
  ReplyMessageHeader h;
  h.producer_group = "PG";
  h.topic = "DefaultCluster_REPLY_TOPIC";
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.queue_id = 0;
  h.sys_flag = 1;
  h.born_timestamp = 1700000000123;
  h.flag = 7;
  h.properties = plugin::v1::encode_properties({{"CORRELATION_ID", "c-1"}, {"MSG_TYPE", "reply"}});
  h.reconsume_times = 2;
  h.unit_mode = false;
  h.born_host = "/127.0.0.1:50000";
  h.store_host = "/127.0.0.1:10911";
  h.store_timestamp = 1700000000456;
  return h;
}

TEST(RequestReplyTest, ReplyTopicIsTheClusterWithTheReplyPostfix) {
  EXPECT_EQ(reply_topic_of("DefaultCluster"), "DefaultCluster_REPLY_TOPIC");
}

TEST(RequestReplyTest, OnlyMsgTypeReplyMarksAReply) {
  EXPECT_TRUE(is_reply(plugin::v1::encode_properties({{"A", "1"}, {"MSG_TYPE", "reply"}})));
  EXPECT_FALSE(is_reply(plugin::v1::encode_properties({{"MSG_TYPE", "normal"}})));
  EXPECT_FALSE(is_reply(plugin::v1::encode_properties({{"REPLY_TO_CLIENT", "reply"}})));
  EXPECT_FALSE(is_reply(""));
}

TEST(RequestReplyTest, PushHeaderTravelsUnderRocketMqNamesAndReadsBack) {
  ExtFields fields;
  write(sample(), fields);
  EXPECT_EQ(fields.get("producerGroup"), "PG");
  EXPECT_EQ(fields.get("topic"), "DefaultCluster_REPLY_TOPIC");
  EXPECT_EQ(fields.get("defaultTopic"), "TBW102");
  EXPECT_EQ(fields.get("defaultTopicQueueNums"), "4");
  EXPECT_EQ(fields.get("queueId"), "0");
  EXPECT_EQ(fields.get("sysFlag"), "1");
  EXPECT_EQ(fields.get("bornTimestamp"), "1700000000123");
  EXPECT_EQ(fields.get("flag"), "7");
  EXPECT_EQ(fields.get("reconsumeTimes"), "2");
  EXPECT_EQ(fields.get("unitMode"), "false");
  EXPECT_EQ(fields.get("bornHost"), "/127.0.0.1:50000");
  EXPECT_EQ(fields.get("storeHost"), "/127.0.0.1:10911");
  EXPECT_EQ(fields.get("storeTimestamp"), "1700000000456");
  auto read = read_reply_message_header(fields);
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  const ReplyMessageHeader expected = sample();
  EXPECT_EQ(read->producer_group, expected.producer_group);
  EXPECT_EQ(read->topic, expected.topic);
  EXPECT_EQ(read->default_topic_queue_nums, 4);
  EXPECT_EQ(read->sys_flag, 1);
  EXPECT_EQ(read->born_timestamp, expected.born_timestamp);
  EXPECT_EQ(read->flag, 7);
  EXPECT_EQ(read->properties, expected.properties);
  EXPECT_EQ(read->reconsume_times, 2);
  EXPECT_EQ(read->born_host, expected.born_host);
  EXPECT_EQ(read->store_host, expected.store_host);
  EXPECT_EQ(read->store_timestamp, expected.store_timestamp);
}

TEST(RequestReplyTest, PushHeaderWithoutNullableFieldsReads) {
  ReplyMessageHeader h = sample();
  h.reconsume_times.reset();
  h.properties.clear();
  ExtFields fields;
  write(h, fields);
  EXPECT_FALSE(fields.get("reconsumeTimes").has_value());
  auto read = read_reply_message_header(fields);
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  EXPECT_FALSE(read->reconsume_times.has_value());
  EXPECT_TRUE(read->properties.empty());
}

TEST(RequestReplyTest, PushHeaderNamesWhatIsMissingOrWrong) {
  for (const char* required : {"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag",
                               "bornTimestamp", "flag", "bornHost", "storeHost", "storeTimestamp"}) {
    ExtFields all;
    write(sample(), all);
    ExtFields fields;
    for (const auto& [name, value] : all) {
      if (name != required) fields.set(name, value);
    }
    EXPECT_EQ(read_reply_message_header(fields).status().message(),
              "the custom field <" + std::string(required) + "> is null");
  }
  ExtFields fields;
  write(sample(), fields);
  fields.set("queueId", "first");
  EXPECT_FALSE(read_reply_message_header(fields).is_ok());
  fields.set("queueId", "4294967296");
  EXPECT_NE(read_reply_message_header(fields).status().message().find("out of the int range"), std::string::npos);
}

TEST(RequestReplyTest, HostAddressDropsJavasHostNamePart) {
  EXPECT_EQ(host_address_of("/127.0.0.1:10911"), "127.0.0.1:10911");
  EXPECT_EQ(host_address_of("broker-host/10.0.0.5:10911"), "10.0.0.5:10911");
  EXPECT_EQ(host_address_of("127.0.0.1:10911"), "127.0.0.1:10911");
}

}  // namespace
}  // namespace mqkit::protocol::reply
