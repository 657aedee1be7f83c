// Timer messages end to end (docs/timer-messages.md): an SDK producer sends messages with a
// delivery time to a real mqbroker (commit log store, default 1 s timer precision), and a push
// consumer receives each one no earlier than its time, less the precision the broker rounds down
// by; a message still waiting when the broker restarts is delivered after the restart. Every
// wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;
using std::chrono::milliseconds;

constexpr const char* kTopic = "TimerTopic";
constexpr std::int64_t kPrecisionMs = 1000;  // the broker's timer_precision_ms

std::int64_t wall_ms() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Bodies in the order they arrived, with when, and the messages as received.
class Arrivals {
 public:
  void add(const MessageExt& m) {
    std::lock_guard lock(mutex_);
    order_.push_back(m.body());
    at_[m.body()] = wall_ms();
    messages_.emplace(m.body(), m);
  }
  std::vector<std::string> order() const {
    std::lock_guard lock(mutex_);
    return order_;
  }
  std::int64_t at(const std::string& body) const {
    std::lock_guard lock(mutex_);
    const auto it = at_.find(body);
    return it == at_.end() ? -1 : it->second;
  }
  MessageExt message(const std::string& body) const {
    std::lock_guard lock(mutex_);
    return messages_.at(body);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> order_;
  std::map<std::string, std::int64_t> at_;
  std::map<std::string, MessageExt> messages_;
};

class TimerMessageIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    // The commit log store: it survives restarts. Recall on, as RocketMQ 5.3 brokers can.
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .overrides = {"broker.recall_message_enable=true"}}).is_ok());
    ProducerConfig config;
    config.group = "timer_it_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    ASSERT_TRUE(
        mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 1, kTopic, 2).is_ok());
  }

  void TearDown() override {
    consumer_.reset();
    producer_.reset();
    cluster_.reset();
  }

  void start_consumer(Arrivals& arrivals) {
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, "timer_it_consumer");
    config.consume_thread_count = 1;
    consumer_ = std::make_unique<PushConsumer>(config);
    ASSERT_TRUE(consumer_->subscribe(kTopic, "*").is_ok());
    ASSERT_TRUE(consumer_
                    ->register_listener([&arrivals](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                      for (const auto& m : messages) arrivals.add(m);
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    const Status started = consumer_->start();
    ASSERT_TRUE(started.is_ok()) << started.to_string();
  }

  void send(Message message) {
    auto sent = producer_->send(std::move(message));
    ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<PushConsumer> consumer_;
};

TEST_F(TimerMessageIntegrationTest, ImmediateMessageFirstThenEachTimerMessageAtItsTime) {
  Arrivals arrivals;
  start_consumer(arrivals);
  // Let the consumer own its queues first, so that arrival times are delivery times.
  send(Message(kTopic, "warm-up"));
  ASSERT_TRUE(eventually([&] { return arrivals.at("warm-up") >= 0; })) << "the consumer never started receiving";

  // Sent early in a second, so that rounding down to the precision cannot make "at-1s" due
  // before "now" has been sent.
  while (wall_ms() % 1000 > 100) std::this_thread::sleep_for(milliseconds(10));
  const std::int64_t sent_at = wall_ms();
  Message later(kTopic, "in-3s");
  later.set_delay_time_sec(3);
  send(std::move(later));
  Message soon(kTopic, "at-1s");
  soon.set_deliver_time_ms(sent_at + 1000);
  send(std::move(soon));
  send(Message(kTopic, "now"));

  ASSERT_TRUE(eventually([&] { return arrivals.at("in-3s") >= 0; }, std::chrono::seconds(20)))
      << "the 3 s timer message never came";
  EXPECT_EQ(arrivals.order(), (std::vector<std::string>{"warm-up", "now", "at-1s", "in-3s"}));
  EXPECT_GE(arrivals.at("at-1s"), sent_at + 1000 - kPrecisionMs);
  EXPECT_GE(arrivals.at("in-3s"), sent_at + 3000 - kPrecisionMs);
  const MessageExt delivered = arrivals.message("in-3s");
  EXPECT_TRUE(delivered.property("TIMER_OUT_MS").has_value());
  EXPECT_TRUE(delivered.property("TIMER_DEQUEUE_MS").has_value());
  EXPECT_FALSE(delivered.property("REAL_TOPIC").has_value());
}

TEST_F(TimerMessageIntegrationTest, APendingTimerMessageSurvivesABrokerRestart) {
  const std::int64_t sent_at = wall_ms();
  Message pending(kTopic, "across-restart");
  pending.set_delay_time_sec(4);
  send(std::move(pending));
  ASSERT_TRUE(cluster_->restart_broker(0).is_ok());

  Arrivals arrivals;
  start_consumer(arrivals);
  ASSERT_TRUE(eventually([&] { return arrivals.at("across-restart") >= 0; }, std::chrono::seconds(30)))
      << "the pending timer message was lost in the restart";
  EXPECT_GE(arrivals.at("across-restart"), sent_at + 4000 - kPrecisionMs);
  std::this_thread::sleep_for(milliseconds(1500));  // a repeat would show up by now
  EXPECT_EQ(arrivals.order(), std::vector<std::string>{"across-restart"});
}

// After a crash the message is still in the commit log; delivery is at least once.
TEST_F(TimerMessageIntegrationTest, APendingTimerMessageSurvivesABrokerCrash) {
  const std::int64_t sent_at = wall_ms();
  Message pending(kTopic, "across-crash");
  pending.set_delay_time_ms(4000);
  send(std::move(pending));
  ASSERT_TRUE(cluster_->restart_broker(0, /*crash=*/true).is_ok());

  Arrivals arrivals;
  start_consumer(arrivals);
  ASSERT_TRUE(eventually([&] { return arrivals.at("across-crash") >= 0; }, std::chrono::seconds(30)))
      << "the pending timer message was lost in the crash";
  EXPECT_GE(arrivals.at("across-crash"), sent_at + 4000 - kPrecisionMs);
}

// RocketMQ 5.3's recall: the send answer of a held timer message carries a recall handle; with it
// the producer cancels the message, which is then never delivered, while its neighbour is.
TEST_F(TimerMessageIntegrationTest, ARecalledTimerMessageIsNeverDelivered) {
  Arrivals arrivals;
  // The consumer calls into `arrivals`: it stops first, however the test ends (the last message
  // below may arrive after the checks).
  struct StopFirst {
    std::unique_ptr<PushConsumer>& consumer;
    ~StopFirst() { consumer.reset(); }
  } stop_first{consumer_};
  start_consumer(arrivals);
  send(Message(kTopic, "warm-up"));
  ASSERT_TRUE(eventually([&] { return arrivals.at("warm-up") >= 0; })) << "the consumer never started receiving";

  Message recalled(kTopic, "recalled");
  recalled.set_delay_time_sec(3);
  auto sent = producer_->send(std::move(recalled));
  ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  ASSERT_FALSE(sent->recall_handle.empty()) << "a held timer message's answer carries a recall handle";
  Message kept(kTopic, "kept");
  kept.set_delay_time_sec(3);
  send(std::move(kept));

  const auto id = producer_->recall_message(kTopic, sent->recall_handle);
  ASSERT_TRUE(id.is_ok()) << id.status().to_string();
  EXPECT_EQ(*id, sent->msg_id);
  ASSERT_TRUE(eventually([&] { return arrivals.at("kept") >= 0; }, std::chrono::seconds(15)));
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_EQ(arrivals.at("recalled"), -1) << "a recalled message is never delivered";

  // Too late now, and a handle that is not one, are refused with the broker's reason.
  const auto late = producer_->recall_message(kTopic, sent->recall_handle);
  ASSERT_FALSE(late.is_ok());
  EXPECT_NE(late.status().message().find("timestamp invalid"), std::string::npos) << late.status().to_string();
  const auto garbage = producer_->recall_message(kTopic, "not-a-handle");
  ASSERT_FALSE(garbage.is_ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidArgument);
  // A message that is not held has no handle.
  auto plain = producer_->send(Message(kTopic, "plain"));
  ASSERT_TRUE(plain.is_ok());
  EXPECT_TRUE(plain->recall_handle.empty());
}

}  // namespace
}  // namespace mqkit::client
