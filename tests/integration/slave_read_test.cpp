// Slave reads end to end: a master (broker_id 0) and its replicating slave (broker_id 1, role
// SLAVE) of broker-a, both with slave_read_enable and access_message_in_memory_max_ratio 0, so
// every pull answer that returns records names the slave (the group's
// which_broker_when_consume_slowly). The slave serves the same records; a push consumer receives
// every message and its offset reaches the master; with the master stopped, a new consumer
// still receives every message from the slave, and mqadmin's read-only commands read from the
// slave. Every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/client_api.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;

constexpr const char* kTopic = "SlaveReadTopic";
constexpr const char* kGroup = "slave_read_it_consumer";
constexpr int kMessages = 60;

class SlaveReadIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    const std::vector<std::string> slave_read = {"broker.slave_read_enable=true",
                                                 "broker.access_message_in_memory_max_ratio=0",
                                                 "broker.ha_send_heartbeat_interval=200ms"};
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .overrides = slave_read}).is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .overrides = slave_read, .broker_id = 1, .role = "SLAVE"})
                    .is_ok());
    ProducerConfig config;
    config.group = "slave_read_it_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    ClientApi& api = producer_->instance()->api();
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api, *cluster_, 1, kTopic, 1).is_ok());
    for (int i = 0; i < kMessages; ++i) ASSERT_NO_FATAL_FAILURE(send(i));
    // Replicated, and the slave knows the topic (its topic configs come from the master).
    ASSERT_TRUE(eventually([&] {
      auto slave_max = api.get_max_offset(cluster_->broker_addr(1), queue_);
      auto route = api.get_topic_route(kTopic);
      return slave_max.is_ok() && *slave_max == kMessages && pull(1, 0).is_ok() && route.is_ok() &&
             route->broker_datas.size() == 1 && route->broker_datas[0].broker_addrs.size() == 2;
    })) << "the slave never caught up with its master";
  }

  void TearDown() override {
    producer_.reset();
    cluster_.reset();
  }

  // Message i, "m<i>", sent to queue 0 of the master.
  void send(int i) {
    SendMessageRequest request;
    request.producer_group = "slave_read_it_producer";
    request.topic = kTopic;
    request.queue_id = 0;
    request.body = std::make_shared<const std::string>("m" + std::to_string(i));
    request.properties = std::string("KEYS\x01") + "key" + std::to_string(i) + "\x02";
    auto sent = producer_->instance()->api().send_message(cluster_->broker_addr(0), "broker-a", request);
    ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
    EXPECT_EQ(sent->queue_offset, i);
  }

  // One pull of queue 0 from broker i, without waiting.
  Result<PullResult> pull(std::size_t broker, std::int64_t offset) {
    PullMessageRequest request;
    request.consumer_group = kGroup;
    request.topic = kTopic;
    request.queue_offset = offset;
    request.sys_flag = pull_sys_flag::kSubscription;
    auto result = producer_->instance()->api().pull_message(cluster_->broker_addr(broker), request);
    if (result.is_ok() && result->status != PullStatus::kFound) return Status::not_found("no message found");
    return result;
  }

  // Receives until every message arrived or the bound passed; the bodies received. With a
  // `pause`, the listener holds the first message until `pause` has run: with 16 messages cached
  // (threshold 8) the consumer stops pulling, so every pull past offset 16 starts after `pause`.
  std::set<std::string> consume_all(const std::function<void()>& pause = {}) {
    std::mutex mutex;
    std::condition_variable first_batch;
    bool paused = false;
    bool released = false;
    std::set<std::string> bodies;
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, kGroup);
    config.pull_batch_size = 8;
    config.pull_threshold_for_queue = 8;
    config.consume_thread_count = 1;
    PushConsumer consumer(config);
    EXPECT_TRUE(consumer.subscribe(kTopic, "*").is_ok());
    EXPECT_TRUE(consumer
                    .register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                      std::unique_lock lock(mutex);
                      if (pause && !paused) {
                        paused = true;
                        first_batch.notify_all();
                        first_batch.wait(lock, [&] { return released; });
                      }
                      for (const auto& m : messages) bodies.insert(m.body());
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    const Status started = consumer.start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    if (!started.is_ok()) return {};
    if (pause) {
      {
        std::unique_lock lock(mutex);
        EXPECT_TRUE(first_batch.wait_for(lock, std::chrono::seconds(30), [&] { return paused; }))
            << "no first batch";
      }
      pause();
      std::lock_guard lock(mutex);
      released = true;
      first_batch.notify_all();
    }
    (void)eventually([&] {
      std::lock_guard lock(mutex);
      return bodies.size() == static_cast<std::size_t>(kMessages);
    });
    consumer.shutdown();  // persists the offset
    std::lock_guard lock(mutex);
    return bodies;
  }

  // Stops broker-a's master and waits until the name server's route names only its slave.
  void stop_master() {
    EXPECT_EQ(cluster_->broker(0).stop(), 0);
    EXPECT_TRUE(eventually([&] {
      auto route = producer_->instance()->api().get_topic_route(kTopic);
      if (!route.is_ok()) return false;
      for (const auto& broker : route->broker_datas) {
        if (broker.broker_name == "broker-a") return broker.broker_addrs.size() == 1 && broker.broker_addrs.contains(1);
      }
      return false;
    })) << "the name server never dropped the stopped master";
  }

  using AdminRun = mqkit::testing::ToolRun;
  AdminRun mqadmin(std::vector<std::string> args) {
    args.push_back("-n");
    args.push_back(cluster_->namesrv_addrs());
    return mqkit::testing::run_tool("mqadmin", args, "mqadmin-" + args.front());
  }

  const MessageQueue queue_{kTopic, "broker-a", 0};
  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
};

