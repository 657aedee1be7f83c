// The push consumer against real processes (two name servers, two brokers): clustering shares
// the queues with every message delivered once and nothing lost across joins and leaves;
// broadcasting delivers everything to everyone; failed messages come back through %RETRY% and end
// in %DLQ%; offsets survive a consumer restart; orderly listeners keep per-key order.
// Intervals are shortened (rebalance, heartbeat, persist, delay levels) so each case takes
// seconds; every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kTopic = "PushTopic";
constexpr int kQueuesPerBroker = 4;

using mqkit::testing::eventually;

// What listeners saw, by message body.
class Received {
 public:
  void add(const std::string& consumer, const MessageExt& m) {
    std::lock_guard lock(mutex_);
    ++count_[m.body()];
    by_consumer_[consumer].insert(m.body());
    deliveries_.push_back(m);
  }
  std::size_t distinct() const {
    std::lock_guard lock(mutex_);
    return count_.size();
  }
  std::size_t total() const {
    std::lock_guard lock(mutex_);
    return deliveries_.size();
  }
  std::map<std::string, int> counts() const {
    std::lock_guard lock(mutex_);
    return count_;
  }
  std::set<std::string> of(const std::string& consumer) const {
    std::lock_guard lock(mutex_);
    const auto it = by_consumer_.find(consumer);
    return it == by_consumer_.end() ? std::set<std::string>{} : it->second;
  }
  std::vector<MessageExt> deliveries() const {
    std::lock_guard lock(mutex_);
    return deliveries_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> count_;
  std::map<std::string, std::set<std::string>> by_consumer_;
  std::vector<MessageExt> deliveries_;
};

class PushConsumerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    std::string levels;
    for (int i = 0; i < 18; ++i) levels += i == 0 ? "1s" : " 1s";
    const std::vector<std::string> overrides = {"broker.register_name_server_period=10s",
                                                "broker.message_delay_level=" + levels};
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = store(), .overrides = overrides}).is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-b", .store = store(), .overrides = overrides}).is_ok());
    ProducerConfig config;
    config.group = "push_it_producer";
    config.client = client_config();
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    create_topic(kTopic);
    offsets_dir_ = cluster_->directory() / "offsets";
  }

  virtual std::string store() const { return "memory"; }

  void TearDown() override {
    consumers_.clear();
    producer_.reset();
    cluster_.reset();
  }

  ClientConfig client_config() const { return mqkit::testing::fast_client_config(*cluster_); }

  ConsumerConfig consumer_config(const std::string& group) const {
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, group);
    config.consume_thread_count = 4;
    config.lock_interval = milliseconds(1000);
    config.suspend_current_queue_time = milliseconds(200);
    return config;
  }

  void create_topic(const std::string& topic) {
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 2, topic,
                                                        kQueuesPerBroker)
                    .is_ok());
  }

  // A started concurrent consumer whose listener records into `received` under `name`.
  PushConsumer& start_consumer(const std::string& name, ConsumerConfig config, Received& received,
                               std::function<ConsumeConcurrentlyStatus(const MessageExt&)> verdict = nullptr) {
    auto consumer = std::make_unique<PushConsumer>(config);
    EXPECT_TRUE(consumer->subscribe(kTopic, "*").is_ok());
    EXPECT_TRUE(consumer
                    ->register_listener([&received, name, verdict](std::span<const MessageExt> messages,
                                                                   ConsumeConcurrentlyContext&) {
                      auto status = ConsumeConcurrentlyStatus::kConsumeSuccess;
                      for (const auto& m : messages) {
                        received.add(name, m);
                        if (verdict && verdict(m) == ConsumeConcurrentlyStatus::kReconsumeLater) {
                          status = ConsumeConcurrentlyStatus::kReconsumeLater;
                        }
                      }
                      return status;
                    })
                    .is_ok());
    const Status started = consumer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    consumers_[name] = std::move(consumer);
    return *consumers_[name];
  }

  std::set<MessageQueue> owned_of_topic(const PushConsumer& consumer) const {
    std::set<MessageQueue> out;
    for (const auto& queue : consumer.owned_queues()) {
      if (queue.topic == kTopic) out.insert(queue);
    }
    return out;
  }

  // The named consumers own the topic's queues between them, each queue once.
  bool balanced(const std::vector<std::string>& names) const {
    std::set<MessageQueue> all;
    std::size_t sum = 0;
    for (const auto& name : names) {
      const auto owned = owned_of_topic(*consumers_.at(name));
      if (owned.empty()) return false;
      sum += owned.size();
      all.insert(owned.begin(), owned.end());
    }
    return sum == all.size() && all.size() == 2 * kQueuesPerBroker;
  }

  void send(const std::string& prefix, int count) {
    for (int i = 0; i < count; ++i) {
      auto sent = producer_->send(Message(kTopic, "TagA", prefix + std::to_string(i)));
      ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
    }
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
  std::map<std::string, std::unique_ptr<PushConsumer>> consumers_;
  std::filesystem::path offsets_dir_;
};

