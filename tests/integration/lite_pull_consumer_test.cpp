// The lite pull consumer against real processes (a name server, two brokers): subscribe + poll
// gets every message once, in queue order; assign + seek_to_begin reads again; a committed offset
// survives a restart; pause holds a queue back and resume lets it go; two consumers of one group
// split the queues with nothing lost or duplicated; unsubscribe stops a topic and the broker stops
// listing it; a queue change listener hears of a topic's new queue count. Intervals are shortened
// so each case takes seconds; every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "client_cluster.hpp"
#include "mqkit/client/lite_pull_consumer.hpp"
#include "mqkit/client/producer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kTopic = "LitePullTopic";
constexpr int kQueuesPerBroker = 4;
constexpr std::size_t kQueues = 2 * kQueuesPerBroker;

// What polls returned, by body, and whether each queue's messages came in offset order.
struct Polled {
  std::map<std::string, int> count;
  std::map<std::string, std::string> consumer_of;
  std::map<MessageQueue, std::int64_t> last_offset;
  bool in_queue_order = true;

  void add(const std::string& consumer, const std::vector<MessageExt>& messages) {
    for (const auto& m : messages) {
      ++count[m.body()];
      consumer_of[m.body()] = consumer;
      const MessageQueue queue{m.topic(), m.broker_name, m.queue_id};
      const auto last = last_offset.find(queue);
      if (last != last_offset.end() && m.queue_offset <= last->second) in_queue_order = false;
      last_offset[queue] = m.queue_offset;
    }
  }
  bool each_once() const {
    for (const auto& [body, n] : count) {
      if (n != 1) return false;
    }
    return true;
  }
};

class LitePullConsumerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    const std::vector<std::string> overrides = {"broker.register_name_server_period=10s"};
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = "memory", .overrides = overrides}).is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-b", .store = "memory", .overrides = overrides}).is_ok());
    ProducerConfig config;
    config.group = "lite_it_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    const Status created =
        mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 2, kTopic, kQueuesPerBroker);
    ASSERT_TRUE(created.is_ok()) << created.to_string();
  }

  void TearDown() override {
    producer_.reset();
    cluster_.reset();
  }

  ConsumerConfig consumer_config(const std::string& group) const {
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, group);
    config.broker_suspend_max_time = milliseconds(1000);
    config.pull_batch_size = 8;
    return config;
  }

  std::unique_ptr<LitePullConsumer> subscribed(const ConsumerConfig& config) {
    auto consumer = std::make_unique<LitePullConsumer>(config);
    EXPECT_TRUE(consumer->subscribe(kTopic, "*").is_ok());
    const Status started = consumer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    return consumer;
  }

  std::vector<std::string> send(const std::string& prefix, int count) {
    std::vector<std::string> bodies;
    for (int i = 0; i < count; ++i) {
      bodies.push_back(prefix + std::to_string(i));
      auto sent = producer_->send(Message(kTopic, "TagA", bodies.back()));
      EXPECT_TRUE(sent.is_ok()) << sent.status().to_string();
    }
    return bodies;
  }

  // Polls every consumer in turn until `done` or `limit`.
  static void poll_until(const std::map<std::string, LitePullConsumer*>& consumers, Polled& polled,
                         const std::function<bool()>& done, milliseconds limit = seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      for (const auto& [name, consumer] : consumers) {
        auto got = consumer->poll(milliseconds(100));
        ASSERT_TRUE(got.is_ok()) << got.status().to_string();
        polled.add(name, *got);
      }
    }
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
};

TEST_F(LitePullConsumerIntegrationTest, SubscribeAndPollReceivesEveryMessageOnceInQueueOrder) {
  auto consumer = subscribed(consumer_config("lite_it_subscribe"));
  ASSERT_TRUE(eventually([&] { return consumer->assignment().size() == kQueues; })) << "never owned the queues";
  const auto bodies = send("m-", 40);
  Polled polled;
  poll_until({{"a", consumer.get()}}, polled, [&] { return polled.count.size() == bodies.size(); });
  EXPECT_EQ(polled.count.size(), bodies.size());
  for (const auto& body : bodies) EXPECT_TRUE(polled.count.contains(body)) << body << " never polled";
  EXPECT_TRUE(polled.each_once());
  EXPECT_TRUE(polled.in_queue_order);
  EXPECT_EQ(polled.last_offset.size(), kQueues);  // the producer spread them over every queue
}

