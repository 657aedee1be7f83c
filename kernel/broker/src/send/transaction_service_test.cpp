#include "mqkit/broker/send/transaction_service.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace tx = protocol::transaction;
using testing::eventually;
using testing::FakeChannel;
using testing::SendFixture;
using testing::SendRequest;
using testing::StoredRecord;

constexpr const char* kGroup = "PG";

// One half message as its producer knows it from the send response.
struct Half {
  std::string unique_key;
  std::int64_t queue_offset = 0;
  std::int64_t commit_offset = 0;
};

// A broker whose half messages are due for a check after 1 s and are checked twice at most. The
// harness clock is moved on by the tests; store timestamps stay real.
class TransactionTest : public ::testing::Test {
 protected:
  explicit TransactionTest(const std::string& broker_toml = "transaction_time_out = \"1s\"\ntransaction_check_max = 2")
      : f_(broker_toml) {}

  // Sends a transactional message (TRAN_MSG, PGROUP, sysFlag PREPARED) to T queue 2.
  Half send_half(const std::string& unique_key = "AC11000100002A9F0000000000000001",
                 v1::Properties extra = {}) {
    SendRequest request;
    request.queue_id = 2;
    request.body = "order-" + unique_key;
    request.sys_flag = v1::sys_flag::kTransactionPrepared;
    request.born_timestamp = f_.harness().now();
    request.properties = {{"TAGS", "TagA"}, {"UNIQ_KEY", unique_key}, {"TRAN_MSG", "true"}, {"PGROUP", kGroup}};
    for (auto& property : extra) request.properties.push_back(std::move(property));
    const auto response = f_.send(request);
    EXPECT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
    Half half{unique_key, response.ext_fields.get_int("queueOffset").value_or(-1), -1};
    auto id = v1::parse_offset_message_id(response.ext_fields.get("msgId").value_or(""));
    EXPECT_TRUE(id.is_ok());
    if (id) half.commit_offset = id->commit_offset;
    EXPECT_EQ(response.ext_fields.get("transactionId"), unique_key);
    return half;
  }

  v1::RemotingCommand end_request(const Half& half, tx::Resolution resolution, const std::string& group = kGroup) {
    auto request = v1::RemotingCommand::request(protocol::request_code::kEndTransaction);
    tx::write(tx::EndTransactionHeader{group, half.queue_offset, half.commit_offset, resolution, false, half.unique_key,
                                       half.unique_key},
              request.ext_fields);
    return request;
  }
  v1::RemotingCommand end(const Half& half, tx::Resolution resolution, const std::string& group = kGroup) {
    return f_.call(end_request(half, resolution, group));
  }

  // Messages in a queue (its max offset once everything appended is dispatched).
  std::int64_t count(std::string_view topic, std::int32_t queue_id) {
    f_.harness().wait_dispatched();
    return f_.context().store->max_offset(topic, queue_id);
  }
  std::string op_body(std::int64_t offset) {
    auto op = f_.read(std::string(tx::kOpTopic), 0, offset);
    return op ? op->body() : "<none>";
  }

  // A producer of kGroup connected on its own channel, which receives the checks.
  std::shared_ptr<FakeChannel> connect_producer() {
    auto channel = std::make_shared<FakeChannel>(7, "127.0.0.1:50007");
    ClientConnection connection;
    connection.channel = channel;
    connection.client_id = "producer-1";
    connection.last_update_ms = f_.harness().now();
    f_.context().producers->register_producer(kGroup, connection);
    return channel;
  }
  // One check pass, one interval after the last (everything appended so far is readable).
  CheckPassReport pass_after(std::int64_t ms) {
    f_.harness().now() += ms;
    f_.harness().wait_dispatched();
    return f_.transactions().check_once();
  }

  SendFixture f_;
};

