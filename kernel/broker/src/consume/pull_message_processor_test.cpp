#include "mqkit/broker/consume/pull_message_processor.hpp"

#include <gtest/gtest.h>

#include "consume_test_support.hpp"
#include "mqkit/broker/testing/broker_harness.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
using testing::BrokerHarness;
using testing::FakeChannel;
using testing::TestMessage;

constexpr std::int32_t kSubscriptionOnly = pull_sys_flag::kSubscription;
constexpr std::int32_t kLongPoll = pull_sys_flag::kSubscription | pull_sys_flag::kSuspend;

class PullMessageProcessorTest : public testing::ProcessorTest<PullMessageProcessor> {
 protected:
  void SetUp() override { testing::create_topic(context(), "T", 4); }

  void put(std::int32_t queue_id, const std::string& body, const std::string& tags = "") {
    testing::append(context(), TestMessage{"T", queue_id, body, tags, "", ""});
  }

  RemotingCommand pull_request(std::int32_t queue_id, std::int64_t offset, std::int32_t sys_flag,
                               const std::string& subscription = "*", std::int32_t max = 32) {
    return testing::make_request(protocol::request_code::kPullMessage,
                                 {{"consumerGroup", "cg"},
                                  {"topic", "T"},
                                  {"queueId", std::to_string(queue_id)},
                                  {"queueOffset", std::to_string(offset)},
                                  {"maxMsgNums", std::to_string(max)},
                                  {"sysFlag", std::to_string(sys_flag)},
                                  {"commitOffset", "0"},
                                  {"suspendTimeoutMillis", "15000"},
                                  {"subscription", subscription},
                                  {"subVersion", "0"}});
  }

  // Starts a pull that may be parked; its answer, if any, shows up on channel_.
  void start_pull(RemotingCommand request) {
    Responder responder(channel_, request);
    processor_.process(std::move(request), responder);
  }

  // The bodies of a pull's records, in order.
  static std::vector<std::string> bodies(const RemotingCommand& response) {
    std::vector<std::string> out;
    for (const auto& record : testing::records_of(response)) out.push_back(testing::body_of(record));
    return out;
  }

  // Group cg's heartbeat, subscribing T with `subscription`.
  void register_by_heartbeat(protocol::SubscriptionData subscription) {
    protocol::ConsumerData consumer;
    consumer.group_name = "cg";
    consumer.message_model = "CLUSTERING";
    subscription.topic = "T";
    consumer.subscription_data_set.push_back(std::move(subscription));
    context().consumers->register_consumer(consumer, {channel_, "c1", plugin::v1::LanguageCode::kJava, 401, 0});
  }

};

TEST_F(PullMessageProcessorTest, FoundAnswersTheStoredRecordsAndQueueOffsets) {
  for (int i = 0; i < 3; ++i) put(0, "m" + std::to_string(i));
  harness_.wait_dispatched();

  const RemotingCommand all = call(pull_request(0, 0, kSubscriptionOnly));
  EXPECT_EQ(all.code, rc::kSuccess);
  EXPECT_EQ(all.remark, "FOUND");
  const auto records = testing::records_of(all);
  ASSERT_EQ(records.size(), 3u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(testing::body_of(records[i]), "m" + std::to_string(i));
    EXPECT_EQ(records[i].queue_offset, static_cast<std::int64_t>(i));
    EXPECT_EQ(records[i].topic, "T");
  }
  EXPECT_EQ(testing::ext_int(all, "nextBeginOffset"), 3);
  EXPECT_EQ(testing::ext_int(all, "minOffset"), 0);
  EXPECT_EQ(testing::ext_int(all, "maxOffset"), 3);
  EXPECT_EQ(testing::ext_int(all, "suggestWhichBrokerId"), 0);

  const RemotingCommand some = call(pull_request(0, 1, kSubscriptionOnly, "*", 1));
  ASSERT_EQ(testing::records_of(some).size(), 1u);
  EXPECT_EQ(testing::body_of(testing::records_of(some)[0]), "m1");
  EXPECT_EQ(testing::ext_int(some, "nextBeginOffset"), 2);
}