TEST_F(LitePullConsumerIntegrationTest, AssignAndSeekToBeginReadsAgain) {
  const auto bodies = send("r-", 24);
  ConsumerConfig config = consumer_config("lite_it_assign");
  config.consume_from_where = ConsumeFromWhere::kLastOffset;  // seek_to_begin, not the config, rewinds
  LitePullConsumer assigned(config);
  // An empty assignment before start; the real one once fetch_message_queues can ask the routes.
  ASSERT_TRUE(assigned.assign({}).is_ok());
  ASSERT_TRUE(assigned.start().is_ok());
  auto queues = assigned.fetch_message_queues(kTopic);
  ASSERT_TRUE(queues.is_ok()) << queues.status().to_string();
  ASSERT_EQ(queues->size(), kQueues);
  ASSERT_TRUE(assigned.assign(*queues).is_ok());
  ASSERT_TRUE(eventually([&] { return assigned.assignment().size() == kQueues; }));
  for (const auto& queue : *queues) {
    const Status sought = assigned.seek_to_begin(queue);
    ASSERT_TRUE(sought.is_ok()) << sought.to_string();
  }
  Polled first;
  poll_until({{"a", &assigned}}, first, [&] { return first.count.size() == bodies.size(); });
  ASSERT_EQ(first.count.size(), bodies.size());

  for (const auto& queue : *queues) ASSERT_TRUE(assigned.seek_to_begin(queue).is_ok());
  Polled again;
  poll_until({{"a", &assigned}}, again, [&] { return again.count.size() == bodies.size(); });
  EXPECT_EQ(again.count.size(), bodies.size());
  EXPECT_TRUE(again.each_once());
  EXPECT_TRUE(again.in_queue_order);

  const Status unowned = assigned.seek(MessageQueue{kTopic, "broker-a", 99}, 0);
  EXPECT_EQ(unowned.code(), StatusCode::kInvalidArgument) << unowned.to_string();
}

TEST_F(LitePullConsumerIntegrationTest, ARestartedConsumerResumesAfterTheCommittedOffsets) {
  ConsumerConfig config = consumer_config("lite_it_restart");
  config.auto_commit = false;
  const auto before = send("before-", 20);
  {
    auto consumer = subscribed(config);
    Polled polled;
    poll_until({{"a", consumer.get()}}, polled, [&] { return polled.count.size() == before.size(); });
    ASSERT_EQ(polled.count.size(), before.size());
    ASSERT_TRUE(consumer->commit().is_ok());
    std::int64_t committed = 0;
    for (const auto& queue : consumer->assignment()) committed += consumer->committed(queue).value_or(-1000);
    EXPECT_EQ(committed, 20);  // the offsets after every polled message, summed over the queues
    consumer->shutdown();
  }
  const auto after = send("after-", 10);
  auto restarted = subscribed(config);
  Polled polled;
  poll_until({{"b", restarted.get()}}, polled, [&] { return polled.count.size() >= after.size(); });
  std::this_thread::sleep_for(milliseconds(300));
  auto late = restarted->poll(milliseconds(300));  // anything redelivered would be here by now
  ASSERT_TRUE(late.is_ok());
  polled.add("b", *late);
  std::set<std::string> got;
  for (const auto& [body, n] : polled.count) got.insert(body);
  EXPECT_EQ(got, std::set<std::string>(after.begin(), after.end()));
  EXPECT_TRUE(polled.each_once());
}

