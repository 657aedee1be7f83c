#include "mqkit/broker/send/schedule_message_service.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
using testing::eventually;
using testing::SendFixture;
using testing::SendRequest;

// Levels long enough that only the test's fake clock makes them due.
constexpr const char* kLevels = "message_delay_level = \"10s 20s\"";

SendRequest delayed(std::string level, std::string body = "hello") {
  SendRequest request;
  request.queue_id = 1;
  request.body = std::move(body);
  request.properties.emplace_back("DELAY", std::move(level));
  return request;
}

std::int64_t messages_in(SendFixture& f, const std::string& topic, std::int32_t queue_id) {
  return f.context().store->max_offset(topic, queue_id);
}

// The broker's clock runs ahead of the store's (real) timestamps, so a message just stored is
// neither due nor "from the future".
void run_clock_ahead(SendFixture& f) { f.harness().now() += 5'000; }

TEST(ScheduleMessageServiceTest, ParkClampsTheLevelAndSkipsOpenTransactions) {
  const std::vector<std::int64_t> levels{1000, 5000};
  OutgoingMessage m;
  m.topic = "T";
  m.queue_id = 3;
  m.properties = {{"DELAY", "7"}};
  ASSERT_TRUE(ScheduleMessageService::park(levels, m));
  EXPECT_EQ(m.topic, "SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(m.queue_id, 1);
  EXPECT_EQ(m.properties, (v1::Properties{{"DELAY", "2"}, {"REAL_TOPIC", "T"}, {"REAL_QID", "3"}}));

  OutgoingMessage plain;
  plain.topic = "T";
  plain.properties = {{"DELAY", "0"}};
  EXPECT_FALSE(ScheduleMessageService::park(levels, plain));
  OutgoingMessage half = m;
  half.topic = "T";
  half.sys_flag = v1::sys_flag::kTransactionPrepared;
  EXPECT_FALSE(ScheduleMessageService::park(levels, half));
  EXPECT_EQ(half.topic, "T");
}

TEST(ScheduleMessageServiceTest, ScheduleEntriesCarryTheirDeliveryTimeAsTagsCode) {
  const auto tags_code = ScheduleMessageService::tags_code_fn({1000, 5000});
  v1::RecordView record;
  record.store_timestamp = 100'000;
  const std::string properties = v1::encode_properties({{"TAGS", "TagA"}, {"DELAY", "9"}});
  record.properties = properties;
  record.topic = "SCHEDULE_TOPIC_XXXX";
  EXPECT_EQ(tags_code(record, "TagA"), 105'000);  // level 9 clamped to 2
  record.topic = "T";
  EXPECT_EQ(tags_code(record, "TagA"), 2598919);  // "TagA".hashCode()
  EXPECT_EQ(ScheduleMessageService::deliver_timestamp({1000}, 4, 100'000), 101'000);
}

TEST(ScheduleMessageServiceTest, DelayedMessageIsDeliveredWhenDue) {
  SendFixture f(kLevels);
  run_clock_ahead(f);
  ScheduleMessageService service(f.context(), f.harness().files());
  ASSERT_TRUE(service.start().is_ok());
  ASSERT_EQ(f.send(delayed("1")).code, rc::kSuccess);
  ASSERT_TRUE(f.read("SCHEDULE_TOPIC_XXXX", 0, 0).has_value());
  // Several ticks of the timer pass: still not due.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(messages_in(f, "T", 1), 0);

  f.harness().now() += 10'000;
  ASSERT_TRUE(eventually([&] { return messages_in(f, "T", 1) == 1; }));
  auto delivered = f.read("T", 1, 0);
  ASSERT_TRUE(delivered);
  EXPECT_EQ(delivered->body(), "hello");
  EXPECT_EQ(delivered->view.born_timestamp, 1'700'000'000'000);
  EXPECT_EQ(v1::to_string(delivered->view.born_host), "127.0.0.1:50000");
  EXPECT_FALSE(delivered->property("DELAY"));
  EXPECT_EQ(delivered->property("UNIQ_KEY"), "AC11000100002A9F0000000000000001");
  EXPECT_EQ(delivered->property("TAGS"), "TagA");
  EXPECT_EQ(delivered->property("REAL_TOPIC"), "T");  // kept, as RocketMQ keeps it
  EXPECT_TRUE(eventually([&] { return service.offsets()[1] == 1; }));
  service.stop();
  EXPECT_EQ(messages_in(f, "T", 1), 1);  // delivered once
}

TEST(ScheduleMessageServiceTest, LevelsAreIndependent) {
  SendFixture f(kLevels);
  run_clock_ahead(f);
  ScheduleMessageService service(f.context(), f.harness().files());
  ASSERT_TRUE(service.start().is_ok());
  ASSERT_EQ(f.send(delayed("2", "late")).code, rc::kSuccess);
  ASSERT_EQ(f.send(delayed("1", "early")).code, rc::kSuccess);
  f.harness().now() += 10'000;  // level 1 due, level 2 not
  ASSERT_TRUE(eventually([&] { return messages_in(f, "T", 1) == 1; }));
  EXPECT_EQ(f.read("T", 1, 0)->body(), "early");
  f.harness().now() += 10'000;
  ASSERT_TRUE(eventually([&] { return messages_in(f, "T", 1) == 2; }));
  EXPECT_EQ(f.read("T", 1, 1)->body(), "late");
}

TEST(ScheduleMessageServiceTest, DeliveryResumesAfterARestart) {
  SendFixture f(kLevels);
  run_clock_ahead(f);
  {
    ScheduleMessageService first(f.context(), f.harness().files());
    ASSERT_TRUE(first.start().is_ok());
    ASSERT_EQ(f.send(delayed("1", "one")).code, rc::kSuccess);
    f.harness().now() += 10'000;
    ASSERT_TRUE(eventually([&] { return messages_in(f, "T", 1) == 1; }));
    ASSERT_TRUE(eventually([&] { return first.offsets()[1] == 1; }));
  }  // stopped: its progress is saved
  auto saved = f.harness().files().load("delayOffset.json");
  ASSERT_TRUE(saved.is_ok() && saved->has_value());
  EXPECT_EQ(**saved, "{\"offsetTable\":{\"1\":1}}");

  ASSERT_EQ(f.send(delayed("1", "two")).code, rc::kSuccess);  // stored while no service runs
  ScheduleMessageService second(f.context(), f.harness().files());
  ASSERT_TRUE(second.start().is_ok());
  EXPECT_EQ(second.offsets()[1], 1);
  f.harness().now() += 10'000;
  ASSERT_TRUE(eventually([&] { return messages_in(f, "T", 1) == 2; }));
  EXPECT_EQ(f.read("T", 1, 1)->body(), "two");
  second.stop();
  EXPECT_EQ(messages_in(f, "T", 1), 2);  // the first message was not delivered again
  EXPECT_EQ(second.encode_offsets(), "{\"offsetTable\":{\"1\":2}}");
}

TEST(ScheduleMessageServiceTest, FailedDeliveryIsRetried) {
  SendFixture f(kLevels);
  run_clock_ahead(f);
  ScheduleMessageService service(f.context(), f.harness().files());
  ASSERT_TRUE(service.start().is_ok());
  ASSERT_EQ(f.send(delayed("1")).code, rc::kSuccess);
  ASSERT_TRUE(f.read("SCHEDULE_TOPIC_XXXX", 0, 0).has_value());
  f.interpose().fail_appends_with(v1::Status::unavailable("disk full"));
  f.harness().now() += 10'000;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several failed attempts
  EXPECT_EQ(messages_in(f, "T", 1), 0);
  EXPECT_EQ(service.offsets()[1], 0);
  f.interpose().fail_appends_with(v1::Status::ok());
  ASSERT_TRUE(eventually([&] { return messages_in(f, "T", 1) == 1; }));
  service.stop();
  EXPECT_EQ(messages_in(f, "T", 1), 1);
}

TEST(ScheduleMessageServiceTest, CorruptOffsetFileFailsStart) {
  SendFixture f(kLevels);
  ASSERT_TRUE(f.harness().files().save("delayOffset.json", "{\"offsetTable\":[1,2]}").is_ok());
  ScheduleMessageService service(f.context(), f.harness().files());
  EXPECT_EQ(service.start().code(), v1::StatusCode::kCorruption);
  service.stop();  // harmless without a running thread
}

}  // namespace
}  // namespace mqkit::broker
