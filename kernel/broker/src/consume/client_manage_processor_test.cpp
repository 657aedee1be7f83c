#include "mqkit/broker/consume/client_manage_processor.hpp"

#include <gtest/gtest.h>

#include "consume_test_support.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using testing::FakeChannel;

protocol::HeartbeatData heartbeat(const std::string& client_id, const std::string& model) {
  protocol::HeartbeatData h;
  h.client_id = client_id;
  protocol::ConsumerData c;
  c.group_name = "cg";
  c.consume_type = "CONSUME_PASSIVELY";
  c.message_model = model;
  c.consume_from_where = "CONSUME_FROM_LAST_OFFSET";
  protocol::SubscriptionData s;
  s.topic = "T";
  s.sub_string = "TagA || TagB";  // no codes: the broker derives them
  s.sub_version = 7;
  c.subscription_data_set.push_back(s);
  h.consumer_data_set.push_back(c);
  h.producer_groups = {"pg"};
  return h;
}

RemotingCommand heartbeat_request(const protocol::HeartbeatData& data) {
  auto request = testing::make_request(rq::kHeartBeat, {});
  request.language = plugin::v1::LanguageCode::kJava;
  request.version = 401;
  protocol::set_body(request, protocol::encode(data));
  return request;
}

using ClientManageProcessorTest = testing::ProcessorTest<ClientManageProcessor>;

TEST_F(ClientManageProcessorTest, HeartbeatRegistersGroupsAndCreatesTheRetryTopic) {
  const auto version_before = context().topics->snapshot().data_version;
  EXPECT_FALSE(context().topics->find("%RETRY%cg").has_value());

  EXPECT_EQ(call(heartbeat_request(heartbeat("c1", "CLUSTERING"))).code, rc::kSuccess);

  EXPECT_EQ(context().consumers->client_ids("cg"), std::vector<std::string>{"c1"});
  const auto group = context().consumers->find("cg");
  ASSERT_TRUE(group.has_value());
  ASSERT_EQ(group->connections.count(1), 1u);
  EXPECT_EQ(group->connections.at(1).language, plugin::v1::LanguageCode::kJava);
  EXPECT_EQ(group->connections.at(1).version, 401);
  const auto subscription = context().consumers->subscription("cg", "T");
  ASSERT_TRUE(subscription.has_value());
  EXPECT_EQ(subscription->tags_set, (std::set<std::string>{"TagA", "TagB"}));
  EXPECT_EQ(subscription->code_set, (std::set<std::int32_t>{plugin::v1::java_string_hash("TagA"),
                                                            plugin::v1::java_string_hash("TagB")}));
  EXPECT_EQ(subscription->sub_version, 7);
  EXPECT_TRUE(context().groups->find("cg").has_value());

  const auto retry = context().topics->find("%RETRY%cg");
  ASSERT_TRUE(retry.has_value());
  EXPECT_EQ(retry->read_queue_nums, 1);
  EXPECT_EQ(retry->write_queue_nums, 1);
  EXPECT_EQ(retry->perm, protocol::perm::kRead | protocol::perm::kWrite);
  EXPECT_GT(context().topics->snapshot().data_version.counter, version_before.counter);

  EXPECT_EQ(context().producers->connections("pg").size(), 1u);
}

TEST_F(ClientManageProcessorTest, BroadcastingGroupsGetNoRetryTopic) {
  EXPECT_EQ(call(heartbeat_request(heartbeat("c1", "BROADCASTING"))).code, rc::kSuccess);
  EXPECT_EQ(context().consumers->client_ids("cg"), std::vector<std::string>{"c1"});
  EXPECT_FALSE(context().topics->find("%RETRY%cg").has_value());
}

TEST_F(ClientManageProcessorTest, MalformedHeartbeatIsASystemError) {
  auto request = testing::make_request(rq::kHeartBeat, {});
  protocol::set_body(request, "{not json");
  EXPECT_EQ(call(std::move(request)).code, rc::kSystemError);
}

TEST_F(ClientManageProcessorTest, UnregisterDropsTheChannelFromTheNamedGroups) {
  ASSERT_EQ(call(heartbeat_request(heartbeat("c1", "CLUSTERING"))).code, rc::kSuccess);
  EXPECT_EQ(call(testing::make_request(rq::kUnregisterClient, {{"clientID", "c1"}, {"consumerGroup", "cg"}})).code,
            rc::kSuccess);
  EXPECT_TRUE(context().consumers->client_ids("cg").empty());
  EXPECT_EQ(context().producers->connections("pg").size(), 1u);

  EXPECT_EQ(call(testing::make_request(rq::kUnregisterClient, {{"clientID", "c1"}, {"producerGroup", "pg"}})).code,
            rc::kSuccess);
  EXPECT_TRUE(context().producers->connections("pg").empty());

  const RemotingCommand missing = call(testing::make_request(rq::kUnregisterClient, {{"consumerGroup", "cg"}}));
  EXPECT_EQ(missing.code, rc::kSystemError);
  EXPECT_EQ(missing.remark, "the custom field <clientID> is null");
}

}  // namespace
}  // namespace mqkit::broker