// Stock RocketMQ lite pull consumers send LITE_PULL_MESSAGE (361) with the lite pull sysFlag bit;
// it is answered exactly like PULL_MESSAGE.
TEST_F(PullMessageProcessorTest, LitePullMessageIsAnsweredLikePullMessage) {
  for (int i = 0; i < 3; ++i) put(1, "m" + std::to_string(i));
  harness_.wait_dispatched();

  RemotingCommand lite = pull_request(1, 1, kSubscriptionOnly | protocol::pull_sys_flag::kLitePull);
  lite.code = protocol::request_code::kLitePullMessage;
  const RemotingCommand answer = call(std::move(lite));
  EXPECT_EQ(answer.code, rc::kSuccess);
  const auto records = testing::records_of(answer);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].queue_offset, 1);
  EXPECT_EQ(testing::body_of(records[1]), "m2");
}

TEST_F(PullMessageProcessorTest, TransferIsCappedByTheBrokerLimit) {
  harness_.config().max_transfer_count = 2;
  for (int i = 0; i < 5; ++i) put(0, "m");
  harness_.wait_dispatched();
  const RemotingCommand response = call(pull_request(0, 0, kSubscriptionOnly));
  EXPECT_EQ(testing::records_of(response).size(), 2u);
  EXPECT_EQ(testing::ext_int(response, "nextBeginOffset"), 2);
}

TEST_F(PullMessageProcessorTest, TagFilterKeepsOnlySubscribedTags) {
  put(0, "a", "TagA");
  put(0, "c1", "TagC");
  put(0, "b", "TagB");
  put(0, "c2", "TagC");
  harness_.wait_dispatched();

  const RemotingCommand matched = call(pull_request(0, 0, kSubscriptionOnly, "TagA || TagB"));
  ASSERT_EQ(matched.code, rc::kSuccess);
  const auto records = testing::records_of(matched);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(testing::body_of(records[0]), "a");
  EXPECT_EQ(testing::body_of(records[1]), "b");

  // Nothing from offset 3 matches: the client is told to go on from past what was examined.
  const RemotingCommand skipped = call(pull_request(0, 3, kSubscriptionOnly, "TagA||TagB"));
  EXPECT_EQ(skipped.code, rc::kPullRetryImmediately);
  EXPECT_EQ(testing::ext_int(skipped, "nextBeginOffset"), 4);
  EXPECT_TRUE(skipped.body_slices.empty());
}

TEST_F(PullMessageProcessorTest, CaughtUpPullIsHeldUntilAMessageArrives) {
  put(0, "old");
  harness_.wait_dispatched();
  start_pull(pull_request(0, 1, kLongPoll));
  EXPECT_TRUE(channel_->sent().empty());
  EXPECT_EQ(context().long_polling->held(), 1u);

  put(0, "new");
  ASSERT_TRUE(channel_->wait_for(1));
  const RemotingCommand response = channel_->last();
  EXPECT_EQ(response.code, rc::kSuccess);
  const auto records = testing::records_of(response);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(testing::body_of(records[0]), "new");
  EXPECT_EQ(testing::ext_int(response, "nextBeginOffset"), 2);
  EXPECT_EQ(context().long_polling->held(), 0u);
}

TEST_F(PullMessageProcessorTest, HeldPullOnAnEmptyQueueIsWokenByTheFirstMessage) {
  start_pull(pull_request(2, 0, kLongPoll));
  EXPECT_TRUE(channel_->sent().empty());
  put(2, "first");
  ASSERT_TRUE(channel_->wait_for(1));
  EXPECT_EQ(channel_->last().code, rc::kSuccess);
  EXPECT_EQ(testing::records_of(channel_->last()).size(), 1u);
}