TEST_F(PushConsumerIntegrationTest, ClusteringSharesQueuesAndLosesNothingAcrossJoinsAndLeaves) {
  Received received;
  start_consumer("a", consumer_config("push_it_cluster"), received);
  start_consumer("b", consumer_config("push_it_cluster"), received);
  ASSERT_TRUE(eventually([&] { return balanced({"a", "b"}); })) << "a and b never split the queues";

  send("one-", 40);
  ASSERT_TRUE(eventually([&] { return received.distinct() == 40; })) << received.distinct() << " of 40";
  std::this_thread::sleep_for(milliseconds(500));  // a duplicate would show up by now
  for (const auto& [body, count] : received.counts()) EXPECT_EQ(count, 1) << body << " delivered " << count << " times";
  EXPECT_FALSE(received.of("a").empty());
  EXPECT_FALSE(received.of("b").empty());

  // A third consumer joins while messages keep coming: the queues are split three ways and
  // nothing is lost (a message may come twice while a queue changes hands).
  start_consumer("c", consumer_config("push_it_cluster"), received);
  send("two-", 40);
  ASSERT_TRUE(eventually([&] { return balanced({"a", "b", "c"}); })) << "the join never rebalanced";
  send("three-", 20);
  ASSERT_TRUE(eventually([&] { return received.distinct() == 100; })) << received.distinct() << " of 100";
  EXPECT_FALSE(received.of("c").empty());

  // b leaves with messages in flight: a and c take its queues over from its committed offsets.
  send("four-", 20);
  consumers_.at("b")->shutdown();
  send("five-", 20);
  ASSERT_TRUE(eventually([&] { return balanced({"a", "c"}); })) << "the leave never rebalanced";
  ASSERT_TRUE(eventually([&] { return received.distinct() == 140; })) << received.distinct() << " of 140";
}

TEST_F(PushConsumerIntegrationTest, BroadcastingDeliversEverythingToEveryConsumer) {
  Received received;
  ConsumerConfig config = consumer_config("push_it_broadcast");
  config.message_model = MessageModel::kBroadcasting;
  ConsumerConfig a_config = config;
  a_config.client.instance_name = "broadcast-a";
  start_consumer("a", a_config, received);
  start_consumer("b", config, received);
  ASSERT_TRUE(eventually([&] {
    return owned_of_topic(*consumers_.at("a")).size() == 8 && owned_of_topic(*consumers_.at("b")).size() == 8;
  }));
  send("all-", 20);
  ASSERT_TRUE(eventually([&] { return received.of("a").size() == 20 && received.of("b").size() == 20; }))
      << received.of("a").size() << " and " << received.of("b").size() << " of 20";
  // a's offsets are in its own file: with a fixed instance name it resumes where it stopped.
  const auto a_file = a_config.local_offsets_file(consumers_.at("a")->instance()->client_id());
  consumers_.at("a")->shutdown();
  EXPECT_TRUE(std::filesystem::exists(a_file)) << a_file;
  send("later-", 10);
  Received again;
  start_consumer("a2", a_config, again);
  ASSERT_TRUE(eventually([&] { return again.distinct() == 10; })) << again.distinct() << " of 10";
  std::this_thread::sleep_for(milliseconds(500));
  for (const auto& [body, count] : again.counts()) {
    EXPECT_EQ(body.rfind("later-", 0), 0u) << body << " was delivered again after the restart";
  }
  EXPECT_TRUE(eventually([&] { return received.of("b").size() == 30; }));
}