TEST_F(TransactionTest, HalfMessageWaitsInTheHalfTopicWithItsRealTopicAndQueue) {
  const Half half = send_half();
  EXPECT_EQ(half.queue_offset, 0);
  auto stored = f_.read("RMQ_SYS_TRANS_HALF_TOPIC", 0, 0);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->view.commit_offset, half.commit_offset);
  EXPECT_EQ(stored->property("REAL_TOPIC"), "T");
  EXPECT_EQ(stored->property("REAL_QID"), "2");
  EXPECT_EQ(stored->property("__transactionId__"), half.unique_key);
  EXPECT_EQ(stored->property("PGROUP"), kGroup);
  EXPECT_EQ(stored->view.sys_flag & v1::sys_flag::kTransactionMask, 0);
  EXPECT_EQ(count("T", 2), 0);  // invisible to consumers until committed
}

TEST_F(TransactionTest, CommitStoresTheMessageInItsRealQueueAndAnOpRecord) {
  const Half half = send_half();
  ASSERT_EQ(end(half, tx::Resolution::kCommit).code, rc::kSuccess);
  auto committed = f_.read("T", 2, 0);
  ASSERT_TRUE(committed);
  EXPECT_EQ(committed->body(), "order-" + half.unique_key);
  EXPECT_EQ(committed->view.sys_flag & v1::sys_flag::kTransactionMask, v1::sys_flag::kTransactionCommit);
  EXPECT_EQ(committed->view.prepared_transaction_offset, half.commit_offset);
  EXPECT_EQ(committed->property("TRAN_PREPARED_QUEUE_OFFSET"), "0");
  EXPECT_EQ(committed->property("TAGS"), "TagA");
  EXPECT_EQ(committed->property("UNIQ_KEY"), half.unique_key);
  EXPECT_FALSE(committed->property("REAL_TOPIC"));
  EXPECT_FALSE(committed->property("REAL_QID"));
  EXPECT_FALSE(committed->property("TRAN_MSG"));
  auto op = f_.read("RMQ_SYS_TRANS_OP_HALF_TOPIC", 0, 0);
  ASSERT_TRUE(op);
  EXPECT_EQ(op->body(), "0");
  EXPECT_EQ(op->property("TAGS"), "d");
}

TEST_F(TransactionTest, RollbackWritesOnlyTheOpRecordAndUnknownNothing) {
  const Half rolled_back = send_half("AC11000100002A9F0000000000000001");
  const Half unknown = send_half("AC11000100002A9F0000000000000002");
  EXPECT_EQ(end(unknown, tx::Resolution::kUnknown).code, rc::kSuccess);
  EXPECT_EQ(count(tx::kOpTopic, 0), 0);
  ASSERT_EQ(end(rolled_back, tx::Resolution::kRollback).code, rc::kSuccess);
  EXPECT_EQ(count("T", 2), 0);
  EXPECT_EQ(count(tx::kOpTopic, 0), 1);
  EXPECT_EQ(op_body(0), "0");
  // The unknown one can still be committed.
  ASSERT_EQ(end(unknown, tx::Resolution::kCommit).code, rc::kSuccess);
  EXPECT_EQ(count("T", 2), 1);
  EXPECT_EQ(op_body(1), "1");
}

TEST_F(TransactionTest, EndsAreCountedByRealTopicWithTheCommitLatency) {
  auto metrics = std::make_shared<BrokerMetrics>();
  f_.context().metrics = metrics;
  const Half committed = send_half("AC11000100002A9F0000000000000001");
  const Half rolled_back = send_half("AC11000100002A9F0000000000000002");
  f_.harness().now() += 70'000;
  ASSERT_EQ(end(committed, tx::Resolution::kCommit).code, rc::kSuccess);
  ASSERT_EQ(end(rolled_back, tx::Resolution::kRollback).code, rc::kSuccess);
  EXPECT_NE(end(committed, tx::Resolution::kCommit).code, rc::kSuccess);  // already ended: not counted again
  metrics::ExpositionWriter out;
  metrics->write(out);
  const std::string page = out.take();
  EXPECT_NE(page.find("rocketmq_commit_messages_total{topic=\"T\"} 1\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_rollback_messages_total{topic=\"T\"} 1\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_finish_message_latency_bucket{topic=\"T\",le=\"60\"} 0\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_finish_message_latency_bucket{topic=\"T\",le=\"600\"} 1\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_finish_message_latency_sum{topic=\"T\"} 70\n"), std::string::npos) << page;
}