TEST_F(PullMessageProcessorTest, HeldPullIsAnsweredNotFoundAtItsDeadline) {
  start_pull(pull_request(0, 0, kLongPoll));
  EXPECT_TRUE(channel_->sent().empty());
  harness_.now() += 15'001;
  ASSERT_TRUE(channel_->wait_for(1));
  const RemotingCommand response = channel_->last();
  EXPECT_EQ(response.code, rc::kPullNotFound);
  EXPECT_EQ(testing::ext_int(response, "nextBeginOffset"), 0);
  EXPECT_EQ(channel_->sent().size(), 1u);
}

// RocketMQ takes any suspendTimeoutMillis: the largest holds the pull (a week at most) instead of
// "now + it" wrapping into the past and answering at once.
TEST_F(PullMessageProcessorTest, TheLargestSuspendTimeHoldsThePull) {
  auto request = pull_request(0, 0, kLongPoll);
  request.ext_fields.set("suspendTimeoutMillis", std::to_string(std::numeric_limits<std::int64_t>::max()));
  start_pull(std::move(request));
  harness_.now() += 1000;
  EXPECT_FALSE(channel_->wait_for(1, std::chrono::milliseconds(300))) << "answered " << channel_->last().code;
  EXPECT_EQ(context().long_polling->held(), 1u);
  put(0, "first");
  ASSERT_TRUE(channel_->wait_for(1));
  EXPECT_EQ(channel_->last().code, rc::kSuccess);
}

TEST_F(PullMessageProcessorTest, ShortPollingHoldsForTheConfiguredTimeOnly) {
  harness_.config().long_polling_enable = false;
  start_pull(pull_request(0, 0, kLongPoll));
  EXPECT_TRUE(channel_->sent().empty());
  harness_.now() += harness_.config().short_polling_time_ms + 1;  // far below the client's 15 s
  ASSERT_TRUE(channel_->wait_for(1));
  EXPECT_EQ(channel_->last().code, rc::kPullNotFound);
}

TEST_F(PullMessageProcessorTest, PullWithoutSuspendFlagIsAnsweredAtOnce) {
  const RemotingCommand response = call(pull_request(0, 0, kSubscriptionOnly));
  EXPECT_EQ(response.code, rc::kPullNotFound);
  EXPECT_EQ(context().long_polling->held(), 0u);
}

TEST_F(PullMessageProcessorTest, CommitOffsetRidesOnThePull) {
  put(0, "m");
  harness_.wait_dispatched();
  RemotingCommand request = pull_request(0, 0, kSubscriptionOnly | pull_sys_flag::kCommitOffset);
  request.ext_fields.set("commitOffset", std::int64_t{1});
  EXPECT_EQ(call(std::move(request)).code, rc::kSuccess);
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 1);

  RemotingCommand without_flag = pull_request(0, 0, kSubscriptionOnly);
  without_flag.ext_fields.set("commitOffset", std::int64_t{5});
  call(std::move(without_flag));
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 1);
}

TEST_F(PullMessageProcessorTest, OffsetsOutsideTheQueueAreMoved) {
  for (int i = 0; i < 3; ++i) put(0, "m");
  harness_.wait_dispatched();

  const RemotingCommand beyond = call(pull_request(0, 10, kLongPoll));
  EXPECT_EQ(beyond.code, rc::kPullOffsetMoved);
  EXPECT_EQ(beyond.remark, "OFFSET_OVERFLOW_BADLY");
  EXPECT_EQ(testing::ext_int(beyond, "maxOffset"), 3);

  // An empty queue: offset 0 waits for messages, any other offset must start over.
  const RemotingCommand empty_moved = call(pull_request(1, 5, kSubscriptionOnly));
  EXPECT_EQ(empty_moved.code, rc::kPullOffsetMoved);
  EXPECT_EQ(testing::ext_int(empty_moved, "nextBeginOffset"), 0);
  EXPECT_EQ(call(pull_request(1, 0, kSubscriptionOnly)).code, rc::kPullNotFound);
}