TEST_F(PushConsumerIntegrationTest, FailedMessagesComeBackThroughRetryAndEndInTheDeadLetterQueue) {
  Received received;
  ConsumerConfig config = consumer_config("push_it_retry");
  config.max_reconsume_times = 2;
  start_consumer("a", config, received, [](const MessageExt& m) {
    return m.body() == "poison" ? ConsumeConcurrentlyStatus::kReconsumeLater
                                : ConsumeConcurrentlyStatus::kConsumeSuccess;
  });
  ASSERT_TRUE(eventually([&] { return owned_of_topic(*consumers_.at("a")).size() == 8; }));
  auto sent = producer_->send(Message(kTopic, "TagA", "poison"));
  ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  send("fine-", 3);
  // The original delivery and two redeliveries through %RETRY%, with growing reconsume times.
  ASSERT_TRUE(eventually([&] { return received.counts()["poison"] >= 3; }, seconds(60)))
      << "poison delivered " << received.counts()["poison"] << " times";
  std::vector<int> times;
  for (const auto& m : received.deliveries()) {
    if (m.body() != "poison") continue;
    times.push_back(m.reconsume_times);
    EXPECT_EQ(m.topic(), kTopic);  // redeliveries show the original topic
  }
  EXPECT_EQ(times, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(received.counts()["fine-0"], 1);

  // Then it lies in %DLQ%push_it_retry on the broker that stored it.
  const std::string dlq = protocol::dlq_topic("push_it_retry");
  ClientApi& api = producer_->instance()->api();
  const std::string broker = cluster_->broker_addr(sent->message_queue.broker_name == "broker-a" ? 0 : 1);
  ASSERT_TRUE(eventually([&] {
    PullMessageRequest pull;
    pull.consumer_group = "push_it_dlq_reader";
    pull.topic = dlq;
    pull.queue_id = 0;
    pull.sys_flag = pull_sys_flag::kSubscription;
    pull.suspend_timeout_ms = 0;
    auto pulled = api.pull_message(broker, pull);
    return pulled.is_ok() && pulled->status == PullStatus::kFound && pulled->messages.size() == 1 &&
           pulled->messages[0].body() == "poison";
  })) << "poison never reached " << dlq;
  std::this_thread::sleep_for(milliseconds(1500));  // no fourth delivery after the DLQ
  EXPECT_EQ(received.counts()["poison"], 3);
}

// A listener stuck on a message past consume_timeout: the consumer sends the message back, the
// broker redelivers it through %RETRY% (delay level 3, 1 s here) and the queue's offset moves
// past it, all while the first call is still blocked.
TEST_F(PushConsumerIntegrationTest, AMessageConsumedPastTheConsumeTimeoutComesBackThroughRetry) {
  struct Blocker {
    std::mutex mutex;
    std::condition_variable cv;
    bool released = false;
    void wait() {
      std::unique_lock lock(mutex);
      cv.wait_for(lock, seconds(60), [&] { return released; });
    }
    void release() {
      {
        std::lock_guard lock(mutex);
        released = true;
      }
      cv.notify_all();
    }
  } blocker;
  std::atomic<bool> first_call_returned{false};
  Received received;
  ConsumerConfig config = consumer_config("push_it_timeout");
  config.consume_timeout = milliseconds(1000);
  PushConsumer& consumer = start_consumer("a", config, received, [&](const MessageExt& m) {
    if (m.body() == "stuck" && m.reconsume_times == 0) {
      blocker.wait();
      first_call_returned = true;
    }
    return ConsumeConcurrentlyStatus::kConsumeSuccess;
  });
  // The stuck listener returns and the consumer stops before the blocker goes, however the test ends.
  struct StopOnExit {
    Blocker& blocker;
    PushConsumer& consumer;
    ~StopOnExit() {
      blocker.release();
      consumer.shutdown();
    }
  } stop_on_exit{blocker, consumer};
  ASSERT_TRUE(eventually([&] { return owned_of_topic(consumer).size() == 8; }));
  auto sent = producer_->send(Message(kTopic, "TagA", "stuck"));
  ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  const MessageQueue queue = sent->message_queue;

  ASSERT_TRUE(eventually([&] { return received.counts()["stuck"] == 2; }, seconds(30)))
      << "stuck delivered " << received.counts()["stuck"] << " times";
  std::vector<int> times;
  for (const auto& m : received.deliveries()) {
    if (m.body() == "stuck") times.push_back(m.reconsume_times);
  }
  EXPECT_EQ(times, (std::vector<int>{0, 1}));
  EXPECT_TRUE(eventually([&] { return consumer.consume_offsets()[queue] == sent->queue_offset + 1; }))
      << "the offset of " << queue.to_string() << " stayed at " << consumer.consume_offsets()[queue];
  EXPECT_FALSE(first_call_returned.load());  // all of it happened while the listener was stuck
}

TEST_F(PushConsumerIntegrationTest, OffsetsSurviveAConsumerRestart) {
  Received first;
  start_consumer("first", consumer_config("push_it_restart"), first);
  ASSERT_TRUE(eventually([&] { return owned_of_topic(*consumers_.at("first")).size() == 8; }));
  send("before-", 20);
  ASSERT_TRUE(eventually([&] { return first.distinct() == 20; }));
  consumers_.at("first")->shutdown();  // commits what was consumed

  send("after-", 20);
  Received second;
  start_consumer("second", consumer_config("push_it_restart"), second);
  ASSERT_TRUE(eventually([&] { return second.distinct() == 20; })) << second.distinct() << " of 20";
  std::this_thread::sleep_for(milliseconds(500));
  for (const auto& [body, count] : second.counts()) {
    EXPECT_EQ(body.rfind("after-", 0), 0u) << body << " was redelivered after the restart";
    EXPECT_EQ(count, 1) << body;
  }
}

TEST_F(PushConsumerIntegrationTest, ARunningConsumerFollowsAnOffsetResetByTime) {
  Received received;
  start_consumer("a", consumer_config("push_it_reset"), received);
  ASSERT_TRUE(eventually([&] { return owned_of_topic(*consumers_.at("a")).size() == 8; }));
  send("again-", 20);
  ASSERT_TRUE(eventually([&] { return received.total() == 20; }));
  // What mqadmin resetOffsetByTime does: each broker moves the group's offsets back to the first
  // message stored at or after the time, and tells the running consumer.
  ClientApi& api = producer_->instance()->api();
  for (std::size_t i = 0; i < 2; ++i) {
    const auto reset = api.reset_offset(cluster_->broker_addr(i), kTopic, "push_it_reset", 0);
    ASSERT_TRUE(reset.is_ok()) << reset.status().to_string();
  }
  ASSERT_TRUE(eventually([&] { return received.total() == 40; })) << received.total() << " of 40";
  std::this_thread::sleep_for(milliseconds(500));
  for (const auto& [body, count] : received.counts()) EXPECT_EQ(count, 2) << body;
}

TEST_F(PushConsumerIntegrationTest, OrderlyListenerKeepsPerKeyOrderAcrossARestart) {
  auto selector = producer_->make_selector(PluginChoice{"hash"});
  ASSERT_TRUE(selector.is_ok()) << selector.status().to_string();
  const std::vector<std::string> keys = {"order-1", "order-2", "order-3", "order-4", "order-5"};
  auto send_steps = [&](int from, int to) {
    for (int step = from; step < to; ++step) {
      for (const auto& key : keys) {
        SendOptions options;
        options.selector = *selector;
        options.argument = SelectArgument::string(key);
        auto sent = producer_->send(Message(kTopic, "TagA", key + ":" + std::to_string(step)), options);
        ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
      }
    }
  };
  std::mutex mutex;
  std::map<std::string, std::vector<int>> seen;  // key → steps in delivery order
  std::atomic<int> total{0};
  auto make = [&](const std::string& name) {
    auto consumer = std::make_unique<PushConsumer>(consumer_config("push_it_orderly"));
    EXPECT_TRUE(consumer->subscribe(kTopic, "*").is_ok());
    EXPECT_TRUE(consumer
                    ->register_listener([&](std::span<const MessageExt> messages, ConsumeOrderlyContext&) {
                      for (const auto& m : messages) {
                        const auto colon = m.body().find(':');
                        std::lock_guard lock(mutex);
                        seen[m.body().substr(0, colon)].push_back(std::stoi(m.body().substr(colon + 1)));
                        ++total;
                      }
                      // A pause makes the restart land while queues are being consumed.
                      std::this_thread::sleep_for(milliseconds(20));
                      return ConsumeOrderlyStatus::kSuccess;
                    })
                    .is_ok());
    const Status started = consumer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    consumers_[name] = std::move(consumer);
  };
  make("first");
  ASSERT_TRUE(eventually([&] { return owned_of_topic(*consumers_.at("first")).size() == 8; }));
  send_steps(0, 20);
  // Restart in the middle: what the first consumer committed, the second does not see again.
  ASSERT_TRUE(eventually([&] { return total.load() >= 30; })) << total.load() << " of 30";
  consumers_.at("first")->shutdown();
  make("second");
  ASSERT_TRUE(eventually([&] { return total.load() >= 100; })) << total.load() << " of 100";
  std::this_thread::sleep_for(milliseconds(500));
  std::lock_guard lock(mutex);
  for (const auto& key : keys) {
    std::vector<int> expected(20);
    for (int i = 0; i < 20; ++i) expected[i] = i;
    EXPECT_EQ(seen[key], expected) << key;
  }
}

TEST_F(PushConsumerIntegrationTest, TagExpressionSelectsMessages) {
  Received received;
  auto consumer = std::make_unique<PushConsumer>(consumer_config("push_it_tags"));
  ASSERT_TRUE(consumer->subscribe(kTopic, "TagA || TagC").is_ok());
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    for (const auto& m : messages) received.add("a", m);
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  consumers_["a"] = std::move(consumer);
  ASSERT_TRUE(eventually([&] { return owned_of_topic(*consumers_.at("a")).size() == 8; }));
  for (const char* tag : {"TagA", "TagB", "TagC", "TagB"}) {
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(producer_->send(Message(kTopic, tag, std::string(tag) + "-" + std::to_string(i))).is_ok());
    }
  }
  ASSERT_TRUE(eventually([&] { return received.distinct() == 10; })) << received.distinct() << " of 10";
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(received.total(), 10u);
  for (const auto& m : received.deliveries()) EXPECT_NE(m.tags(), "TagB") << m.body();
}

