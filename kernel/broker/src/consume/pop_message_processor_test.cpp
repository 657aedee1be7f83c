#include "mqkit/broker/consume/pop_message_processor.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "consume_test_support.hpp"
#include "mqkit/broker/consumer_offset_manager.hpp"
#include "mqkit/broker/subscription_group_manager.hpp"
#include "mqkit/broker/testing/broker_harness.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using testing::TestMessage;

class PopMessageProcessorTest : public testing::ProcessorTest<PopMessageProcessor> {
 protected:
  void SetUp() override { testing::create_topic(context(), "T", 2); }

  void put(std::int32_t queue_id, const std::string& body, const std::string& tags = "") {
    testing::append(context(), TestMessage{"T", queue_id, body, tags, "", ""});
  }

  RemotingCommand pop(std::int32_t queue_id = -1, std::int64_t invisible_ms = 10'000, std::int32_t max = 32,
                      const std::string& exp = "*", bool order = false, const std::string& exp_type = "TAG") {
    return call(testing::make_request(rq::kPopMessage, {{"consumerGroup", "g"}, {"topic", "T"},
                                                        {"queueId", std::to_string(queue_id)},
                                                        {"maxMsgNums", std::to_string(max)},
                                                        {"invisibleTime", std::to_string(invisible_ms)},
                                                        {"pollTime", "0"}, {"bornTime", "0"}, {"initMode", "0"},
                                                        {"expType", exp_type}, {"exp", exp},
                                                        {"order", order ? "true" : "false"}}));
  }

  // The extraInfo a RocketMQ client builds for a popped message (ExtraInfoUtil).
  static std::string extra_info(const RemotingCommand& popped, std::int32_t queue_id, std::int64_t offset) {
    return "0 " + std::to_string(testing::ext_int(popped, "popTime")) + " " +
           std::to_string(testing::ext_int(popped, "invisibleTime")) + " 0 0 broker-a " + std::to_string(queue_id) +
           " " + std::to_string(offset);
  }

  RemotingCommand ack(const std::string& extra, std::int32_t queue_id, std::int64_t offset) {
    return call(testing::make_request(rq::kAckMessage, {{"consumerGroup", "g"}, {"topic", "T"},
                                                        {"queueId", std::to_string(queue_id)}, {"extraInfo", extra},
                                                        {"offset", std::to_string(offset)}}));
  }

  std::int64_t committed(std::int32_t queue_id) { return context().offsets->query("g", "T", queue_id).value_or(-1); }

  static std::vector<std::string> bodies(const RemotingCommand& response) {
    std::vector<std::string> out;
    for (const auto& record : testing::records_of(response)) out.push_back(testing::body_of(record));
    return out;
  }
};