TEST_F(PullMessageProcessorTest, RefusesWhatCannotBePulled) {
  RemotingCommand unknown_topic = pull_request(0, 0, kSubscriptionOnly);
  unknown_topic.ext_fields.set("topic", std::string("Nope"));
  EXPECT_EQ(call(std::move(unknown_topic)).code, rc::kTopicNotExist);

  const RemotingCommand bad_queue = call(pull_request(9, 0, kSubscriptionOnly));
  EXPECT_EQ(bad_queue.code, rc::kSystemError);
  EXPECT_EQ(bad_queue.remark->rfind("queueId[9] is illegal, topic:[T] topicConfig.readQueueNums:[4]", 0), 0u)
      << *bad_queue.remark;

  auto group = context().groups->find_or_create("cg").value();
  group.consume_enable = false;
  ASSERT_TRUE(context().groups->update(group).is_ok());
  EXPECT_EQ(call(pull_request(0, 0, kSubscriptionOnly)).code, rc::kNoPermission);

  RemotingCommand incomplete = pull_request(0, 0, kSubscriptionOnly);
  incomplete.ext_fields = {};
  incomplete.ext_fields.set("consumerGroup", std::string("cg"));
  const RemotingCommand missing = call(std::move(incomplete));
  EXPECT_EQ(missing.code, rc::kSystemError);
  EXPECT_EQ(missing.remark, "the custom field <topic> is null");

  RemotingCommand sql = pull_request(0, 0, kSubscriptionOnly, "a > 1");
  sql.ext_fields.set("consumerGroup", std::string("cg2"));
  sql.ext_fields.set("expressionType", std::string("SQL92"));
  const RemotingCommand sql_response = call(std::move(sql));
  EXPECT_EQ(sql_response.code, rc::kSystemError);
  EXPECT_EQ(sql_response.remark, "The broker does not support consumer to filter message by SQL92");
}

// SQL92 subscriptions (enable_property_filter): the records the store returns are filtered by
// their properties.
class PullMessageProcessorSqlTest : public PullMessageProcessorTest {
 protected:
  void SetUp() override {
    PullMessageProcessorTest::SetUp();
    harness_.config().enable_property_filter = true;
  }

  void put_priced(std::int32_t queue_id, const std::string& body, const std::string& price) {
    testing::append(context(), TestMessage{"T", queue_id, body, "TagA", "", "", {{"price", price}}});
  }

  RemotingCommand sql_pull(std::int32_t queue_id, std::int64_t offset, const std::string& expression,
                           std::int32_t sys_flag = kSubscriptionOnly) {
    RemotingCommand request = pull_request(queue_id, offset, sys_flag, expression);
    request.ext_fields.set("expressionType", std::string("SQL92"));
    return request;
  }
};

TEST_F(PullMessageProcessorSqlTest, AnswersOnlyTheRecordsTheExpressionSelects) {
  put_priced(0, "cheap", "5");
  put_priced(0, "mid", "15");
  testing::append(context(), TestMessage{"T", 0, "unpriced", "TagA", "", ""});
  put_priced(0, "dear", "50");
  harness_.wait_dispatched();

  const RemotingCommand response = call(sql_pull(0, 0, "price >= 10 AND TAGS = 'TagA'"));
  ASSERT_EQ(response.code, rc::kSuccess);
  const auto records = testing::records_of(response);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(testing::body_of(records[0]), "mid");
  EXPECT_EQ(records[0].queue_offset, 1);
  EXPECT_EQ(testing::body_of(records[1]), "dear");
  EXPECT_EQ(records[1].queue_offset, 3);
  EXPECT_EQ(testing::ext_int(response, "nextBeginOffset"), 4);

  const RemotingCommand missing = call(sql_pull(0, 0, "price IS NULL"));
  ASSERT_EQ(missing.code, rc::kSuccess);
  ASSERT_EQ(testing::records_of(missing).size(), 1u);
  EXPECT_EQ(testing::body_of(testing::records_of(missing)[0]), "unpriced");
}