TEST_F(PushConsumerIntegrationTest, BadInputIsRefusedWithAClearError) {
  PushConsumer no_group(consumer_config(""));
  ASSERT_TRUE(no_group.subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(no_group
                  .register_listener([](std::span<const MessageExt>, ConsumeConcurrentlyContext&) {
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  EXPECT_NE(no_group.start().message().find("consumer group is empty"), std::string::npos);

  PushConsumer consumer(consumer_config("push_it_bad_input"));
  EXPECT_EQ(consumer.subscribe(kTopic, "||").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(consumer.subscribe(kTopic, "TagA || TagB").is_ok());
  EXPECT_NE(consumer.start().message().find("no listener"), std::string::npos);
  ASSERT_TRUE(consumer
                  .register_listener([](std::span<const MessageExt>, ConsumeOrderlyContext&) {
                    return ConsumeOrderlyStatus::kSuccess;
                  })
                  .is_ok());
  EXPECT_EQ(consumer
                .register_listener([](std::span<const MessageExt>, ConsumeConcurrentlyContext&) {
                  return ConsumeConcurrentlyStatus::kConsumeSuccess;
                })
                .code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(consumer.start().is_ok());
  EXPECT_NE(consumer.start().message().find("started before"), std::string::npos);
  EXPECT_FALSE(consumer.subscribe("Other", "*").is_ok());
  consumer.shutdown();
  consumer.shutdown();  // idempotent
}

// Brokers that keep their data on disk, so that one can restart under a running consumer.
class PushConsumerBrokerRestartTest : public PushConsumerIntegrationTest {
 protected:
  std::string store() const override { return "commitlog"; }
};

TEST_F(PushConsumerBrokerRestartTest, ConsumptionGoesOnAcrossABrokerRestart) {
  Received received;
  start_consumer("a", consumer_config("push_it_broker_restart"), received);
  ASSERT_TRUE(eventually([&] { return owned_of_topic(*consumers_.at("a")).size() == 8; }));
  send("before-", 20);
  ASSERT_TRUE(eventually([&] { return received.distinct() == 20; }));
  // Offsets reach the brokers every second; the restart must not lose them either. Wait until
  // broker-a has them all (on a busy machine a fixed pause was not always enough).
  ClientApi& api = producer_->instance()->api();
  ASSERT_TRUE(eventually([&] {
    auto stats = api.get_consume_stats(cluster_->broker_addr(0), "push_it_broker_restart", kTopic);
    if (!stats.is_ok() || stats->offset_table.empty()) return false;
    for (const auto& [queue, offsets] : stats->offset_table) {
      if (offsets.consumer_offset < offsets.broker_offset) return false;
    }
    return true;
  })) << "broker-a never got the group's offsets";
  ASSERT_TRUE(cluster_->restart_broker(0).is_ok());
  send("after-", 20);  // the producer fails over to broker-b while broker-a comes back
  ASSERT_TRUE(eventually([&] { return received.distinct() == 40; })) << received.distinct() << " of 40";
  // Messages of broker-a sent after its restart are consumed too.
  std::set<std::string> on_a_after_restart;
  for (int i = 0; i < 8; ++i) {
    SendOptions options;
    options.queue = MessageQueue{kTopic, "broker-a", i % kQueuesPerBroker};
    auto sent = producer_->send(Message(kTopic, "TagA", "restarted-" + std::to_string(i)), options);
    if (sent) on_a_after_restart.insert("restarted-" + std::to_string(i));
  }
  ASSERT_FALSE(on_a_after_restart.empty());
  ASSERT_TRUE(eventually([&] { return received.distinct() == 40 + on_a_after_restart.size(); }))
      << received.distinct() << " of " << 40 + on_a_after_restart.size();
  for (const auto& [body, count] : received.counts()) {
    if (body.rfind("before-", 0) == 0) {
      EXPECT_EQ(count, 1) << body << " came again after the broker restart";
    }
  }
}

}  // namespace
}  // namespace mqkit::client
