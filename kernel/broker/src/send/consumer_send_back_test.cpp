#include <gtest/gtest.h>

#include "mqkit/protocol/validation.hpp"
#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
using testing::SendFixture;
using testing::SendRequest;

v1::RemotingCommand send_back(std::int64_t offset, std::int32_t delay_level,
                              std::optional<std::int32_t> max_reconsume_times = std::nullopt) {
  auto request = v1::RemotingCommand::request(protocol::request_code::kConsumerSendMsgBack);
  request.ext_fields.set("offset", offset);
  request.ext_fields.set("group", std::string("G"));
  request.ext_fields.set("delayLevel", std::int64_t{delay_level});
  request.ext_fields.set("originMsgId", std::string("CLIENT_SIDE_ID"));
  request.ext_fields.set("originTopic", std::string("T"));
  request.ext_fields.set("unitMode", false);
  if (max_reconsume_times) request.ext_fields.set("maxReconsumeTimes", std::int64_t{*max_reconsume_times});
  return request;
}

// Sends one message to T and returns its offset message id.
std::string send_original(SendFixture& f) {
  auto response = f.send(SendRequest{});
  EXPECT_EQ(response.code, rc::kSuccess);
  return std::string(response.ext_fields.get("msgId").value_or(""));
}

std::int64_t commit_offset_of(const std::string& msg_id) { return v1::parse_offset_message_id(msg_id)->commit_offset; }

// Sends the original back once with the default level: the copy parked at level 3.
std::optional<testing::StoredRecord> retried_once(SendFixture& f, const std::string& original_id) {
  EXPECT_EQ(f.call(send_back(commit_offset_of(original_id), 0)).code, rc::kSuccess);
  return f.read("SCHEDULE_TOPIC_XXXX", 2, 0);
}

TEST(SendBackTest, FirstSendBackRetriesAtLevelThreeWithItsOrigin) {
  SendFixture f;
  const std::string original_id = send_original(f);
  auto parked = retried_once(f, original_id);  // level 3 = 3 + 0 reconsumes
  ASSERT_TRUE(parked);
  auto retry = f.context().topics->find("%RETRY%G");
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->write_queue_nums, 1);
  EXPECT_EQ(parked->property("DELAY"), "3");
  EXPECT_EQ(parked->property("REAL_TOPIC"), "%RETRY%G");
  EXPECT_EQ(parked->property("REAL_QID"), "0");
  EXPECT_EQ(parked->property("RETRY_TOPIC"), "T");
  EXPECT_EQ(parked->property("ORIGIN_MESSAGE_ID"), original_id);
  EXPECT_EQ(parked->property("TAGS"), "TagA");
  EXPECT_EQ(parked->property("KEYS"), "k1");
  EXPECT_EQ(parked->property("UNIQ_KEY"), "AC11000100002A9F0000000000000001");
  EXPECT_EQ(parked->view.reconsume_times, 1);
  EXPECT_EQ(parked->body(), "hello");
  EXPECT_EQ(parked->view.born_timestamp, 1'700'000'000'000);
  EXPECT_EQ(v1::to_string(parked->view.born_host), "127.0.0.1:50000");
}

TEST(SendBackTest, LaterSendBacksKeepTheFirstOriginAndDelayLonger) {
  SendFixture f;
  const std::string original_id = send_original(f);
  auto first_retry = retried_once(f, original_id);
  ASSERT_TRUE(first_retry);
  ASSERT_EQ(f.call(send_back(first_retry->view.commit_offset, 0)).code, rc::kSuccess);
  auto second_retry = f.read("SCHEDULE_TOPIC_XXXX", 3, 0);  // level 4 = 3 + 1 reconsume
  ASSERT_TRUE(second_retry);
  EXPECT_EQ(second_retry->view.reconsume_times, 2);
  EXPECT_EQ(second_retry->property("RETRY_TOPIC"), "T");
  EXPECT_EQ(second_retry->property("ORIGIN_MESSAGE_ID"), original_id);
  // Both count as send-backs of T by G (SNDBCK_PUT_NUMS, keyed by the RETRY_TOPIC), and the
  // send that stored the original counted in TOPIC_PUT_NUMS.
  f.context().stats->sample(1'000'000, 1);
  EXPECT_EQ(f.context().stats->view("SNDBCK_PUT_NUMS", "T@G", "", 1'000'000)->stats_minute.sum, 2);
  EXPECT_EQ(f.context().stats->view("TOPIC_PUT_NUMS", "T", "", 1'000'000)->stats_minute.sum, 1);
  // An explicit level is used as given.
  ASSERT_EQ(f.call(send_back(commit_offset_of(original_id), 1)).code, rc::kSuccess);
  EXPECT_TRUE(f.read("SCHEDULE_TOPIC_XXXX", 0, 0).has_value());
}