TEST_F(TransactionTest, RepeatedEndDeliversOnce) {
  const Half half = send_half();
  ASSERT_EQ(end(half, tx::Resolution::kCommit).code, rc::kSuccess);
  for (const auto resolution : {tx::Resolution::kCommit, tx::Resolution::kRollback}) {
    const auto again = end(half, resolution);
    EXPECT_EQ(again.code, rc::kSystemError);
    EXPECT_NE(again.remark.value_or("").find("has already been committed or rolled back"), std::string::npos)
        << again.remark.value_or("");
  }
  EXPECT_EQ(count("T", 2), 1);
  EXPECT_EQ(count(tx::kOpTopic, 0), 1);
}

TEST_F(TransactionTest, EndOfSomethingElseIsRefusedWithTheReason) {
  const Half half = send_half();
  const auto remark = [](const v1::RemotingCommand& response) { return response.remark.value_or(""); };

  auto wrong_group = end(half, tx::Resolution::kCommit, "OtherGroup");
  EXPECT_EQ(wrong_group.code, rc::kSystemError);
  EXPECT_NE(remark(wrong_group).find("The producer group wrong"), std::string::npos) << remark(wrong_group);

  Half wrong_queue_offset = half;
  wrong_queue_offset.queue_offset = 5;
  auto wrong_offset = end(wrong_queue_offset, tx::Resolution::kCommit);
  EXPECT_NE(remark(wrong_offset).find("has queue offset 0, not 5"), std::string::npos) << remark(wrong_offset);

  Half nowhere = half;
  nowhere.commit_offset = half.commit_offset + 3;  // inside the record, not at its start
  auto bad_offset = end(nowhere, tx::Resolution::kCommit);
  EXPECT_EQ(bad_offset.code, rc::kSystemError);
  EXPECT_NE(remark(bad_offset).find("Find prepared transaction message failed"), std::string::npos)
      << remark(bad_offset);
  for (const std::int64_t outside : {std::int64_t{-1}, std::int64_t{1} << 40}) {
    nowhere.commit_offset = outside;
    EXPECT_NE(remark(end(nowhere, tx::Resolution::kRollback)).find("Find prepared transaction message failed"),
              std::string::npos);
  }

  SendRequest plain;
  const auto sent = f_.send(plain);
  Half not_half{"x", 0, v1::parse_offset_message_id(sent.ext_fields.get("msgId").value_or("")).value().commit_offset};
  auto not_a_half = end(not_half, tx::Resolution::kCommit);
  EXPECT_NE(remark(not_a_half).find("is not a half message (topic T)"), std::string::npos) << remark(not_a_half);

  auto unknown_value = end(half, static_cast<tx::Resolution>(4));
  EXPECT_NE(remark(unknown_value).find("commitOrRollback 4 is none of"), std::string::npos) << remark(unknown_value);

  auto missing = end_request(half, tx::Resolution::kCommit);
  missing = testing::without_field(std::move(missing), "commitLogOffset");
  EXPECT_EQ(remark(f_.call(std::move(missing))), "the custom field <commitLogOffset> is null");

  EXPECT_EQ(count("T", 2), 0);
  EXPECT_EQ(count(tx::kOpTopic, 0), 0);
  // Refusals did not end the transaction.
  EXPECT_EQ(end(half, tx::Resolution::kCommit).code, rc::kSuccess);
}

TEST_F(TransactionTest, OneWayEndIsNotAnswered) {
  const Half half = send_half();
  auto request = end_request(half, tx::Resolution::kCommit);
  request.flag = v1::RemotingCommand::kOnewayFlag;
  f_.call(std::move(request));
  EXPECT_EQ(count("T", 2), 1);
  auto refused = end_request(half, tx::Resolution::kCommit, "OtherGroup");
  refused.flag = v1::RemotingCommand::kOnewayFlag;
  f_.call(std::move(refused));  // logged, not answered
}