TEST_F(SlaveReadIntegrationTest, TheMasterNamesTheSlaveWhichServesTheSameRecords) {
  auto from_master = pull(0, 0);
  ASSERT_TRUE(from_master.is_ok()) << from_master.status().to_string();
  EXPECT_EQ(from_master->suggest_which_broker_id, 1) << "ratio 0: every read is beyond memory";
  auto from_slave = pull(1, 0);
  ASSERT_TRUE(from_slave.is_ok()) << from_slave.status().to_string();
  EXPECT_EQ(from_slave->suggest_which_broker_id, 1);
  ASSERT_EQ(from_slave->messages.size(), from_master->messages.size());
  for (std::size_t i = 0; i < from_master->messages.size(); ++i) {
    EXPECT_EQ(from_slave->messages[i].body(), from_master->messages[i].body());
    EXPECT_EQ(from_slave->messages[i].queue_offset, from_master->messages[i].queue_offset);
  }
}

TEST_F(SlaveReadIntegrationTest, ASlowConsumerReceivesEveryMessageAndItsOffsetReachesTheMaster) {
  EXPECT_EQ(consume_all().size(), static_cast<std::size_t>(kMessages));
  auto committed = producer_->instance()->api().query_consumer_offset(cluster_->broker_addr(0), kGroup, queue_);
  ASSERT_TRUE(committed.is_ok()) << committed.status().to_string();
  EXPECT_EQ(*committed, kMessages) << "the offset reaches the master";
}

// RocketMQ 4.x: a running consumer keeps reading a slave whose master went away (a new one could
// not, as it reads its starting offset from the master).
TEST_F(SlaveReadIntegrationTest, WithItsMasterStoppedTheSlaveServesTheRest) {
  const auto bodies = consume_all([&] { stop_master(); });
  EXPECT_EQ(bodies.size(), static_cast<std::size_t>(kMessages));
}

// A consumer that starts while the master is down reads its group's offsets from the slave and
// commits there, as RocketMQ's RemoteBrokerOffsetStore does; the slave keeps them until it can
// synchronize with its master again.
TEST_F(SlaveReadIntegrationTest, WithItsMasterStoppedANewConsumerReadsAndCommitsOffsetsOnTheSlave) {
  stop_master();
  EXPECT_EQ(consume_all().size(), static_cast<std::size_t>(kMessages));
  auto offset = producer_->instance()->api().query_consumer_offset(cluster_->broker_addr(1), kGroup, queue_);
  ASSERT_TRUE(offset.is_ok()) << offset.status().to_string();
  EXPECT_EQ(*offset, kMessages) << "the consumer's shutdown did not commit its offset to the slave";
}