TEST(SendBackTest, ExhaustedOrNegativeLevelGoesToTheDlq) {
  SendFixture f;
  const std::string original_id = send_original(f);
  auto once_retried = retried_once(f, original_id);
  ASSERT_TRUE(once_retried);
  ASSERT_EQ(f.call(send_back(once_retried->view.commit_offset, 0, 1)).code, rc::kSuccess);
  auto dlq = f.context().topics->find("%DLQ%G");
  ASSERT_TRUE(dlq);
  EXPECT_EQ(dlq->write_queue_nums, 1);
  auto dead = f.read("%DLQ%G", 0, 0);
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->view.reconsume_times, 2);
  EXPECT_FALSE(dead->property("DELAY"));
  EXPECT_EQ(dead->property("RETRY_TOPIC"), "T");
  EXPECT_EQ(dead->property("ORIGIN_MESSAGE_ID"), original_id);

  ASSERT_EQ(f.call(send_back(commit_offset_of(original_id), -1)).code, rc::kSuccess);
  auto straight = f.read("%DLQ%G", 0, 1);
  ASSERT_TRUE(straight);
  EXPECT_EQ(straight->view.reconsume_times, 1);
}

// A client may store any reconsume count: near the int limit the next count stops at the limit,
// and the default level (3 + reconsumes) at the schedule's last level, instead of wrapping.
TEST(SendBackTest, ReconsumeCountsNearTheIntLimitStopThere) {
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  SendFixture f;
  SendRequest near_limit;
  near_limit.reconsume_times = kMax - 2;
  const auto retried = f.send(near_limit);
  ASSERT_EQ(retried.code, rc::kSuccess);
  ASSERT_EQ(f.call(send_back(commit_offset_of(std::string(retried.ext_fields.get("msgId").value_or(""))), 0, kMax)).code,
            rc::kSuccess);
  const auto last_level = static_cast<std::int32_t>(f.context().config->delay_level_ms.size());
  auto parked = f.read("SCHEDULE_TOPIC_XXXX", last_level - 1, 0);
  ASSERT_TRUE(parked) << "not parked at the last delay level";
  EXPECT_EQ(parked->property("DELAY"), std::to_string(last_level));
  EXPECT_EQ(parked->view.reconsume_times, kMax - 1);

  SendRequest at_limit;
  at_limit.reconsume_times = kMax;
  const auto exhausted = f.send(at_limit);
  ASSERT_EQ(exhausted.code, rc::kSuccess);
  ASSERT_EQ(f.call(send_back(commit_offset_of(std::string(exhausted.ext_fields.get("msgId").value_or(""))), 0, kMax)).code,
            rc::kSuccess);
  auto dead = f.read("%DLQ%G", 0, 0);
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->view.reconsume_times, kMax);
}

TEST(SendBackTest, UnknownOffsetIsASystemError) {
  SendFixture f;
  const std::int64_t offset = commit_offset_of(send_original(f));
  for (const std::int64_t bad : {offset + 1, std::int64_t{1} << 40}) {
    auto response = f.call(send_back(bad, 0));
    EXPECT_EQ(response.code, rc::kSystemError);
    EXPECT_EQ(response.remark, "look message by offset failed, " + std::to_string(bad));
  }
}

TEST(SendBackTest, GroupMustExistAndWantRetries) {
  {
    SendFixture f("auto_create_subscription_group = false");
    const std::int64_t offset = commit_offset_of(send_original(f));
    EXPECT_EQ(f.call(send_back(offset, 0)).code, rc::kSubscriptionGroupNotExist);
  }
  SendFixture f;
  const std::int64_t offset = commit_offset_of(send_original(f));
  SubscriptionGroupConfig no_retries;
  no_retries.group_name = "G";
  no_retries.retry_queue_nums = 0;
  ASSERT_TRUE(f.context().groups->update(no_retries).is_ok());
  EXPECT_EQ(f.call(send_back(offset, 0)).code, rc::kSuccess);
  EXPECT_FALSE(f.context().topics->find("%RETRY%G"));
}

TEST(SendBackTest, MissingRequiredFieldIsASystemError) {
  SendFixture f;
  auto request = v1::RemotingCommand::request(protocol::request_code::kConsumerSendMsgBack);
  request.ext_fields.set("group", std::string("G"));
  auto response = f.call(request);
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, "the custom field <offset> is null");
}

}  // namespace
}  // namespace mqkit::broker