TEST_F(LitePullConsumerIntegrationTest, ARunningConsumerFollowsAnOffsetResetByTime) {
  auto consumer = subscribed(consumer_config("lite_it_reset"));
  ASSERT_TRUE(eventually([&] { return consumer->assignment().size() == kQueues; })) << "never owned the queues";
  const auto bodies = send("reset-", 16);
  Polled polled;
  poll_until({{"a", consumer.get()}}, polled, [&] { return polled.count.size() == bodies.size(); });
  ASSERT_EQ(polled.count.size(), bodies.size());
  ASSERT_TRUE(consumer->commit().is_ok());
  // What mqadmin resetOffsetByTime does: each broker moves the group's offsets back to the first
  // message stored at or after the time and tells the running consumer, which polls from there.
  ClientApi& api = producer_->instance()->api();
  for (std::size_t i = 0; i < 2; ++i) {
    const auto reset = api.reset_offset(cluster_->broker_addr(i), kTopic, "lite_it_reset", 0);
    ASSERT_TRUE(reset.is_ok()) << reset.status().to_string();
  }
  Polled again;
  poll_until({{"a", consumer.get()}}, again, [&] { return again.count.size() == bodies.size(); });
  EXPECT_EQ(again.count.size(), bodies.size());
  EXPECT_TRUE(again.each_once());
  EXPECT_TRUE(again.in_queue_order);
}

TEST_F(LitePullConsumerIntegrationTest, PauseHoldsQueuesBackAndResumeLetsThemGo) {
  auto consumer = subscribed(consumer_config("lite_it_pause"));
  ASSERT_TRUE(eventually([&] { return consumer->assignment().size() == kQueues; }));
  std::vector<MessageQueue> of_broker_a;
  for (const auto& queue : consumer->assignment()) {
    if (queue.broker_name == "broker-a") of_broker_a.push_back(queue);
  }
  ASSERT_EQ(of_broker_a.size(), static_cast<std::size_t>(kQueuesPerBroker));
  ASSERT_TRUE(consumer->pause(of_broker_a).is_ok());
  const auto bodies = send("p-", 32);

  Polled paused;
  poll_until({{"a", consumer.get()}}, paused, [] { return false; }, milliseconds(2500));
  EXPECT_FALSE(paused.count.empty());
  for (const auto& [queue, offset] : paused.last_offset) EXPECT_EQ(queue.broker_name, "broker-b") << queue.to_string();

  ASSERT_TRUE(consumer->resume(of_broker_a).is_ok());
  poll_until({{"a", consumer.get()}}, paused, [&] { return paused.count.size() == bodies.size(); });
  EXPECT_EQ(paused.count.size(), bodies.size());
  EXPECT_TRUE(paused.each_once());
  std::set<std::string> brokers;
  for (const auto& [queue, offset] : paused.last_offset) brokers.insert(queue.broker_name);
  EXPECT_EQ(brokers, (std::set<std::string>{"broker-a", "broker-b"}));
}

TEST_F(LitePullConsumerIntegrationTest, TwoConsumersOfAGroupSplitTheQueues) {
  auto a = subscribed(consumer_config("lite_it_split"));
  auto b = subscribed(consumer_config("lite_it_split"));
  ASSERT_TRUE(eventually([&] {
    const auto of_a = a->assignment();
    const auto of_b = b->assignment();
    std::set<MessageQueue> all(of_a.begin(), of_a.end());
    all.insert(of_b.begin(), of_b.end());
    return !of_a.empty() && !of_b.empty() && of_a.size() + of_b.size() == kQueues && all.size() == kQueues;
  })) << "a and b never split the queues";

  const auto bodies = send("s-", 40);
  Polled polled;
  poll_until({{"a", a.get()}, {"b", b.get()}}, polled, [&] { return polled.count.size() == bodies.size(); });
  std::this_thread::sleep_for(milliseconds(300));
  for (auto* consumer : {a.get(), b.get()}) {
    auto late = consumer->poll(milliseconds(200));  // a duplicate would show up by now
    ASSERT_TRUE(late.is_ok());
    polled.add("late", *late);
  }
  EXPECT_EQ(polled.count.size(), bodies.size());
  EXPECT_TRUE(polled.each_once());
  std::set<std::string> consumers;
  for (const auto& [body, consumer] : polled.consumer_of) consumers.insert(consumer);
  EXPECT_EQ(consumers, (std::set<std::string>{"a", "b"}));
}