TEST_F(PullMessageProcessorSqlTest, NothingSelectedRetriesImmediatelyPastWhatWasRead) {
  put_priced(0, "a", "1");
  put_priced(0, "b", "2");
  harness_.wait_dispatched();
  const RemotingCommand response = call(sql_pull(0, 0, "price > 100", kLongPoll));
  EXPECT_EQ(response.code, rc::kPullRetryImmediately);
  EXPECT_EQ(response.remark, "NO_MATCHED_MESSAGE");
  EXPECT_EQ(testing::ext_int(response, "nextBeginOffset"), 2);
  EXPECT_TRUE(response.body_slices.empty());
  EXPECT_EQ(context().long_polling->held(), 0u);
}

TEST_F(PullMessageProcessorSqlTest, AnExpressionThatDoesNotParseIsRefusedWithTheParsersMessage) {
  put_priced(0, "a", "1");
  harness_.wait_dispatched();
  const RemotingCommand response = call(sql_pull(0, 0, "price > "));
  EXPECT_EQ(response.code, rc::kSubscriptionParseFailed);
  EXPECT_NE(response.remark->find("parse the consumer's subscription failed"), std::string::npos) << *response.remark;
  EXPECT_NE(response.remark->find("at column 9"), std::string::npos) << *response.remark;
}

TEST_F(PullMessageProcessorSqlTest, RefusedWhenThePropertyFilterIsOff) {
  harness_.config().enable_property_filter = false;
  const RemotingCommand response = call(sql_pull(0, 0, "price > 1"));
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, "The broker does not support consumer to filter message by SQL92");
}

TEST_F(PullMessageProcessorSqlTest, HeldPullIsFilteredWhenItWakes) {
  start_pull(sql_pull(1, 0, "price = 7", kLongPoll));
  EXPECT_TRUE(channel_->sent().empty());
  put_priced(1, "seven", "7");
  ASSERT_TRUE(channel_->wait_for(1));
  EXPECT_EQ(channel_->last().code, rc::kSuccess);
  ASSERT_EQ(testing::records_of(channel_->last()).size(), 1u);
  EXPECT_EQ(testing::body_of(testing::records_of(channel_->last())[0]), "seven");
}

TEST_F(PullMessageProcessorSqlTest, TheHeartbeatsSqlSubscriptionServesPullsWithoutOne) {
  put_priced(0, "a", "1");
  put_priced(0, "b", "2");
  harness_.wait_dispatched();
  protocol::SubscriptionData s;
  s.sub_string = "price = 2";
  s.expression_type = "SQL92";
  s.sub_version = 100;
  register_by_heartbeat(s);

  RemotingCommand request = pull_request(0, 0, 0);
  request.ext_fields.set("subVersion", std::int64_t{100});
  const RemotingCommand found = call(std::move(request));
  EXPECT_EQ(found.code, rc::kSuccess);
  EXPECT_EQ(bodies(found), std::vector<std::string>{"b"});
}

// Retry topics are pulled with a TAG subscription ("*"), also by SQL92 consumers.
TEST_F(PullMessageProcessorSqlTest, TagPullsAreUnchanged) {
  put_priced(0, "a", "1");
  testing::append(context(), TestMessage{"T", 0, "b", "TagB", "", ""});
  harness_.wait_dispatched();
  const RemotingCommand response = call(pull_request(0, 0, kSubscriptionOnly, "TagB"));
  ASSERT_EQ(response.code, rc::kSuccess);
  ASSERT_EQ(testing::records_of(response).size(), 1u);
  EXPECT_EQ(testing::body_of(testing::records_of(response)[0]), "b");
}

