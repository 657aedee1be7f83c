#include "mqkit/broker/send/schedule_message_service.hpp"

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

// A broker with two long levels whose clock runs ahead of the store's (real) timestamps, so a
// message just stored is neither due nor "from the future"; the test moves the clock on. The
// store is interposed from the start, so that tests can fail appends while the service runs.
class ScheduleDeliveryTest : public ::testing::Test {
 protected:
  ScheduleDeliveryTest() {
    f_.harness().now() += 5'000;
    f_.interpose();
  }

  std::unique_ptr<ScheduleMessageService> start_service() {
    auto service = std::make_unique<ScheduleMessageService>(f_.context(), f_.harness().files());
    EXPECT_TRUE(service->start().is_ok());
    return service;
  }
  // Sends a message with DELAY=level to T queue 1 and waits until it is parked.
  void send_delayed(std::int32_t level, std::string body = "hello") {
    SendRequest request;
    request.queue_id = 1;
    request.body = std::move(body);
    request.properties.emplace_back("DELAY", std::to_string(level));
    const auto parked_before = delivered(kScheduleTopic, level - 1);
    ASSERT_EQ(f_.send(request).code, rc::kSuccess);
    ASSERT_TRUE(eventually([&] { return delivered(kScheduleTopic, level - 1) == parked_before + 1; }));
  }
  void advance_clock(std::int64_t ms) { f_.harness().now() += ms; }
  // Messages in a queue so far (its max offset).
  std::int64_t delivered(const std::string& topic = "T", std::int32_t queue_id = 1) {
    return f_.context().store->max_offset(topic, queue_id);
  }
  bool eventually_delivered(std::int64_t count) {
    return eventually([&] { return delivered() == count; });
  }

  static constexpr const char* kScheduleTopic = "SCHEDULE_TOPIC_XXXX";
  SendFixture f_{"message_delay_level = \"10s 20s\""};
};

TEST_F(ScheduleDeliveryTest, DelayedMessageIsDeliveredWhenDue) {
  auto service = start_service();
  send_delayed(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several ticks: still not due
  EXPECT_EQ(delivered(), 0);

  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(1));
  auto message = f_.read("T", 1, 0);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->body(), "hello");
  EXPECT_EQ(message->view.born_timestamp, 1'700'000'000'000);
  EXPECT_EQ(v1::to_string(message->view.born_host), "127.0.0.1:50000");
  EXPECT_FALSE(message->property("DELAY"));
  EXPECT_EQ(message->property("UNIQ_KEY"), "AC11000100002A9F0000000000000001");
  EXPECT_EQ(message->property("TAGS"), "TagA");
  EXPECT_EQ(message->property("REAL_TOPIC"), "T");  // kept, as RocketMQ keeps it
  EXPECT_TRUE(eventually([&] { return service->offsets()[1] == 1; }));
  service->stop();
  EXPECT_EQ(delivered(), 1);  // delivered once
}

// RocketMQ's metrics see a delivery as read from the schedule topic by SCHEDULE_CONSUMER and
// stored in the real topic as a delayed message; the send itself counted in the schedule topic.
TEST_F(ScheduleDeliveryTest, DeliveryCountsOutOfTheScheduleTopicAndIntoTheRealOne) {
  auto metrics = std::make_shared<BrokerMetrics>();
  f_.context().metrics = metrics;
  auto service = start_service();
  send_delayed(1);
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(1));
  const auto delivered_record = f_.read("T", 1, 0);
  ASSERT_TRUE(delivered_record);
  service->stop();
  metrics::ExpositionWriter out;
  metrics->write(out);
  const std::string page = out.take();
  const std::string bytes = std::to_string(delivered_record->view.total_size);
  EXPECT_NE(page.find("rocketmq_messages_in_total{topic=\"T\",message_type=\"delay\",is_system=\"false\"} 1\n"),
            std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_throughput_in_total{topic=\"T\",message_type=\"delay\",is_system=\"false\"} " + bytes),
            std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_messages_in_total{topic=\"SCHEDULE_TOPIC_XXXX\",message_type=\"delay\","
                      "is_system=\"true\"} 1\n"),
            std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_messages_out_total{topic=\"SCHEDULE_TOPIC_XXXX\",consumer_group=\"SCHEDULE_CONSUMER\","
                      "is_system=\"true\"} 1\n"),
            std::string::npos) << page;
}