TEST_F(TransactionTest, CommittedMessageWithDelayIsDelayed) {
  const Half half = send_half("AC11000100002A9F0000000000000001", {{"DELAY", "2"}});
  EXPECT_EQ(count("SCHEDULE_TOPIC_XXXX", 1), 0);  // the half message itself is not delayed
  ASSERT_EQ(end(half, tx::Resolution::kCommit).code, rc::kSuccess);
  EXPECT_EQ(count("T", 2), 0);
  auto parked = f_.read("SCHEDULE_TOPIC_XXXX", 1, 0);
  ASSERT_TRUE(parked);
  EXPECT_EQ(parked->property("REAL_TOPIC"), "T");
  EXPECT_EQ(parked->property("REAL_QID"), "2");
  EXPECT_EQ(parked->view.sys_flag & v1::sys_flag::kTransactionMask, v1::sys_flag::kTransactionCommit);
}

// As in RocketMQ, a half message keeps its delivery time until the commit, which holds it in the
// timer topic (a relative delay counts from the commit).
TEST_F(TransactionTest, CommittedMessageWithADeliveryTimeWaitsInTheTimerTopic) {
  const Half half = send_half("AC11000100002A9F0000000000000001", {{"TIMER_DELAY_SEC", "30"}});
  EXPECT_EQ(count("rmq_sys_wheel_timer", 0), 0);  // the half message itself is not held
  f_.harness().now() += 10'000;
  ASSERT_EQ(end(half, tx::Resolution::kCommit).code, rc::kSuccess);
  EXPECT_EQ(count("T", 2), 0);
  auto held = f_.read("rmq_sys_wheel_timer", 0, 0);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->property("REAL_TOPIC"), "T");
  EXPECT_EQ(held->property("REAL_QID"), "2");
  const std::int64_t due = f_.harness().now() + 30'000;
  EXPECT_EQ(held->property("TIMER_OUT_MS"), std::to_string(due % 1000 == 0 ? due - 1000 : due / 1000 * 1000));
}

TEST_F(TransactionTest, CommitOfADeliveryTimeBeyondTheMaximumIsRefused) {
  const Half half = send_half("AC11000100002A9F0000000000000001", {{"TIMER_DELAY_SEC", "999999999"}});
  const auto answer = end(half, tx::Resolution::kCommit);
  EXPECT_EQ(answer.code, rc::kSystemError);
  EXPECT_NE(answer.remark.value_or("").find("timer message illegal"), std::string::npos) << answer.remark.value_or("");
  EXPECT_EQ(count("T", 2), 0);
  EXPECT_EQ(count("rmq_sys_wheel_timer", 0), 0);
}

TEST_F(TransactionTest, BatchesCannotBeTransactional) {
  SendRequest batch;
  batch.code = protocol::request_code::kSendBatchMessage;
  batch.sys_flag = v1::sys_flag::kTransactionPrepared;
  const v1::Properties member{{"UNIQ_KEY", "K1"}};
  batch.body = v1::encode_properties({});  // replaced below
  std::string body;
  const std::string encoded = v1::encode_properties(member);
  const std::string payload = "hello";
  const auto put32 = [&](std::int32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) body.push_back(static_cast<char>((v >> shift) & 0xFF));
  };
  put32(static_cast<std::int32_t>(4 + 4 + 4 + 4 + 4 + payload.size() + 2 + encoded.size()));
  put32(0);
  put32(0);
  put32(0);
  put32(static_cast<std::int32_t>(payload.size()));
  body += payload;
  body.push_back(static_cast<char>(encoded.size() >> 8));
  body.push_back(static_cast<char>(encoded.size() & 0xFF));
  body += encoded;
  batch.body = body;
  auto response = f_.send(batch);
  EXPECT_EQ(response.code, rc::kMessageIllegal);
  EXPECT_EQ(response.remark, "batch messages cannot be transactional (sysFlag is PREPARED)");

  batch.sys_flag = 0;
  batch.properties.emplace_back("TRAN_MSG", "true");
  response = f_.send(batch);
  EXPECT_EQ(response.code, rc::kMessageIllegal);
  EXPECT_EQ(response.remark, "batch messages cannot be transactional (TRAN_MSG is set)");
  EXPECT_EQ(f_.context().store->stats().commit_log_max_offset, 0);
}