TEST(PullMessageProcessorGroupTest, UnknownGroupWithoutAutoCreation) {
  BrokerHarness harness("auto_create_subscription_group = false");
  testing::create_topic(harness.context(), "T", 1);
  PullMessageProcessor processor(harness.context());
  auto request = testing::make_request(protocol::request_code::kPullMessage,
                                       {{"consumerGroup", "cg"}, {"topic", "T"}, {"queueId", "0"},
                                        {"queueOffset", "0"}, {"maxMsgNums", "32"}, {"sysFlag", "4"}});
  const RemotingCommand response = testing::call(processor, std::make_shared<FakeChannel>(), std::move(request));
  EXPECT_EQ(response.code, rc::kSubscriptionGroupNotExist);
}

TEST_F(PullMessageProcessorTest, WithoutSubscriptionFlagTheHeartbeatSubscriptionIsUsed) {
  put(0, "a", "TagA");
  put(0, "b", "TagB");
  harness_.wait_dispatched();
  RemotingCommand before_heartbeat = pull_request(0, 0, 0);
  EXPECT_EQ(call(std::move(before_heartbeat)).code, rc::kSubscriptionNotExist);

  protocol::SubscriptionData s;
  s.sub_string = "TagB";
  s.code_set = {plugin::v1::java_string_hash("TagB")};
  s.sub_version = 100;
  register_by_heartbeat(s);

  RemotingCommand newer = pull_request(0, 0, 0);
  newer.ext_fields.set("subVersion", std::int64_t{200});
  EXPECT_EQ(call(std::move(newer)).code, rc::kSubscriptionNotLatest);

  RemotingCommand current = pull_request(0, 0, 0);
  current.ext_fields.set("subVersion", std::int64_t{100});
  const RemotingCommand found = call(std::move(current));
  EXPECT_EQ(found.code, rc::kSuccess);
  EXPECT_EQ(bodies(found), std::vector<std::string>{"b"});
}

// slave_read_enable: suggestWhichBrokerId tells a consumer reading data far behind the commit
// log's end to go to the group's which_broker_when_consume_slowly. "Far" is a share of physical
// memory, made small here: the threshold sits exactly at how far record 1 is behind the log end.
class PullMessageProcessorSlaveReadTest : public PullMessageProcessorTest {
 protected:
  void SetUp() override {
    PullMessageProcessorTest::SetUp();
    for (int i = 0; i < 3; ++i) put(0, "m" + std::to_string(i));
    harness_.wait_dispatched();
    const auto records = testing::records_of(call(pull_request(0, 0, kSubscriptionOnly)));
    ASSERT_EQ(records.size(), 3u);
    const std::int64_t log_end = context().store->stats().commit_log_max_offset;
    harness_.config().slave_read_enable = true;
    harness_.config().access_message_in_memory_max_ratio = 50;
    context().physical_memory_bytes = 2 * (log_end - records[1].commit_offset);
  }

  // suggestWhichBrokerId of a pull of `max` records of queue 0 from `offset`.
  std::int64_t suggested(std::int64_t offset, std::int32_t max = 1) {
    return testing::ext_int(call(pull_request(0, offset, kSubscriptionOnly, "*", max)), "suggestWhichBrokerId");
  }

  void update_group(std::int64_t broker_id, std::int64_t when_slow) {
    auto group = context().groups->find_or_create("cg").value();
    group.broker_id = broker_id;
    group.which_broker_when_consume_slowly = when_slow;
    ASSERT_TRUE(context().groups->update(group).is_ok());
  }
};

