#include "mqkit/broker/consume/store_admin_processor.hpp"

#include <gtest/gtest.h>

#include "consume_test_support.hpp"
#include "mqkit/broker/consumer_manager.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/store_bodies.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using testing::TestMessage;

class StoreAdminProcessorTest : public testing::ProcessorTest<StoreAdminProcessor> {
 protected:
  RemotingCommand query(std::int64_t index, std::int64_t count, const std::string& group = "") {
    RemotingCommand request = testing::make_request(
        rq::kQueryConsumeQueue,
        {{"topic", "T"}, {"queueId", "1"}, {"index", std::to_string(index)}, {"count", std::to_string(count)}});
    if (!group.empty()) request.ext_fields.set("consumerGroup", group);
    return request;
  }
  protocol::QueryConsumeQueueResponse body_of(const RemotingCommand& response) {
    auto body = protocol::decode_query_consume_queue_response(protocol::body_text(response));
    EXPECT_TRUE(body.is_ok()) << body.status().to_string();
    return body.value_or(protocol::QueryConsumeQueueResponse{});
  }
};

TEST_F(StoreAdminProcessorTest, QueryConsumeQueueAnswersTheUnits) {
  testing::create_topic(context(), "T", 2);
  std::vector<plugin::v1::AppendResult> written;
  for (int i = 0; i < 5; ++i) written.push_back(testing::append(context(), TestMessage{"T", 1, "m" + std::to_string(i), "TagA", "", ""}));
  harness_.wait_dispatched();

  const RemotingCommand answer = call(query(2, 2));
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  const auto body = body_of(answer);
  EXPECT_EQ(body.min_queue_index, 0);
  EXPECT_EQ(body.max_queue_index, 5);
  ASSERT_EQ(body.queue_data.size(), 2u);
  EXPECT_EQ(body.queue_data[0].physic_offset, written[2].commit_offset);
  EXPECT_EQ(body.queue_data[1].physic_size, written[3].bytes);
  EXPECT_EQ(body.queue_data[0].tags_code, plugin::v1::java_string_hash("TagA"));
  EXPECT_FALSE(body.subscription_data.has_value());
  EXPECT_FALSE(body.filter_data.has_value());

  // Past the end: the bounds and RocketMQ's remark.
  const RemotingCommand beyond = call(query(9, 2));
  EXPECT_EQ(beyond.code, rc::kSuccess);
  EXPECT_EQ(beyond.remark, "Index 9 of 1@T is not exist!");
  EXPECT_TRUE(body_of(beyond).queue_data.empty());
  EXPECT_EQ(body_of(beyond).max_queue_index, 5);
}

TEST_F(StoreAdminProcessorTest, QueryConsumeQueueShowsTheGroupsSubscription) {
  testing::create_topic(context(), "T", 2);
  testing::append(context(), TestMessage{"T", 1, "m", "", "", ""});
  harness_.wait_dispatched();
  const auto offline = body_of(call(query(0, 1, "G")));
  EXPECT_EQ(offline.filter_data, "G@T is not online!");
  EXPECT_FALSE(offline.subscription_data.has_value());

  context().consumers->register_consumer(testing::consumer_data("G", {"T"}),
                                         {channel_, "c1", plugin::v1::LanguageCode::kJava, 401, 0});
  const auto online = body_of(call(query(0, 1, "G")));
  ASSERT_TRUE(online.subscription_data.has_value());
  EXPECT_EQ(online.subscription_data->sub_string, "*");
  EXPECT_EQ(online.filter_data, "null") << "a tag subscription has no filter data";
}

TEST_F(StoreAdminProcessorTest, QueryConsumeQueueRefusesBadRequests) {
  const RemotingCommand missing = call(query(0, 1));
  EXPECT_EQ(missing.code, rc::kSystemError);
  EXPECT_EQ(missing.remark, "1@T is not exist!");
  const RemotingCommand too_many = call(query(0, kMaxQueryConsumeQueueCount + 1));
  EXPECT_EQ(too_many.code, rc::kSystemError);
  EXPECT_NE(too_many.remark.value_or("").find("count must be 0 to 10000"), std::string::npos) << too_many.remark.value_or("");
  const RemotingCommand no_index =
      call(testing::make_request(rq::kQueryConsumeQueue, {{"topic", "T"}, {"queueId", "1"}, {"count", "1"}}));
  EXPECT_EQ(no_index.code, rc::kSystemError);
  EXPECT_NE(no_index.remark.value_or("").find("index"), std::string::npos) << no_index.remark.value_or("");
}

TEST_F(StoreAdminProcessorTest, CleanUnusedTopicDropsQueuesOfTopicsWithoutAConfig) {
  testing::create_topic(context(), "Kept", 1);
  testing::append(context(), TestMessage{"Kept", 0, "k", "", "", ""});
  testing::append(context(), TestMessage{"Forgotten", 0, "f", "", "", ""});  // stored, but the broker has no config for it
  testing::append(context(), TestMessage{"SCHEDULE_TOPIC_XXXX", 2, "s", "", "", ""});
  harness_.wait_dispatched();

  const RemotingCommand answer = call(testing::make_request(rq::kCleanUnusedTopic, {}));
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  EXPECT_EQ(answer.remark, "dropped the queues of 1 unused topic(s)");
  EXPECT_EQ(context().store->max_offset("Forgotten", 0), 0);
  EXPECT_EQ(context().store->max_offset("Kept", 0), 1);
  EXPECT_EQ(context().store->max_offset("SCHEDULE_TOPIC_XXXX", 2), 1) << "system topics are never dropped";
}

TEST_F(StoreAdminProcessorTest, CleanExpiredConsumeQueueKeepsQueuesWithMessages) {
  testing::create_topic(context(), "T", 1);
  testing::append(context(), TestMessage{"T", 0, "m", "", "", ""});
  harness_.wait_dispatched();
  const RemotingCommand answer = call(testing::make_request(rq::kCleanExpiredConsumeQueue, {}));
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  EXPECT_EQ(answer.remark, "dropped 0 expired consume queue(s)");
  EXPECT_EQ(context().store->max_offset("T", 0), 1);
}

TEST_F(StoreAdminProcessorTest, DeleteExpiredCommitLogSaysWhyTheMemoryStoreCannot) {
  const RemotingCommand answer = call(testing::make_request(rq::kDeleteExpiredCommitLog, {}));
  EXPECT_EQ(answer.code, rc::kSystemError);
  EXPECT_NE(answer.remark.value_or("").find("keeps no files"), std::string::npos) << answer.remark.value_or("");
}

}  // namespace
}  // namespace mqkit::broker
