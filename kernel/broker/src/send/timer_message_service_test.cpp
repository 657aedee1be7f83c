#include "mqkit/broker/send/timer_message_service.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
using testing::eventually;
using testing::SendFixture;
using testing::SendRequest;

constexpr const char* kTimerTopic = "rmq_sys_wheel_timer";
constexpr std::int64_t kNow = 1'700'000'000'500;

OutgoingMessage message_with(v1::Properties properties) {
  OutgoingMessage m;
  m.topic = "T";
  m.queue_id = 3;
  m.properties = std::move(properties);
  return m;
}

TEST(TimerMessageServiceTest, ParkHoldsAMessageUntilItsRoundedDeliveryTime) {
  const BrokerConfig config;  // precision 1 s, at most 3 days
  OutgoingMessage m = message_with({{"TIMER_DELAY_MS", "2700"}});
  ASSERT_EQ(TimerMessageService::park(config, kNow, m), TimerParking::kHeld);
  EXPECT_EQ(m.topic, kTimerTopic);
  EXPECT_EQ(m.queue_id, 0);
  EXPECT_EQ(m.properties, (v1::Properties{{"TIMER_DELAY_MS", "2700"},
                                          {"TIMER_OUT_MS", "1700000003000"},  // 1700000003200 rounded down
                                          {"REAL_TOPIC", "T"},
                                          {"REAL_QID", "3"}}));

  // A whole multiple of the precision goes one step earlier, as in RocketMQ.
  OutgoingMessage absolute = message_with({{"TIMER_DELIVER_MS", "1700000005000"}});
  ASSERT_EQ(TimerMessageService::park(config, kNow, absolute), TimerParking::kHeld);
  EXPECT_EQ(get_property(absolute.properties, "TIMER_OUT_MS"), "1700000004000");

  // TIMER_DELAY_SEC is read first, then TIMER_DELAY_MS, then TIMER_DELIVER_MS.
  OutgoingMessage all = message_with({{"TIMER_DELIVER_MS", "1"}, {"TIMER_DELAY_MS", "1"}, {"TIMER_DELAY_SEC", "10"}});
  ASSERT_EQ(TimerMessageService::park(config, kNow, all), TimerParking::kHeld);
  EXPECT_EQ(get_property(all.properties, "TIMER_OUT_MS"), "1700000010000");
}

TEST(TimerMessageServiceTest, ParkLeavesWhatIsNoTimerMessageOrAlreadyDue) {
  const BrokerConfig config;
  for (v1::Properties properties : {v1::Properties{{"TAGS", "a"}},
                                    v1::Properties{{"TIMER_DELIVER_MS", "1700000000000"}},  // past
                                    v1::Properties{{"TIMER_DELAY_SEC", "-5"}},
                                    v1::Properties{{"TIMER_DELAY_SEC", "5"}, {"TIMER_OUT_MS", "1"}}}) {
    OutgoingMessage m = message_with(properties);
    EXPECT_EQ(TimerMessageService::park(config, kNow, m), TimerParking::kNotHeld);
    EXPECT_EQ(m.topic, "T");
    EXPECT_EQ(m.properties, properties);
  }
  OutgoingMessage half = message_with({{"TIMER_DELAY_SEC", "5"}});
  half.sys_flag = v1::sys_flag::kTransactionPrepared;
  EXPECT_EQ(TimerMessageService::park(config, kNow, half), TimerParking::kNotHeld);
  EXPECT_EQ(half.topic, "T");
  OutgoingMessage committed = message_with({{"TIMER_DELAY_SEC", "5"}});
  committed.sys_flag = v1::sys_flag::kTransactionCommit;
  EXPECT_EQ(TimerMessageService::park(config, kNow, committed), TimerParking::kHeld);

  // A delay level wins: the delivery time is removed.
  OutgoingMessage delayed = message_with({{"DELAY", "2"}, {"TIMER_DELAY_SEC", "5"}, {"TIMER_DELIVER_MS", "9"}});
  EXPECT_EQ(TimerMessageService::park(config, kNow, delayed), TimerParking::kNotHeld);
  EXPECT_EQ(delayed.properties, (v1::Properties{{"DELAY", "2"}}));
}