TEST_F(TransactionTest, UnansweredHalfIsCheckedOncePerPassThenMovedAside) {
  auto producer = connect_producer();
  const Half half = send_half();

  // Younger than transaction_time_out: nothing to ask yet.
  CheckPassReport report = pass_after(0);
  EXPECT_EQ(report.checks_sent, 0);
  EXPECT_EQ(report.half_offset, 0);
  EXPECT_TRUE(producer->sent().empty());

  report = pass_after(2'000);
  EXPECT_EQ(report.checks_sent, 1);
  EXPECT_EQ(report.half_offset, 1);
  ASSERT_EQ(producer->sent().size(), 1u);
  const v1::RemotingCommand check = producer->sent()[0];
  EXPECT_EQ(check.code, protocol::request_code::kCheckTransactionState);
  EXPECT_TRUE(check.is_oneway());
  // The producer is asked about the copy appended for this check.
  auto copy = f_.read(std::string(tx::kHalfTopic), 0, 1);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->property("TRANSACTION_CHECK_TIMES"), "1");
  EXPECT_EQ(copy->property("TRAN_PREPARED_QUEUE_OFFSET"), "0");
  EXPECT_EQ(check.ext_fields.get_int("tranStateTableOffset").value_or(-1), 1);
  EXPECT_EQ(check.ext_fields.get_int("commitLogOffset").value_or(-1), copy->view.commit_offset);
  EXPECT_EQ(check.ext_fields.get("msgId"), half.unique_key);
  EXPECT_EQ(check.ext_fields.get("transactionId"), half.unique_key);
  EXPECT_EQ(check.ext_fields.get("offsetMsgId"),
            v1::make_offset_message_id(copy->view.store_host, copy->view.commit_offset));
  // The body is the half message as a stored record, with its real topic and queue.
  auto body = v1::decode_record(check.body, v1::CrcCheck::kVerify);
  ASSERT_TRUE(body.is_ok()) << body.status().to_string();
  EXPECT_EQ(body->topic, "T");
  EXPECT_EQ(body->queue_id, 2);
  EXPECT_EQ(body->queue_offset, 1);
  EXPECT_EQ(body->commit_offset, copy->view.commit_offset);
  EXPECT_EQ(std::string(body->body.begin(), body->body.end()), "order-" + half.unique_key);
  EXPECT_EQ(v1::find_property(body->properties, "PGROUP"), kGroup);
  EXPECT_EQ(f_.context().offsets->query("CID_RMQ_SYS_TRANS", std::string(tx::kHalfTopic), 0), 1);

  // The next interval asks once more, about the newest copy only.
  report = pass_after(60'000);
  EXPECT_EQ(report.checks_sent, 1);
  ASSERT_EQ(producer->sent().size(), 2u);
  EXPECT_EQ(producer->sent()[1].ext_fields.get_int("tranStateTableOffset").value_or(-1), 2);
  EXPECT_EQ(f_.read(std::string(tx::kHalfTopic), 0, 2)->property("TRANSACTION_CHECK_TIMES"), "2");

  // transaction_check_max (2) checks without an answer: set aside, never asked about again.
  report = pass_after(60'000);
  EXPECT_EQ(report.checks_sent, 0);
  EXPECT_EQ(report.moved_to_check_max, 1);
  auto aside = f_.read(std::string(tx::kCheckMaxTimeTopic), 0, 0);
  ASSERT_TRUE(aside);
  EXPECT_EQ(aside->property("REAL_TOPIC"), "T");
  EXPECT_EQ(aside->body(), "order-" + half.unique_key);
  report = pass_after(60'000);
  EXPECT_EQ(report.checks_sent + report.moved_to_check_max, 0);
  EXPECT_EQ(producer->sent().size(), 2u);
  EXPECT_EQ(count("T", 2), 0);
}

TEST_F(TransactionTest, AnsweredCheckEndsEveryCopyOfTheTransaction) {
  auto producer = connect_producer();
  const Half first = send_half();
  ASSERT_EQ(pass_after(2'000).checks_sent, 1);
  const Half copy{first.unique_key, 1, producer->last().ext_fields.get_int("commitLogOffset").value()};

  // The producer answers the check (commit) and, late, its own first END (commit too).
  auto answer = end_request(copy, tx::Resolution::kCommit);
  answer.ext_fields.set("fromTransactionCheck", true);
  ASSERT_EQ(f_.call(std::move(answer)).code, rc::kSuccess);
  EXPECT_EQ(op_body(0), "1,0");  // the copy, and the first half message of its transaction
  EXPECT_EQ(end(first, tx::Resolution::kCommit).code, rc::kSystemError);
  EXPECT_EQ(count("T", 2), 1);

  const CheckPassReport report = pass_after(60'000);
  EXPECT_EQ(report.checks_sent, 0);
  EXPECT_EQ(report.half_offset, 2);
  EXPECT_EQ(report.op_offset, 1);  // every half message the op record names is passed
  EXPECT_EQ(producer->sent().size(), 1u);
}

TEST_F(TransactionTest, EndRacingAheadOfACheckEndsTheCopyToo) {
  auto producer = connect_producer();
  const Half first = send_half();
  ASSERT_EQ(pass_after(2'000).checks_sent, 1);
  // The producer's own END for the first half message arrives after the copy was made.
  ASSERT_EQ(end(first, tx::Resolution::kRollback).code, rc::kSuccess);
  EXPECT_EQ(op_body(0), "0");
  const CheckPassReport report = pass_after(60'000);
  EXPECT_EQ(report.checks_sent, 0);
  EXPECT_EQ(report.already_ended, 1);
  EXPECT_EQ(producer->sent().size(), 1u);
}

TEST_F(TransactionTest, ImmuneHalfMessageWaitsItsOwnTimeWithoutHoldingOthers) {
  auto producer = connect_producer();
  send_half("AC11000100002A9F0000000000000001", {{"CHECK_IMMUNITY_TIME_IN_SECONDS", "3600"}});
  send_half("AC11000100002A9F0000000000000002");
  const CheckPassReport report = pass_after(2'000);
  EXPECT_EQ(report.checks_sent, 1);  // the second; the first went to the back of the queue
  ASSERT_EQ(producer->sent().size(), 1u);
  EXPECT_EQ(producer->last().ext_fields.get("msgId"), "AC11000100002A9F0000000000000002");
  auto requeued = f_.read(std::string(tx::kHalfTopic), 0, 2);
  ASSERT_TRUE(requeued);
  EXPECT_EQ(requeued->property("UNIQ_KEY"), "AC11000100002A9F0000000000000001");
  EXPECT_FALSE(requeued->property("TRANSACTION_CHECK_TIMES"));
}

TEST_F(TransactionTest, ProducersCannotSetTheCheckBookkeeping) {
  auto producer = connect_producer();
  send_half("AC11000100002A9F0000000000000001",
            {{"CHECK_IMMUNITY_TIME_IN_SECONDS", "9223372036854775807"}, {"TRANSACTION_CHECK_TIMES", "99"}});
  send_half("AC11000100002A9F0000000000000002", {{"TRAN_PREPARED_QUEUE_OFFSET", "0"}});
  for (const std::int64_t offset : {0, 1}) {
    auto stored = f_.read(std::string(tx::kHalfTopic), 0, offset);
    ASSERT_TRUE(stored);
    EXPECT_FALSE(stored->property("TRANSACTION_CHECK_TIMES"));
    EXPECT_FALSE(stored->property("TRAN_PREPARED_QUEUE_OFFSET"));
  }
  const CheckPassReport report = pass_after(2'000);
  EXPECT_EQ(report.checks_sent, 1);  // the second; the first is immune for ages and requeued
  ASSERT_EQ(producer->sent().size(), 1u);
  EXPECT_EQ(producer->last().ext_fields.get("msgId"), "AC11000100002A9F0000000000000002");
  // The second's copy names its own queue offset as its origin.
  EXPECT_EQ(f_.read(std::string(tx::kHalfTopic), 0, 3)->property("TRAN_PREPARED_QUEUE_OFFSET"), "1");
}

TEST_F(TransactionTest, CheckWithoutALiveProducerStillCountsAndMovesOn) {
  send_half();
  const CheckPassReport report = pass_after(2'000);
  EXPECT_EQ(report.checks_sent, 1);  // appended again with its count; nobody to ask (logged)
  EXPECT_EQ(report.half_offset, 1);
}

TEST_F(TransactionTest, RestartResumesFromThePersistedOffsetsAndRemembersEnds) {
  auto producer = connect_producer();
  const Half first = send_half("AC11000100002A9F0000000000000001");
  const Half second = send_half("AC11000100002A9F0000000000000002");
  ASSERT_EQ(end(second, tx::Resolution::kCommit).code, rc::kSuccess);
  ASSERT_EQ(pass_after(2'000).checks_sent, 1);  // the first; the second is ended
  ASSERT_TRUE(f_.context().offsets->persist().is_ok());

  // The broker restarts: offsets come back from consumerOffset.json, the service reloads.
  f_.transactions().stop();
  ConsumerOffsetManager reloaded(f_.harness().files());
  ASSERT_TRUE(reloaded.load().is_ok());
  EXPECT_EQ(reloaded.query("CID_RMQ_SYS_TRANS", std::string(tx::kHalfTopic), 0), 2);
  f_.context().offsets = &reloaded;
  TransactionService restarted(f_.context());
  restarted.start(false);
  f_.context().transactions = &restarted;

  // The first transaction's copy (offset 2) is next; nothing before it is asked about again.
  f_.harness().now() += 60'000;
  f_.harness().wait_dispatched();
  CheckPassReport report = restarted.check_once();
  EXPECT_EQ(report.checks_sent, 1);
  EXPECT_EQ(producer->last().ext_fields.get_int("tranStateTableOffset").value_or(-1), 3);
  // Ends made before the restart are still known.
  EXPECT_EQ(end(second, tx::Resolution::kCommit).code, rc::kSystemError);
  EXPECT_EQ(count("T", 2), 1);
  restarted.stop();
  f_.context().transactions = &f_.transactions();
}

using SlaveTransactionTest = TransactionTest;

TEST_F(SlaveTransactionTest, SlaveNeitherEndsNorChecks) {
  auto producer = connect_producer();
  const Half half = send_half();
  // A slave takes no sends: the half message stands for one replicated from its master.
  f_.harness().config().broker_role = BrokerRole::kSlave;
  f_.harness().config().broker_id = 1;
  const auto refused = end(half, tx::Resolution::kCommit);
  EXPECT_EQ(refused.code, rc::kSlaveNotAvailable);
  const CheckPassReport report = pass_after(60'000);
  EXPECT_EQ(report.checks_sent, 0);
  EXPECT_TRUE(producer->sent().empty());
  EXPECT_EQ(count(tx::kHalfTopic, 0), 1);  // nothing appended again
  EXPECT_EQ(count("T", 2), 0);
}

class TransactionCheckThreadTest : public TransactionTest {
 protected:
  TransactionCheckThreadTest() : TransactionTest("transaction_time_out = 0\ntransaction_check_interval = \"20ms\"") {}
};

TEST_F(TransactionCheckThreadTest, ChecksRunEveryInterval) {
  auto producer = connect_producer();
  f_.transactions().stop();
  send_half();
  f_.harness().now() += 1'000;
  TransactionService service(f_.context());
  service.start();
  EXPECT_TRUE(producer->wait_for(1)) << "no check within 5 s";
  service.stop();
}

}  // namespace
}  // namespace mqkit::broker