TEST_F(PullMessageProcessorSlaveReadTest, BeyondTheRatioOfMemoryTheSlowBrokerIsSuggested) {
  EXPECT_EQ(suggested(0), 1) << "record 0 lies beyond the threshold";
  EXPECT_EQ(suggested(1), 0) << "record 1 lies exactly at it: not slow";
  EXPECT_EQ(suggested(2), 0);
  // Measured from the last record returned, as RocketMQ measures from the last entry it read.
  EXPECT_EQ(suggested(0, 3), 0);

  update_group(2, 3);
  EXPECT_EQ(suggested(0), 3);
  EXPECT_EQ(suggested(1), 2) << "not slow: the group's broker_id";
}

TEST_F(PullMessageProcessorSlaveReadTest, NothingReadIsNotSlow) {
  update_group(2, 3);
  context().physical_memory_bytes = 0;
  EXPECT_EQ(suggested(0), 3) << "no memory at all: every record read is slow";
  const RemotingCommand caught_up = call(pull_request(0, 3, kSubscriptionOnly));
  EXPECT_EQ(caught_up.code, rc::kPullNotFound);
  EXPECT_EQ(testing::ext_int(caught_up, "suggestWhichBrokerId"), 2);
}

TEST_F(PullMessageProcessorSlaveReadTest, RatioBoundsAreNeverAndAlways) {
  harness_.config().access_message_in_memory_max_ratio = 0;
  EXPECT_EQ(suggested(2), 1) << "every record is some bytes behind the log end";
  harness_.config().access_message_in_memory_max_ratio = 100;
  EXPECT_EQ(suggested(0), 0);
}

TEST_F(PullMessageProcessorSlaveReadTest, WithoutSlaveReadTheMasterIsAlwaysSuggested) {
  update_group(2, 3);
  harness_.config().slave_read_enable = false;
  EXPECT_EQ(suggested(0), 0);
  EXPECT_EQ(suggested(1), 0);
}

// A slave with slave_read_enable off still serves pulls (RocketMQ's PULL_RETRY_IMMEDIATELY there
// is overwritten by the store status), so consumers read it while its master is down.
TEST_F(PullMessageProcessorSlaveReadTest, ASlaveWithoutSlaveReadServesAndSuggestsTheMaster) {
  harness_.config().broker_id = 1;
  harness_.config().slave_read_enable = false;
  RemotingCommand request = pull_request(0, 0, kSubscriptionOnly | pull_sys_flag::kCommitOffset);
  request.ext_fields.set("commitOffset", std::int64_t{2});
  const RemotingCommand response = call(std::move(request));
  EXPECT_EQ(response.code, rc::kSuccess);
  EXPECT_EQ(bodies(response), (std::vector<std::string>{"m0", "m1", "m2"}));
  EXPECT_EQ(testing::ext_int(response, "suggestWhichBrokerId"), 0);
  EXPECT_FALSE(context().offsets->query("cg", "T", 0).has_value()) << "a slave stores no offsets";
}

// A slave may simply not have replicated that far: it never moves the consumer's offset but
// sends it to the group's broker_id at the same offset.
TEST_F(PullMessageProcessorSlaveReadTest, ASlaveSendsOffsetsItCannotServeToTheGroupsBroker) {
  harness_.config().broker_id = 1;
  update_group(0, 1);
  const RemotingCommand beyond = call(pull_request(0, 10, kSubscriptionOnly));
  EXPECT_EQ(beyond.code, rc::kPullRetryImmediately);
  EXPECT_EQ(beyond.remark, "OFFSET_OVERFLOW_BADLY");
  EXPECT_EQ(testing::ext_int(beyond, "nextBeginOffset"), 10);
  EXPECT_EQ(testing::ext_int(beyond, "suggestWhichBrokerId"), 0);

  const RemotingCommand empty_queue = call(pull_request(1, 5, kSubscriptionOnly));
  EXPECT_EQ(empty_queue.code, rc::kPullRetryImmediately);
  EXPECT_EQ(testing::ext_int(empty_queue, "nextBeginOffset"), 5);
}

}  // namespace
}  // namespace mqkit::broker