TEST(TimerMessageServiceTest, ParkRefusesUnreadableOrTooLateTimesAndADisabledTimer) {
  BrokerConfig config;
  config.timer_max_delay_sec = 60;
  OutgoingMessage late = message_with({{"TIMER_DELAY_SEC", "61"}});
  EXPECT_EQ(TimerMessageService::park(config, kNow, late), TimerParking::kIllegal);
  OutgoingMessage just_in_time = message_with({{"TIMER_DELAY_SEC", "60"}});
  EXPECT_EQ(TimerMessageService::park(config, kNow, just_in_time), TimerParking::kHeld);
  OutgoingMessage garbage = message_with({{"TIMER_DELIVER_MS", "soon"}});
  EXPECT_EQ(TimerMessageService::park(config, kNow, garbage), TimerParking::kIllegal);
  OutgoingMessage overflow = message_with({{"TIMER_DELAY_SEC", "9223372036854775"}});
  EXPECT_EQ(TimerMessageService::park(config, kNow, overflow), TimerParking::kIllegal);
  config.timer_wheel_enable = false;
  OutgoingMessage disabled = message_with({{"TIMER_DELAY_SEC", "5"}});
  EXPECT_EQ(TimerMessageService::park(config, kNow, disabled), TimerParking::kNotEnabled);
}

TEST(TimerMessageServiceTest, CheckpointRoundTripsAndRejectsGarbage) {
  const TimerCheckpoint checkpoint{3, 9, 1'700'000'000'000};
  const std::string json = TimerMessageService::encode_checkpoint(checkpoint);
  EXPECT_EQ(json, R"({"rescanFrom":3,"scannedTo":9,"deliveredThroughMs":1700000000000})");
  auto decoded = TimerMessageService::decode_checkpoint(json);
  ASSERT_TRUE(decoded.is_ok());
  EXPECT_EQ(*decoded, checkpoint);
  EXPECT_FALSE(TimerMessageService::decode_checkpoint(R"({"rescanFrom":3})").is_ok());
  EXPECT_FALSE(TimerMessageService::decode_checkpoint("[]").is_ok());
}

// A broker whose clock the test moves: the timer service delivers by it alone.
class TimerDeliveryTest : public ::testing::Test {
 protected:
  explicit TimerDeliveryTest(const std::string& broker_toml = "timer_max_delay_sec = 3600")
      : f_(broker_toml) {
    f_.interpose();
  }

  std::unique_ptr<TimerMessageService> start_service() {
    auto service = std::make_unique<TimerMessageService>(f_.context(), f_.harness().files());
    EXPECT_TRUE(service->start().is_ok());
    return service;
  }
  // Sends a message to T queue 1 due in `delay_ms` (by the broker's clock) and waits until it is
  // in the timer queue.
  void send_timer(std::int64_t delay_ms, std::string body) {
    SendRequest request;
    request.queue_id = 1;
    request.body = std::move(body);
    request.properties.emplace_back("TIMER_DELAY_MS", std::to_string(delay_ms));
    const auto held_before = delivered(kTimerTopic, 0);
    auto answer = f_.send(request);
    ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
    ASSERT_TRUE(eventually([&] { return delivered(kTimerTopic, 0) == held_before + 1; }));
  }
  void advance_clock(std::int64_t ms) { f_.harness().now() += ms; }
  std::int64_t delivered(const std::string& topic = "T", std::int32_t queue_id = 1) {
    return f_.context().store->max_offset(topic, queue_id);
  }
  bool eventually_delivered(std::int64_t count) {
    return eventually([&] { return delivered() == count; });
  }
  std::string body_at(std::int64_t offset) {
    auto record = f_.read("T", 1, offset);
    return record ? record->body() : "<none>";
  }