TEST_F(ScheduleDeliveryTest, LevelsAreIndependent) {
  auto service = start_service();
  send_delayed(2, "late");
  send_delayed(1, "early");
  advance_clock(10'000);  // level 1 due, level 2 not
  ASSERT_TRUE(eventually_delivered(1));
  EXPECT_EQ(f_.read("T", 1, 0)->body(), "early");
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(f_.read("T", 1, 1)->body(), "late");
}

TEST_F(ScheduleDeliveryTest, DeliveryResumesAfterARestart) {
  auto first = start_service();
  send_delayed(1, "one");
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(1));
  ASSERT_TRUE(eventually([&] { return first->offsets()[1] == 1; }));
  first.reset();  // stopped: its progress is saved
  auto saved = f_.harness().files().load("delayOffset.json");
  ASSERT_TRUE(saved.is_ok() && saved->has_value());
  EXPECT_EQ(**saved, "{\"offsetTable\":{\"1\":1}}");

  // Stored while no service runs, on the longer level: the clock is already past a level 1
  // delay of a message stored now, so a level 1 message would be due the moment the service
  // starts (and the offset check below would race with its delivery).
  send_delayed(2, "two");
  auto second = start_service();
  EXPECT_EQ(second->offsets()[1], 1);
  EXPECT_EQ(second->offsets()[2], 0);
  advance_clock(10'000);
  ASSERT_TRUE(eventually_delivered(2));
  EXPECT_EQ(f_.read("T", 1, 1)->body(), "two");
  second->stop();
  EXPECT_EQ(delivered(), 2);  // the first message was not delivered again
  EXPECT_EQ(second->encode_offsets(), "{\"offsetTable\":{\"1\":1,\"2\":1}}");
}

TEST_F(ScheduleDeliveryTest, FailedDeliveryIsRetried) {
  auto service = start_service();
  send_delayed(1);
  f_.interpose().fail_appends_with(v1::Status::unavailable("disk full"));
  advance_clock(10'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several failed attempts
  EXPECT_EQ(delivered(), 0);
  EXPECT_EQ(service->offsets()[1], 0);
  f_.interpose().fail_appends_with(v1::Status::ok());
  ASSERT_TRUE(eventually_delivered(1));
  service->stop();
  EXPECT_EQ(delivered(), 1);
}

TEST_F(ScheduleDeliveryTest, SentBackMessageComesBackInTheRetryTopic) {
  auto service = start_service();
  auto sent = f_.send(SendRequest{});
  ASSERT_EQ(sent.code, rc::kSuccess);
  const std::string original_id(sent.ext_fields.get("msgId").value_or(""));
  auto back = v1::RemotingCommand::request(protocol::request_code::kConsumerSendMsgBack);
  back.ext_fields.set("offset", v1::parse_offset_message_id(original_id)->commit_offset);
  back.ext_fields.set("group", std::string("G"));
  back.ext_fields.set("delayLevel", std::int64_t{0});  // level 3, clamped to this broker's last (2)
  ASSERT_EQ(f_.call(back).code, rc::kSuccess);
  advance_clock(20'000);
  ASSERT_TRUE(eventually([&] { return delivered("%RETRY%G", 0) == 1; }));
  auto retry = f_.read("%RETRY%G", 0, 0);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->body(), "hello");
  EXPECT_EQ(retry->view.reconsume_times, 1);
  EXPECT_EQ(retry->property("RETRY_TOPIC"), "T");
  EXPECT_EQ(retry->property("ORIGIN_MESSAGE_ID"), original_id);
  EXPECT_FALSE(retry->property("DELAY"));
}

TEST(ScheduleMessageServiceTest, SlaveTakesTheMastersDelayOffsets) {
  SendFixture f;
  ScheduleMessageService service(f.context(), f.harness().files());
  // As a RocketMQ master answers GET_ALL_DELAY_OFFSET: levels as bare numbers.
  auto offsets = ScheduleMessageService::decode_offsets(R"({"offsetTable":{1:12,3:4}})");
  ASSERT_TRUE(offsets.is_ok()) << offsets.status().to_string();
  ASSERT_TRUE(service.replace_offsets(std::move(*offsets)).is_ok());
  EXPECT_EQ(service.offsets(), (std::map<std::int32_t, std::int64_t>{{1, 12}, {3, 4}}));
  auto saved = f.harness().files().load("delayOffset.json");
  ASSERT_TRUE(saved.is_ok() && saved->has_value());
  EXPECT_EQ(**saved, R"({"offsetTable":{"1":12,"3":4}})");
  EXPECT_FALSE(ScheduleMessageService::decode_offsets(R"({"offsetTable":{"one":1}})").is_ok());
  EXPECT_FALSE(ScheduleMessageService::decode_offsets("[]").is_ok());
}

TEST(ScheduleMessageServiceTest, CorruptOffsetFileFailsStart) {
  SendFixture f;
  ASSERT_TRUE(f.harness().files().save("delayOffset.json", "{\"offsetTable\":[1,2]}").is_ok());
  ScheduleMessageService service(f.context(), f.harness().files());
  EXPECT_EQ(service.start().code(), v1::StatusCode::kCorruption);
  service.stop();  // harmless without a running thread
}

}  // namespace
}  // namespace mqkit::broker