TEST_F(PopMessageProcessorTest, PoppedMessagesStayInvisibleUntilAckedAndTheOffsetFollowsTheAcks) {
  for (int i = 0; i < 3; ++i) put(0, "m" + std::to_string(i));
  harness_.wait_dispatched();
  const RemotingCommand popped = pop();
  ASSERT_EQ(popped.code, rc::kSuccess) << popped.remark.value_or("");
  EXPECT_EQ(bodies(popped), (std::vector<std::string>{"m0", "m1", "m2"}));
  EXPECT_EQ(popped.ext_fields.get("startOffsetInfo").value_or(""), "0 0 0");
  EXPECT_EQ(popped.ext_fields.get("msgOffsetInfo").value_or(""), "0 0 0,1,2");
  EXPECT_EQ(testing::ext_int(popped, "invisibleTime"), 10'000);
  EXPECT_EQ(testing::ext_int(popped, "restNum"), 0);
  EXPECT_EQ(pop().code, rc::kPullNotFound);  // all invisible now
  EXPECT_EQ(committed(0), 0);

  EXPECT_EQ(ack(extra_info(popped, 0, 0), 0, 0).code, rc::kSuccess);
  EXPECT_EQ(ack(extra_info(popped, 0, 2), 0, 2).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 1);  // the lowest offset not yet acked
  EXPECT_EQ(ack(extra_info(popped, 0, 1), 0, 1).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 3);
  EXPECT_EQ(ack(extra_info(popped, 0, 1), 0, 1).code, rc::kSuccess);  // again: changes nothing
}

TEST_F(PopMessageProcessorTest, AnUnackedMessageComesBackWithOneMoreReconsumeAfterItsInvisibleTime) {
  put(1, "late");
  harness_.wait_dispatched();
  const RemotingCommand first = pop(1, 1000);
  ASSERT_EQ(bodies(first), std::vector<std::string>{"late"});
  EXPECT_EQ(testing::records_of(first)[0].reconsume_times, 0);
  harness_.now() += 1001;
  const RemotingCommand second = pop(1, 1000);
  ASSERT_EQ(bodies(second), std::vector<std::string>{"late"});
  EXPECT_EQ(testing::records_of(second)[0].reconsume_times, 1);
  // The first delivery's handle is stale: its ack leaves the second delivery in flight.
  EXPECT_EQ(ack(extra_info(first, 1, 0), 1, 0).code, rc::kSuccess);
  EXPECT_EQ(committed(1), 0);
  EXPECT_EQ(ack(extra_info(second, 1, 0), 1, 0).code, rc::kSuccess);
  EXPECT_EQ(committed(1), 1);
}

TEST_F(PopMessageProcessorTest, AMessagePastTheGroupsRetriesGoesToTheDlq) {
  protocol::SubscriptionGroupConfig group;
  group.group_name = "g";
  group.retry_max_times = 1;
  ASSERT_TRUE(context().groups->update(group).is_ok());
  put(0, "poison");
  harness_.wait_dispatched();
  ASSERT_EQ(bodies(pop(0, 1000)).size(), 1U);
  harness_.now() += 1001;
  ASSERT_EQ(bodies(pop(0, 1000)).size(), 1U);  // the one retry
  harness_.now() += 1001;
  EXPECT_EQ(pop(0, 1000).code, rc::kPullNotFound);
  EXPECT_EQ(committed(0), 1);
  harness_.wait_dispatched();
  ASSERT_EQ(context().store->max_offset("%DLQ%g", 0), 1);
}

TEST_F(PopMessageProcessorTest, ChangingTheInvisibleTimeMovesTheDeadlineAndRenamesTheDelivery) {
  put(0, "slow");
  harness_.wait_dispatched();
  const RemotingCommand popped = pop(0, 1000);
  ASSERT_EQ(popped.code, rc::kSuccess);
  const RemotingCommand changed = call(testing::make_request(
      rq::kChangeMessageInvisibleTime, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "0"},
                                        {"extraInfo", extra_info(popped, 0, 0)}, {"offset", "0"},
                                        {"invisibleTime", "60000"}}));
  ASSERT_EQ(changed.code, rc::kSuccess) << changed.remark.value_or("");
  EXPECT_EQ(testing::ext_int(changed, "invisibleTime"), 60'000);
  harness_.now() += 2000;
  EXPECT_EQ(pop(0, 1000).code, rc::kPullNotFound);
  // The old handle names nothing now; the new one acks.
  const RemotingCommand stale = call(testing::make_request(
      rq::kChangeMessageInvisibleTime, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "0"},
                                        {"extraInfo", extra_info(popped, 0, 0)}, {"offset", "0"}, {"invisibleTime", "5"}}));
  EXPECT_EQ(stale.code, rc::kInvalidParameter);
  const std::string renamed = "0 " + std::to_string(testing::ext_int(changed, "popTime")) + " 60000 0 0 broker-a 0 0";
  EXPECT_EQ(ack(renamed, 0, 0).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 1);
}

