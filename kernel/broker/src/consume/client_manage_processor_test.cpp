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

// The body a RocketMQ consumer sends (CheckClientRequestBody; the Java client sends no
// subscription for TAG ones, but a body with one must pass too).
RemotingCommand check_client_config_request(const std::string& expression_type, const std::string& expression) {
  auto request = testing::make_request(rq::kCheckClientConfig, {});
  protocol::set_body(request, R"({"clientId":"c1","group":"cg","subscriptionData":{"classFilterMode":false,)"
                              R"("codeSet":[],"expressionType":")" + expression_type + R"(","subString":")" +
                                  expression + R"(","subVersion":1,"tagsSet":[],"topic":"T"}})");
  return request;
}

TEST_F(ClientManageProcessorTest, CheckClientConfigAcceptsTagsAndSqlOnlyWhenThePropertyFilterIsOn) {
  EXPECT_EQ(call(check_client_config_request("TAG", "TagA || TagB")).code, rc::kSuccess);
  auto no_subscription = testing::make_request(rq::kCheckClientConfig, {});
  protocol::set_body(no_subscription, R"({"clientId":"c1","group":"cg"})");
  EXPECT_EQ(call(std::move(no_subscription)).code, rc::kSuccess);

  const RemotingCommand off = call(check_client_config_request("SQL92", "a > 5"));
  EXPECT_EQ(off.code, rc::kSystemError);
  EXPECT_EQ(off.remark, "The broker does not support consumer to filter message by SQL92");

  harness_.config().enable_property_filter = true;
  EXPECT_EQ(call(check_client_config_request("SQL92", "a > 5 AND b IN ('x', 'y')")).code, rc::kSuccess);
  const RemotingCommand bad = call(check_client_config_request("SQL92", "a >"));
  EXPECT_EQ(bad.code, rc::kSubscriptionParseFailed);
  EXPECT_NE(bad.remark.value_or("").find("column"), std::string::npos) << bad.remark.value_or("");
  EXPECT_EQ(call(check_client_config_request("XPATH", "/a")).code, rc::kSubscriptionParseFailed);

  auto malformed = testing::make_request(rq::kCheckClientConfig, {});
  protocol::set_body(malformed, "{not json");
  EXPECT_EQ(call(std::move(malformed)).code, rc::kSystemError);
}

}  // namespace
}  // namespace mqkit::broker