  SendFixture f_;
};

TEST_F(TimerDeliveryTest, MessagesAreDeliveredWhenDueEarliestFirst) {
  auto service = start_service();
  send_timer(30'500, "thirty");
  send_timer(10'500, "ten");
  send_timer(20'500, "twenty");
  ASSERT_TRUE(eventually([&] { return service->pending_count() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several ticks: nothing due
  EXPECT_EQ(delivered(), 0);

  advance_clock(21'000);
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(body_at(0), "ten");
  EXPECT_EQ(body_at(1), "twenty");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(delivered(), 2);  // thirty is not due yet
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(3));
  EXPECT_EQ(body_at(2), "thirty");
  ASSERT_TRUE(eventually([&] { return service->checkpoint().rescan_from == 3; }));
  const TimerCheckpoint settled = service->checkpoint();
  advance_clock(1'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(service->checkpoint(), settled);  // idle: nothing to save
  service->stop();
  EXPECT_EQ(delivered(), 3);
  EXPECT_EQ(service->pending_count(), 0u);
}

// A deletion marker (TIMER_DEL_UNIQKEY "topic+UNIQ_KEY", what RECALL_MESSAGE writes) cancels the
// waiting message it names; the marker itself is never delivered, nor is one naming nothing.
TEST_F(TimerDeliveryTest, ADeletionMarkerCancelsTheWaitingMessageItNames) {
  auto service = start_service();
  const auto send_held = [&](plugin::v1::Properties properties, const std::string& body) {
    SendRequest request;
    request.queue_id = 1;
    request.body = body;
    request.properties = std::move(properties);
    request.properties.emplace_back("TIMER_DELAY_MS", "10500");
    const auto held_before = delivered(kTimerTopic, 0);
    auto answer = f_.send(request);
    ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
    ASSERT_TRUE(eventually([&] { return delivered(kTimerTopic, 0) == held_before + 1; }));
  };
  send_held({{"UNIQ_KEY", "U1"}}, "recalled");
  send_held({{"UNIQ_KEY", "U2"}}, "kept");
  ASSERT_TRUE(eventually([&] { return service->pending_count() == 2; }));
  send_held({{"UNIQ_KEY", "U1"}, {"TIMER_DEL_UNIQKEY", "T+U1"}}, "0");
  send_held({{"UNIQ_KEY", "U9"}, {"TIMER_DEL_UNIQKEY", "T+U9"}}, "0");  // names nothing waiting
  ASSERT_TRUE(eventually([&] { return service->pending_count() == 1; }));

  advance_clock(11'000);
  ASSERT_TRUE(eventually_delivered(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(delivered(), 1);
  EXPECT_EQ(body_at(0), "kept");
  EXPECT_EQ(service->pending_count(), 0u);

  // After a restart the queue is read again from the checkpoint: the cancelled one stays cancelled.
  service->stop();
  service = start_service();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(delivered(), 1);
  EXPECT_EQ(service->pending_count(), 0u);
}

// A marker read before the message it names (written first) cancels that message when it comes,
// as RocketMQ matches them within their slot; once the marker is due it is forgotten.
TEST_F(TimerDeliveryTest, AMarkerReadBeforeItsMessageCancelsItWhenItComes) {
  auto service = start_service();
  const auto send_held = [&](plugin::v1::Properties properties, const std::string& body, const char* delay) {
    SendRequest request;
    request.queue_id = 1;
    request.body = body;
    request.properties = std::move(properties);
    request.properties.emplace_back("TIMER_DELAY_MS", delay);
    const auto held_before = delivered(kTimerTopic, 0);
    auto answer = f_.send(request);
    ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
    ASSERT_TRUE(eventually([&] { return delivered(kTimerTopic, 0) == held_before + 1; }));
  };
  send_held({{"UNIQ_KEY", "E1"}, {"TIMER_DEL_UNIQKEY", "T+E1"}}, "0", "10500");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the marker is read first
  // It holds the checkpoint's rescan point, so a restart reads it again.
  service->stop();
  service = start_service();
  send_held({{"UNIQ_KEY", "E1"}}, "recalled before it came", "10500");
  send_held({{"UNIQ_KEY", "E2"}}, "kept", "10500");
  ASSERT_TRUE(eventually([&] { return service->pending_count() == 1; }));

  advance_clock(11'000);
  ASSERT_TRUE(eventually_delivered(1));
  EXPECT_EQ(body_at(0), "kept");
  // A marker whose time has passed matches nothing that comes later.
  send_held({{"UNIQ_KEY", "E3"}, {"TIMER_DEL_UNIQKEY", "T+E3"}}, "0", "1000");
  advance_clock(2'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  send_held({{"UNIQ_KEY", "E3"}}, "after the marker's time", "10500");
  advance_clock(11'000);
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(body_at(1), "after the marker's time");
  ASSERT_TRUE(eventually([&] { return service->checkpoint().rescan_from == 5; }));
  EXPECT_EQ(service->pending_count(), 0u);
}

TEST_F(TimerDeliveryTest, DeliveredCopyKeepsTheMessageAndIsStampedAsRocketMQDoes) {
  auto service = start_service();
  const std::int64_t sent_at = f_.harness().now();
  send_timer(5'000, "hello");
  auto held = f_.read(kTimerTopic, 0, 0);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->property("REAL_TOPIC"), "T");
  EXPECT_EQ(held->property("REAL_QID"), "1");
  const std::int64_t due = (sent_at + 5'000) % 1000 == 0 ? sent_at + 4'000 : (sent_at + 5'000) / 1000 * 1000;
  EXPECT_EQ(held->property("TIMER_OUT_MS"), std::to_string(due));

  advance_clock(5'000);
  ASSERT_TRUE(eventually_delivered(1));
  auto copy = f_.read("T", 1, 0);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->body(), "hello");
  EXPECT_EQ(copy->property("TAGS"), "TagA");
  EXPECT_EQ(copy->property("KEYS"), "k1");
  EXPECT_EQ(copy->property("UNIQ_KEY"), "AC11000100002A9F0000000000000001");
  EXPECT_EQ(copy->property("TIMER_DELAY_MS"), "5000");
  EXPECT_EQ(copy->property("TIMER_OUT_MS"), std::to_string(due));
  EXPECT_EQ(copy->property("TIMER_ENQUEUE_MS"), std::to_string(held->view.store_timestamp));
  EXPECT_EQ(copy->property("TIMER_DEQUEUE_MS"), std::to_string(sent_at + 5'000));
  EXPECT_FALSE(copy->property("REAL_TOPIC"));
  EXPECT_FALSE(copy->property("REAL_QID"));
  EXPECT_EQ(copy->view.born_timestamp, 1'700'000'000'000);
  EXPECT_NE(copy->view.commit_offset, held->view.commit_offset);  // a record, and a message id, of its own
}

TEST_F(TimerDeliveryTest, SendBeyondTheMaximumDelayIsRefusedWithRocketMQsAnswer) {
  SendRequest request;
  request.properties.emplace_back("TIMER_DELAY_SEC", "3601");
  auto answer = f_.send(request);
  EXPECT_EQ(answer.code, rc::kMessageIllegal);
  EXPECT_EQ(answer.remark, "timer message illegal, the delay time should not be bigger than the max delay 3600000ms; "
                           "or if set del msg, the delay time should be bigger than the current time");
  EXPECT_EQ(delivered(kTimerTopic, 0), 0);
}

TEST_F(TimerDeliveryTest, DeliveryResumesAfterARestartWithoutRepeats) {
  auto first = start_service();
  send_timer(60'000, "late");
  send_timer(5'000, "early");
  advance_clock(5'000);
  ASSERT_TRUE(eventually_delivered(1));
  EXPECT_EQ(body_at(0), "early");
  ASSERT_TRUE(eventually([&] { return first->checkpoint().rescan_from == 0 && first->checkpoint().scanned_to == 2; }));
  first.reset();  // stopped: its checkpoint is saved
  auto saved = f_.harness().files().load(TimerMessageService::kCheckpointFile);
  ASSERT_TRUE(saved.is_ok() && saved->has_value());
  auto checkpoint = TimerMessageService::decode_checkpoint(**saved);
  ASSERT_TRUE(checkpoint.is_ok());
  EXPECT_EQ(checkpoint->rescan_from, 0);  // "late" is still waiting

  send_timer(10'000, "while down");
  auto second = start_service();
  ASSERT_TRUE(eventually([&] { return second->pending_count() == 2; }));  // "early" is not read again
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(body_at(1), "while down");
  advance_clock(60'000);
  ASSERT_TRUE(eventually_delivered(3));
  EXPECT_EQ(body_at(2), "late");
  second->stop();
  EXPECT_EQ(delivered(), 3);
  EXPECT_EQ(second->checkpoint().rescan_from, 3);
}

// A crash loses what happened after the last saved checkpoint: those deliveries repeat.
TEST_F(TimerDeliveryTest, DeliveriesAfterTheSavedCheckpointRepeatAfterACrash) {
  send_timer(5'000, "one");
  ASSERT_TRUE(f_.harness()
                  .files()
                  .save(TimerMessageService::kCheckpointFile, TimerMessageService::encode_checkpoint({0, 0, 0}))
                  .is_ok());
  advance_clock(5'000);
  {
    auto service = start_service();
    ASSERT_TRUE(eventually_delivered(1));
  }
  ASSERT_TRUE(f_.harness()
                  .files()
                  .save(TimerMessageService::kCheckpointFile, TimerMessageService::encode_checkpoint({0, 0, 0}))
                  .is_ok());
  auto restarted = start_service();
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(body_at(1), "one");
}

TEST_F(TimerDeliveryTest, FailedDeliveryIsRetried) {
  auto service = start_service();
  send_timer(5'000, "hello");
  f_.interpose().fail_appends_with(v1::Status::unavailable("disk full"));
  advance_clock(5'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several failed attempts
  EXPECT_EQ(delivered(), 0);
  EXPECT_EQ(service->pending_count(), 1u);
  f_.interpose().fail_appends_with(v1::Status::ok());
  ASSERT_TRUE(eventually_delivered(1));
  service->stop();
  EXPECT_EQ(delivered(), 1);
}

// A slave's appends fail: its copy of the timer topic waits for its master to deliver.
TEST(TimerMessageServiceTest, ASlaveRunsNoTimerThread) {
  SendFixture f("broker_role = \"SLAVE\"\nbroker_id = 1");
  TimerMessageService service(f.context(), f.harness().files());
  ASSERT_TRUE(service.start().is_ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a running thread would have passed once
  service.stop();
  auto saved = f.harness().files().load(TimerMessageService::kCheckpointFile);
  ASSERT_TRUE(saved.is_ok());
  EXPECT_FALSE(saved->has_value());
}

class BoundedTimerTest : public TimerDeliveryTest {
 protected:
  BoundedTimerTest() : TimerDeliveryTest("timer_max_pending_in_memory = 2") {}
};

TEST_F(BoundedTimerTest, BeyondTheBoundTheQueueIsReadOnAsRoomIsMade) {
  auto service = start_service();
  send_timer(20'000, "a");
  send_timer(30'000, "b");
  send_timer(10'000, "c");  // due first, but not indexed while a and b fill the index
  ASSERT_TRUE(eventually([&] { return service->pending_count() == 2; }));
  advance_clock(10'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(delivered(), 0);  // late: c waits for room
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(body_at(0), "a");
  EXPECT_EQ(body_at(1), "c");
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(3));
  EXPECT_EQ(body_at(2), "b");
}

}  // namespace
}  // namespace mqkit::broker