TEST_F(PopMessageProcessorTest, InOrderAQueuesNextMessagesWaitForTheAcks) {
  put(0, "first");
  put(0, "second");
  harness_.wait_dispatched();
  const RemotingCommand one = pop(0, 10'000, 1, "*", true);
  ASSERT_EQ(bodies(one), std::vector<std::string>{"first"});
  EXPECT_EQ(pop(0, 10'000, 1, "*", true).code, rc::kPullNotFound);
  ASSERT_EQ(ack(extra_info(one, 0, 0), 0, 0).code, rc::kSuccess);
  EXPECT_EQ(bodies(pop(0, 10'000, 1, "*", true)), std::vector<std::string>{"second"});
}

TEST_F(PopMessageProcessorTest, TagFilterSkipsOtherTagsAndTheOffsetPassesThem) {
  put(0, "a1", "A");
  put(0, "b1", "B");
  put(0, "a2", "A");
  harness_.wait_dispatched();
  const RemotingCommand popped = pop(0, 10'000, 32, "A");
  ASSERT_EQ(bodies(popped), (std::vector<std::string>{"a1", "a2"}));
  ASSERT_EQ(ack(extra_info(popped, 0, 0), 0, 0).code, rc::kSuccess);
  ASSERT_EQ(ack(extra_info(popped, 0, 2), 0, 2).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 3);
}

TEST_F(PopMessageProcessorTest, AHeldPopIsAnsweredWhenAMessageArrives) {
  auto request = testing::make_request(rq::kPopMessage, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "-1"},
                                                         {"maxMsgNums", "8"}, {"invisibleTime", "10000"},
                                                         {"pollTime", "20000"}, {"bornTime", "0"}, {"initMode", "0"}});
  Responder responder(channel_, request);
  processor_.process(std::move(request), responder);
  EXPECT_TRUE(channel_->sent().empty());
  put(1, "awaited");
  harness_.wait_dispatched();
  ASSERT_TRUE(channel_->wait_for(1, std::chrono::seconds(5)));
  EXPECT_EQ(bodies(channel_->sent().back()), std::vector<std::string>{"awaited"});
}

// One arrival answers one of two waiting pops; the other waits on (as RocketMQ's pops poll
// again) and takes the next arrival, rather than being answered empty.
TEST_F(PopMessageProcessorTest, OneArrivalAnswersOneHeldPopAndTheOtherWaitsOn) {
  const auto held_pop = [this] {
    auto request = testing::make_request(rq::kPopMessage, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "-1"},
                                                           {"maxMsgNums", "8"}, {"invisibleTime", "10000"},
                                                           {"pollTime", "20000"}, {"bornTime", "0"}, {"initMode", "0"}});
    Responder responder(channel_, request);
    processor_.process(std::move(request), responder);
  };
  held_pop();
  held_pop();
  EXPECT_TRUE(channel_->sent().empty());
  put(0, "first");
  harness_.wait_dispatched();
  ASSERT_TRUE(channel_->wait_for(1, std::chrono::seconds(5)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(channel_->sent().size(), 1U) << "the second pop was answered without a message";
  EXPECT_EQ(bodies(channel_->sent().back()), std::vector<std::string>{"first"});
  put(1, "second");
  harness_.wait_dispatched();
  ASSERT_TRUE(channel_->wait_for(2, std::chrono::seconds(5)));
  EXPECT_EQ(bodies(channel_->sent().back()), std::vector<std::string>{"second"});
}

// A pop of any queue, held up to 20 s (in the harness's clock) when nothing is visible; its answer
// comes on `channel`.
void send_held_pop(PopMessageProcessor& processor, const std::shared_ptr<testing::FakeChannel>& channel, bool order) {
  auto request = testing::make_request(rq::kPopMessage, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "-1"},
                                                         {"maxMsgNums", "1"}, {"invisibleTime", "60000"},
                                                         {"pollTime", "20000"}, {"bornTime", "0"}, {"initMode", "0"},
                                                         {"order", order ? "true" : "false"}});
  Responder responder(channel, request);
  processor.process(std::move(request), responder);
}

TEST_F(PopMessageProcessorTest, AnOrderlyHeldPopIsAnsweredWhenTheAckFreesTheQueue) {
  put(0, "first");
  put(0, "second");
  harness_.wait_dispatched();
  const RemotingCommand one = pop(0, 10'000, 1, "*", true);
  ASSERT_EQ(bodies(one), std::vector<std::string>{"first"});
  const auto held = std::make_shared<testing::FakeChannel>();
  send_held_pop(processor_, held, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(held->sent().empty()) << "answered while the queue's first message is in flight";
  ASSERT_EQ(ack(extra_info(one, 0, 0), 0, 0).code, rc::kSuccess);
  ASSERT_TRUE(held->wait_for(1, std::chrono::seconds(5))) << "the ack did not wake the held orderly pop";
  EXPECT_EQ(bodies(held->sent().back()), std::vector<std::string>{"second"});
}

TEST_F(PopMessageProcessorTest, AHeldPopGetsANackedMessageWhenItsNewInvisibleTimeEnds) {
  put(0, "nacked");
  harness_.wait_dispatched();
  const RemotingCommand popped = pop(0, 60'000);
  ASSERT_EQ(bodies(popped), std::vector<std::string>{"nacked"});
  const auto held = std::make_shared<testing::FakeChannel>();
  send_held_pop(processor_, held, false);
  // Visible again in 5 ms instead of a minute (a consumer giving the message back).
  const RemotingCommand changed = call(testing::make_request(
      rq::kChangeMessageInvisibleTime, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "0"},
                                        {"extraInfo", extra_info(popped, 0, 0)}, {"offset", "0"}, {"invisibleTime", "5"}}));
  ASSERT_EQ(changed.code, rc::kSuccess) << changed.remark.value_or("");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(held->sent().empty()) << "answered before the new invisible time ended";
  harness_.now() += 10;  // past the new invisible time, far from the held pop's 20 s
  ASSERT_TRUE(held->wait_for(1, std::chrono::seconds(5))) << "the held pop did not see the earlier visibility";
  EXPECT_EQ(bodies(held->sent().back()), std::vector<std::string>{"nacked"});
}

TEST_F(PopMessageProcessorTest, RefusesWhatItCannotServe) {
  auto unknown = testing::make_request(rq::kPopMessage, {{"consumerGroup", "g"}, {"topic", "Nope"}, {"queueId", "-1"},
                                                         {"maxMsgNums", "8"}, {"invisibleTime", "1000"},
                                                         {"pollTime", "0"}, {"bornTime", "0"}, {"initMode", "0"}});
  EXPECT_EQ(call(std::move(unknown)).code, rc::kTopicNotExist);
  EXPECT_EQ(pop(5).code, rc::kSystemError);  // no queue 5
  EXPECT_EQ(pop(-1, 10'000, 32, "a > 1", false, "XPATH").code, rc::kSystemError);  // no such expression type
  EXPECT_EQ(ack("garbage", 0, 0).code, rc::kInvalidParameter);
  EXPECT_EQ(pop(-1, 9'000'000'000'000'000'000).code, rc::kInvalidParameter);  // now + it would overflow
}

// SQL92 expressions (expType SQL92, with enable_property_filter) select messages by their
// properties; the ones not selected count as consumed, as tag misses do.
class PopMessageProcessorSqlTest : public PopMessageProcessorTest {
 protected:
  void SetUp() override {
    PopMessageProcessorTest::SetUp();
    harness_.config().enable_property_filter = true;
  }

  void put_with_a(std::int32_t queue_id, const std::string& body, const std::string& a) {
    testing::append(context(), TestMessage{"T", queue_id, body, "", "", "", {{"a", a}}});
  }

  RemotingCommand sql_pop(std::int32_t queue_id, const std::string& expression, std::int32_t max = 32,
                          bool order = false, std::int64_t invisible_ms = 10'000) {
    return pop(queue_id, invisible_ms, max, expression, order, "SQL92");
  }
};

TEST_F(PopMessageProcessorSqlTest, OnlySelectedMessagesArePoppedAndTheOthersDoNotHoldTheOffsetBack) {
  put_with_a(0, "one", "1");
  put_with_a(0, "two", "2");
  put(0, "without-a");
  put_with_a(0, "three", "3");
  put_with_a(0, "zero", "0");
  harness_.wait_dispatched();
  const RemotingCommand popped = sql_pop(0, "a > 1");
  ASSERT_EQ(popped.code, rc::kSuccess) << popped.remark.value_or("");
  EXPECT_EQ(bodies(popped), (std::vector<std::string>{"two", "three"}));
  EXPECT_EQ(popped.ext_fields.get("msgOffsetInfo").value_or(""), "0 0 1,3");
  EXPECT_EQ(testing::ext_int(popped, "restNum"), 0);
  EXPECT_EQ(committed(0), 1);  // "one" counts as consumed; "two" is in flight
  EXPECT_EQ(sql_pop(0, "a > 1").code, rc::kPullNotFound);

  ASSERT_EQ(ack(extra_info(popped, 0, 3), 0, 3).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 1);
  ASSERT_EQ(ack(extra_info(popped, 0, 1), 0, 1).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 5);  // past "without-a" and "zero" too
}

TEST_F(PopMessageProcessorSqlTest, ASelectedMessageBehindUnselectedOnesIsPoppedWithoutWaiting) {
  for (int i = 0; i < 3; ++i) put_with_a(1, "skipped" + std::to_string(i), "0");
  put_with_a(1, "wanted", "7");
  harness_.wait_dispatched();
  const RemotingCommand popped = sql_pop(1, "a = 7", 1);
  ASSERT_EQ(popped.code, rc::kSuccess) << popped.remark.value_or("");
  EXPECT_EQ(bodies(popped), std::vector<std::string>{"wanted"});
  EXPECT_EQ(popped.ext_fields.get("startOffsetInfo").value_or(""), "0 1 0");
  EXPECT_EQ(popped.ext_fields.get("msgOffsetInfo").value_or(""), "0 1 3");
  EXPECT_EQ(committed(1), 3);
}

TEST_F(PopMessageProcessorSqlTest, AQueueWithNothingSelectedIsConsumedToItsEnd) {
  put_with_a(0, "low", "0");
  put_with_a(0, "lower", "-1");
  harness_.wait_dispatched();
  EXPECT_EQ(sql_pop(0, "a > 1").code, rc::kPullNotFound);
  EXPECT_EQ(committed(0), 2);
}

TEST_F(PopMessageProcessorSqlTest, ASelectedMessageNotAckedComesBackAfterItsInvisibleTime) {
  put_with_a(0, "skipped", "0");
  put_with_a(0, "again", "2");
  harness_.wait_dispatched();
  ASSERT_EQ(bodies(sql_pop(0, "a > 1", 32, false, 1000)), std::vector<std::string>{"again"});
  harness_.now() += 1001;
  const RemotingCommand second = sql_pop(0, "a > 1", 32, false, 1000);
  ASSERT_EQ(bodies(second), std::vector<std::string>{"again"});
  EXPECT_EQ(testing::records_of(second)[0].reconsume_times, 1);
  ASSERT_EQ(ack(extra_info(second, 0, 1), 0, 1).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 2);
}

TEST_F(PopMessageProcessorSqlTest, InOrderTheNextSelectedMessageWaitsForTheAckAndUnselectedOnesAreSkipped) {
  put_with_a(0, "first", "2");
  put_with_a(0, "unselected", "0");
  put_with_a(0, "second", "3");
  harness_.wait_dispatched();
  const RemotingCommand one = sql_pop(0, "a > 1", 1, true);
  ASSERT_EQ(bodies(one), std::vector<std::string>{"first"});
  EXPECT_EQ(sql_pop(0, "a > 1", 1, true).code, rc::kPullNotFound);
  ASSERT_EQ(ack(extra_info(one, 0, 0), 0, 0).code, rc::kSuccess);
  const RemotingCommand two = sql_pop(0, "a > 1", 1, true);
  ASSERT_EQ(bodies(two), std::vector<std::string>{"second"});
  ASSERT_EQ(ack(extra_info(two, 0, 2), 0, 2).code, rc::kSuccess);
  EXPECT_EQ(committed(0), 3);
}

TEST_F(PopMessageProcessorSqlTest, AHeldPopIsAnsweredWithASelectedMessageWhenItArrives) {
  put_with_a(1, "unselected", "0");
  harness_.wait_dispatched();
  auto request = testing::make_request(rq::kPopMessage, {{"consumerGroup", "g"}, {"topic", "T"}, {"queueId", "-1"},
                                                         {"maxMsgNums", "8"}, {"invisibleTime", "10000"},
                                                         {"pollTime", "20000"}, {"bornTime", "0"}, {"initMode", "0"},
                                                         {"expType", "SQL92"}, {"exp", "a > 1"}});
  Responder responder(channel_, request);
  processor_.process(std::move(request), responder);
  EXPECT_TRUE(channel_->sent().empty());
  // An arrival the filter does not select leaves the pop waiting.
  put_with_a(0, "also unselected", "1");
  harness_.wait_dispatched();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(channel_->sent().empty());
  put_with_a(1, "awaited", "5");
  harness_.wait_dispatched();
  ASSERT_TRUE(channel_->wait_for(1, std::chrono::seconds(5)));
  EXPECT_EQ(bodies(channel_->sent().back()), std::vector<std::string>{"awaited"});
}

TEST_F(PopMessageProcessorSqlTest, AnExpressionThatDoesNotParseIsRefusedNamingTheProblem) {
  const RemotingCommand refused = sql_pop(-1, "a > ");
  EXPECT_EQ(refused.code, rc::kSubscriptionParseFailed);
  EXPECT_NE(refused.remark.value_or("").find("parse the consumer's subscription failed"), std::string::npos)
      << refused.remark.value_or("");
  EXPECT_NE(refused.remark.value_or("").find("at column 5"), std::string::npos) << refused.remark.value_or("");
}

TEST_F(PopMessageProcessorSqlTest, RefusedWhenThePropertyFilterIsOff) {
  harness_.config().enable_property_filter = false;
  const RemotingCommand refused = sql_pop(-1, "a > 1");
  EXPECT_EQ(refused.code, rc::kSystemError);
  EXPECT_EQ(refused.remark, "The broker does not support consumer to filter message by SQL92");
}

TEST_F(PopMessageProcessorSqlTest, NoExpressionTakesEveryMessage) {
  put_with_a(0, "any", "0");
  harness_.wait_dispatched();
  EXPECT_EQ(bodies(sql_pop(0, "")), std::vector<std::string>{"any"});
}

}  // namespace
}  // namespace mqkit::broker