// A message that fails while its broker's master is down cannot be sent back to that broker: the
// consumer sends it to its group's retry topic on another broker instead, as a new message
// (RocketMQ's sendMessageBackAsNormalMessage), and it comes back from there.
TEST_F(SlaveReadIntegrationTest, WithItsMasterStoppedAFailedMessageComesBackThroughAnotherBroker) {
  // broker-b hosts the topic too, so the consumer heartbeats to it (creating the group's retry
  // topic there); its delay levels are all 1 s, so the redelivery (level 3) is quick.
  ASSERT_TRUE(cluster_->add_broker({.name = "broker-b", .overrides = {"broker.message_delay_level=" + std::string(
                                                                          "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s")}})
                  .is_ok());
  protocol::TopicConfig topic;
  topic.topic_name = kTopic;
  topic.read_queue_nums = topic.write_queue_nums = 1;
  ASSERT_TRUE(producer_->instance()->api().create_topic(cluster_->broker_addr(2), topic).is_ok());
  ASSERT_TRUE(eventually([&] {
    auto route = producer_->instance()->api().get_topic_route(kTopic);
    return route.is_ok() && route->broker_datas.size() == 2;
  })) << "broker-b never appeared in the topic's route";
  stop_master();

  std::mutex mutex;
  std::optional<MessageExt> redelivered;
  ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, "slave_read_send_back_group");
  PushConsumer consumer(config);
  ASSERT_TRUE(consumer.subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(consumer
                  .register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    std::lock_guard lock(mutex);
                    for (const auto& m : messages) {
                      if (m.body() != "m7") continue;
                      if (m.reconsume_times == 0) return ConsumeConcurrentlyStatus::kReconsumeLater;
                      if (!redelivered) redelivered = m;
                    }
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer.start().is_ok());
  EXPECT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return redelivered.has_value();
  })) << "m7 never came back";
  consumer.shutdown();
  std::lock_guard lock(mutex);
  ASSERT_TRUE(redelivered);
  EXPECT_EQ(redelivered->broker_name, "broker-b") << "not redelivered through broker-b's retry topic";
  EXPECT_EQ(redelivered->reconsume_times, 1);
  EXPECT_EQ(redelivered->topic(), kTopic);
  EXPECT_EQ(redelivered->keys(), "key7");
}

// RocketMQ's tools read from a slave while its master is down (BrokerData.selectBrokerAddr).
TEST_F(SlaveReadIntegrationTest, WithItsMasterStoppedMqadminReadsFromTheSlave) {
  EXPECT_EQ(consume_all().size(), static_cast<std::size_t>(kMessages));  // the group has offsets
  ASSERT_TRUE(eventually([&] {  // replicated to the slave
    auto offset = producer_->instance()->api().query_consumer_offset(cluster_->broker_addr(1), kGroup, queue_);
    return offset.is_ok() && *offset == kMessages;
  })) << "the group's offset never reached the slave";
  stop_master();

  const AdminRun status = mqadmin({"topicStatus", "-t", kTopic, "--json"});
  EXPECT_EQ(status.code, 0) << status.err;
  EXPECT_NE(status.out.find("\"maxOffset\":60"), std::string::npos) << status.out;

  const AdminRun by_key = mqadmin({"queryMsgByKey", "-t", kTopic, "-k", "key7"});
  EXPECT_EQ(by_key.code, 0) << by_key.err;
  EXPECT_NE(by_key.out.find("key7"), std::string::npos) << by_key.out;

  const AdminRun printed = mqadmin({"printMsg", "-t", kTopic, "-d", "true"});
  EXPECT_EQ(printed.code, 0) << printed.err;
  EXPECT_NE(printed.out.find("m59"), std::string::npos) << printed.out;

  const AdminRun by_offset = mqadmin({"queryMsgByOffset", "-t", kTopic, "-b", "broker-a", "-i", "0", "-o", "3"});
  EXPECT_EQ(by_offset.code, 0) << by_offset.err;
  EXPECT_NE(by_offset.out.find("key3"), std::string::npos) << by_offset.out;

  const AdminRun progress = mqadmin({"consumerProgress", "-g", kGroup, "-t", kTopic, "--json"});
  EXPECT_EQ(progress.code, 0) << progress.err;
  EXPECT_NE(progress.out.find("\"consumerOffset\":60"), std::string::npos) << progress.out;

  const AdminRun consumed = mqadmin({"consumeMessage", "-t", kTopic, "-c", "5"});
  EXPECT_EQ(consumed.code, 0) << consumed.err;
  EXPECT_NE(consumed.out.find("key4"), std::string::npos) << consumed.out;
  // A named group commits its offsets, which only the master may take.
  const AdminRun committing = mqadmin({"consumeMessage", "-t", kTopic, "-g", kGroup, "-c", "5"});
  EXPECT_NE(committing.code, 0) << committing.out;
  EXPECT_NE(committing.err.find("no master (-g commits offsets) for broker broker-a"), std::string::npos)
      << committing.err;
}

}  // namespace
}  // namespace mqkit::client
