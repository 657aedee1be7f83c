#include "mqkit/acl/access_request.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::acl {
namespace {

namespace rq = protocol::request_code;
using plugin::v1::RemotingCommand;
using Needed = std::map<std::string, Permission, std::less<>>;

RemotingCommand request(std::int32_t code, std::initializer_list<std::pair<const char*, const char*>> fields) {
  auto command = RemotingCommand::request(code);
  for (const auto& [key, value] : fields) command.ext_fields.set(key, value);
  return command;
}

Needed needed(const RemotingCommand& command) {
  auto access = access_request_of(command);
  EXPECT_TRUE(access.is_ok()) << access.status().to_string();
  return access.is_ok() ? access->needed : Needed{};
}

TEST(AccessRequestTest, SendsNeedPubOnTheTopicAndSubOnARetryTopic) {
  EXPECT_EQ(needed(request(rq::kSendMessage, {{"topic", "T"}, {"producerGroup", "PG"}})), (Needed{{"T", kPub}}));
  EXPECT_EQ(needed(request(rq::kRecallMessage, {{"topic", "T"}, {"recallHandle", "h"}})), (Needed{{"T", kPub}}));
  EXPECT_EQ(needed(request(rq::kSendMessageV2, {{"a", "PG"}, {"b", "T"}})), (Needed{{"T", kPub}}));
  EXPECT_EQ(needed(request(rq::kSendBatchMessage, {{"a", "PG"}, {"b", "T"}})), (Needed{{"T", kPub}}));
  EXPECT_EQ(needed(request(rq::kSendMessageV2, {{"a", "PG"}, {"b", "%RETRY%G"}})), (Needed{{"%RETRY%G", kSub}}));
  EXPECT_EQ(needed(request(rq::kConsumerSendMsgBack, {{"group", "G"}, {"offset", "1"}})),
            (Needed{{"%RETRY%G", kSub}}));
}

TEST(AccessRequestTest, ConsumingNeedsSubOnTheTopicAndTheGroup) {
  const Needed topic_and_group{{"T", kSub}, {"%RETRY%G", kSub}};
  EXPECT_EQ(needed(request(rq::kPullMessage, {{"consumerGroup", "G"}, {"topic", "T"}})), topic_and_group);
  EXPECT_EQ(needed(request(rq::kLitePullMessage, {{"consumerGroup", "G"}, {"topic", "T"}})), topic_and_group);
  EXPECT_EQ(needed(request(rq::kUpdateConsumerOffset, {{"consumerGroup", "G"}, {"topic", "T"}, {"queueId", "0"}})),
            topic_and_group);
  EXPECT_EQ(needed(request(rq::kQueryMessage, {{"topic", "T"}, {"key", "k"}})), (Needed{{"T", kSub}}));
  EXPECT_EQ(needed(request(rq::kUnregisterClient, {{"clientID", "c"}, {"consumerGroup", "G"}})),
            (Needed{{"%RETRY%G", kSub}}));
  EXPECT_EQ(needed(request(rq::kUnregisterClient, {{"clientID", "c"}, {"producerGroup", "PG"}})), Needed{});
  EXPECT_EQ(needed(request(rq::kGetConsumerListByGroup, {{"consumerGroup", "G"}})), (Needed{{"%RETRY%G", kSub}}));
}

TEST(AccessRequestTest, AHeartbeatNeedsSubOnEveryConsumerGroupAndTopic) {
  protocol::HeartbeatData heartbeat;
  heartbeat.client_id = "c";
  heartbeat.producer_groups = {"PG"};
  protocol::ConsumerData consumer;
  consumer.group_name = "G";
  consumer.subscription_data_set.push_back({.topic = "T1"});
  consumer.subscription_data_set.push_back({.topic = "%RETRY%G"});
  heartbeat.consumer_data_set.push_back(consumer);
  auto command = RemotingCommand::request(rq::kHeartBeat);
  protocol::set_body(command, protocol::encode(heartbeat));
  EXPECT_EQ(needed(command), (Needed{{"T1", kSub}, {"%RETRY%G", kSub}}));

  protocol::set_body(command, "{not json");
  EXPECT_FALSE(access_request_of(command).is_ok());
}

TEST(AccessRequestTest, AdminCodesAndEverythingElse) {
  for (const std::int32_t code : {rq::kUpdateAndCreateTopic, rq::kUpdateBrokerConfig, rq::kDeleteTopicInBroker,
                                  rq::kUpdateAndCreateSubscriptionGroup, rq::kDeleteSubscriptionGroup,
                                  rq::kUpdateAndCreateTopicList, rq::kUpdateAndCreateSubscriptionGroupList}) {
    EXPECT_TRUE(needs_admin(code)) << code;
    EXPECT_TRUE(access_request_of(request(code, {{"topic", "T"}}))->needs_admin) << code;
  }
  for (const std::int32_t code : {rq::kGetAllTopicConfig, rq::kQueryConsumerOffset, rq::kLockBatchMq,
                                  rq::kEndTransaction, rq::kGetBrokerConfig, rq::kPullMessage}) {
    EXPECT_FALSE(needs_admin(code)) << code;
  }
  // Signature only: no topic or group permission is asked of these.
  EXPECT_EQ(needed(request(rq::kQueryConsumerOffset, {{"consumerGroup", "G"}, {"topic", "T"}})), Needed{});
  EXPECT_EQ(needed(request(rq::kEndTransaction, {{"producerGroup", "PG"}})), Needed{});
}

TEST(AccessRequestTest, ReadsTheSigner) {
  auto command = request(rq::kGetAllTopicConfig, {{"AccessKey", "ak"}, {"Signature", "sig"}});
  auto access = access_request_of(command);
  ASSERT_TRUE(access.is_ok());
  EXPECT_EQ(access->access_key, "ak");
  EXPECT_EQ(access->signature, "sig");
  EXPECT_FALSE(access_request_of(RemotingCommand::request(rq::kGetAllTopicConfig))->access_key.has_value());
}

}  // namespace
}  // namespace mqkit::acl