TEST_F(LitePullConsumerIntegrationTest, UnsubscribeStopsTheTopicAndTheBrokerForgetsIt) {
  constexpr const char* kOther = "LitePullOtherTopic";
  ASSERT_TRUE(
      mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 1, kOther, 2).is_ok());
  auto consumer = std::make_unique<LitePullConsumer>(consumer_config("lite_it_unsubscribe"));
  ASSERT_TRUE(consumer->subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(consumer->subscribe(kOther, "*").is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return consumer->assignment().size() == kQueues + 2; })) << "never owned the queues";
  ClientApi& api = producer_->instance()->api();
  const auto subscribed_topics = [&] {
    std::set<std::string> topics;
    auto connection = api.get_consumer_connection_list(cluster_->broker_addr(0), "lite_it_unsubscribe");
    if (connection) {
      for (const auto& [topic, subscription] : connection->subscription_table) topics.insert(topic);
    }
    return topics;
  };
  ASSERT_TRUE(eventually([&] { return subscribed_topics() == std::set<std::string>{kTopic, kOther}; }));

  ASSERT_TRUE(consumer->unsubscribe(kOther).is_ok());
  for (const auto& queue : consumer->assignment()) EXPECT_EQ(queue.topic, kTopic) << queue.to_string();
  EXPECT_TRUE(eventually([&] { return subscribed_topics() == std::set<std::string>{kTopic}; }))
      << "the broker still lists " << kOther;

  // Messages of the unsubscribed topic are not polled; the other topic's are.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(producer_->send(Message(kOther, "TagA", "other-" + std::to_string(i))).is_ok());
  const auto bodies = send("kept-", 8);
  Polled polled;
  poll_until({{"a", consumer.get()}}, polled, [&] { return polled.count.size() >= bodies.size(); });
  poll_until({{"a", consumer.get()}}, polled, [] { return false; }, milliseconds(1500));  // anything late
  std::set<std::string> got;
  for (const auto& [body, n] : polled.count) got.insert(body);
  EXPECT_EQ(got, std::set<std::string>(bodies.begin(), bodies.end()));
}

TEST_F(LitePullConsumerIntegrationTest, AQueueChangeListenerHearsOfANewQueueCount) {
  ConsumerConfig config = consumer_config("lite_it_queue_change");
  config.topic_metadata_check_interval = milliseconds(200);
  LitePullConsumer consumer(config);
  std::mutex mutex;
  std::vector<std::set<MessageQueue>> heard;
  ASSERT_TRUE(consumer
                  .register_topic_message_queue_change_listener(
                      kTopic,
                      [&](const std::string& topic, const std::set<MessageQueue>& queues) {
                        EXPECT_EQ(topic, kTopic);
                        std::lock_guard lock(mutex);
                        heard.push_back(queues);
                      })
                  .is_ok());
  ASSERT_TRUE(consumer.assign({}).is_ok());
  ASSERT_TRUE(consumer.start().is_ok());
  std::this_thread::sleep_for(milliseconds(1000));  // five checks of an unchanged topic
  {
    std::lock_guard lock(mutex);
    EXPECT_TRUE(heard.empty()) << "called " << heard.size() << " times for the queues there were at start";
  }

  // broker-a goes from 4 to 6 queues (what mqadmin updateTopic -b <broker-a> -r 6 -w 6 does).
  protocol::TopicConfig wider;
  wider.topic_name = kTopic;
  wider.read_queue_nums = 6;
  wider.write_queue_nums = 6;
  ASSERT_TRUE(producer_->instance()->api().create_topic(cluster_->broker_addr(0), wider).is_ok());
  ASSERT_TRUE(eventually(
      [&] {
        std::lock_guard lock(mutex);
        return !heard.empty();
      },
      seconds(30)))
      << "the listener never heard of the new queues";
  std::lock_guard lock(mutex);
  const std::set<MessageQueue>& now = heard.back();
  EXPECT_EQ(now.size(), kQueues + 2);
  EXPECT_TRUE(now.contains(MessageQueue{kTopic, "broker-a", 5}));
  EXPECT_TRUE(now.contains(MessageQueue{kTopic, "broker-b", 3}));
}

}  // namespace
}  // namespace mqkit::client
