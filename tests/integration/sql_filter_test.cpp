// SQL92 filtering end to end: a real mqbroker with enable_property_filter; push and lite pull
// consumers subscribed with MessageSelector::by_sql receive exactly the messages whose properties
// match, while a TAG "*" consumer of the same topic still receives everything. One queue, one
// consume thread: the broker filters each pull in queue order, so when the last matching message
// has arrived every earlier one has been filtered and delivered. Every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/lite_pull_consumer.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;
using mqkit::testing::eventually;

constexpr const char* kTopic = "SqlFilterTopic";
constexpr int kMessages = 30;

class Bodies {
 public:
  void add(const std::string& body) {
    std::lock_guard lock(mutex_);
    bodies_.insert(body);
    ++deliveries_;
  }
  std::set<std::string> bodies() const {
    std::lock_guard lock(mutex_);
    return bodies_;
  }
  int deliveries() const {
    std::lock_guard lock(mutex_);
    return deliveries_;
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::string> bodies_;
  int deliveries_ = 0;
};

class SqlFilterIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = "memory",
                                      .overrides = {"broker.enable_property_filter=true"}})
                    .is_ok());
    ProducerConfig config;
    config.group = "sql_it_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    ASSERT_TRUE(
        mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 1, kTopic, 1).is_ok());
  }

  void TearDown() override {
    consumers_.clear();
    producer_.reset();
    cluster_.reset();
  }

  ConsumerConfig consumer_config(const std::string& group) const {
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, group);
    config.consume_thread_count = 1;
    return config;
  }

  // Sends kMessages messages; returns the bodies of those kSelectorSql selects.
  // Message i: price i, color red for even i, no color for every fifth, tag A or B by i % 3.
  std::set<std::string> send_messages() {
    std::set<std::string> expected;
    for (int i = 0; i < kMessages; ++i) {
      const std::string body = "m" + std::to_string(i);
      Message message(kTopic, i % 3 == 0 ? "A" : "B", body);
      EXPECT_TRUE(message.put_user_property("price", std::to_string(i)).is_ok());
      const bool colored = i % 5 != 0;
      if (colored) {
        EXPECT_TRUE(message.put_user_property("color", i % 2 == 0 ? "red" : "blue").is_ok());
      }
      auto sent = producer_->send(message);
      EXPECT_TRUE(sent.is_ok()) << sent.status().to_string();
      if ((i >= 10 && colored && i % 2 == 0) || (i < 10 && i % 3 == 0)) expected.insert(body);
    }
    return expected;
  }
  static constexpr const char* kSelectorSql = "(price >= 10 AND color = 'red') OR (price < 10 AND TAGS = 'A')";
  static constexpr const char* kLastMatch = "m28";

  void start_consumer(const std::string& group, const MessageSelector& selector, Bodies& received) {
    auto consumer = std::make_unique<PushConsumer>(consumer_config(group));
    ASSERT_TRUE(consumer->subscribe(kTopic, selector).is_ok());
    ASSERT_TRUE(consumer
                    ->register_listener([&received](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                      for (const auto& m : messages) received.add(m.body());
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    const Status started = consumer->start();
    ASSERT_TRUE(started.is_ok()) << started.to_string();
    consumers_.push_back(std::move(consumer));
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
  std::vector<std::unique_ptr<PushConsumer>> consumers_;
};

TEST_F(SqlFilterIntegrationTest, APushConsumerReceivesExactlyTheMatchingMessages) {
  const std::set<std::string> expected = send_messages();
  ASSERT_TRUE(expected.count(kLastMatch));

  Bodies filtered;
  Bodies everything;
  start_consumer("sql_it_filtered", MessageSelector::by_sql(kSelectorSql), filtered);
  start_consumer("sql_it_everything", MessageSelector::by_tag("*"), everything);

  ASSERT_TRUE(eventually([&] { return filtered.bodies().count(kLastMatch) == 1; })) << "the last match never came";
  EXPECT_EQ(filtered.bodies(), expected);
  EXPECT_EQ(filtered.deliveries(), static_cast<int>(expected.size()));
  ASSERT_TRUE(eventually([&] { return everything.bodies().size() == static_cast<std::size_t>(kMessages); }))
      << everything.bodies().size() << " of " << kMessages;
}

TEST_F(SqlFilterIntegrationTest, ALitePullConsumerPollsExactlyTheMatchingMessages) {
  const std::set<std::string> expected = send_messages();
  LitePullConsumer consumer(consumer_config("sql_it_lite"));
  ASSERT_TRUE(consumer.subscribe(kTopic, MessageSelector::by_sql(kSelectorSql)).is_ok());
  ASSERT_TRUE(consumer.start().is_ok());
  Bodies polled;
  // At most 300 polls of 100 ms: bounded by count and time.
  for (int i = 0; i < 300 && polled.bodies().count(kLastMatch) == 0; ++i) {
    auto got = consumer.poll(milliseconds(100));
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    for (const auto& m : *got) polled.add(m.body());
  }
  EXPECT_EQ(polled.bodies(), expected);
  EXPECT_EQ(polled.deliveries(), static_cast<int>(expected.size()));
  consumer.shutdown();
}

}  // namespace
}  // namespace mqkit::client
