// Slave reads end to end: a master (broker_id 0) and a slave (broker_id 1) of broker-a, both with
// slave_read_enable and access_message_in_memory_max_ratio 0, so every pull answer that returns
// records tells the consumer to read from the slave. A push consumer must still receive every
// message, some of them served by the slave, and its offsets must reach the master.
//
// mqkit has no master-to-slave replication yet, so the test writes every message to both brokers,
// one queue, in the same order: the slave then holds the same queue offsets a replica would. A
// record's store host tells which broker served it (a real replica would carry the master's). Every
// wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>

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
    for (const char* id : {"0", "1"}) {
      ASSERT_TRUE(cluster_
                      ->add_broker({.name = "broker-a",
                                    .overrides = {std::string("broker.broker_id=") + id, "broker.slave_read_enable=true",
                                                  "broker.access_message_in_memory_max_ratio=0"}})
                      .is_ok());
    }
    ProducerConfig config;
    config.group = "slave_read_it_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    ClientApi& api = producer_->instance()->api();
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api, *cluster_, 1, kTopic, 1).is_ok());
    protocol::TopicConfig topic;
    topic.topic_name = kTopic;
    topic.read_queue_nums = 1;
    topic.write_queue_nums = 1;
    ASSERT_TRUE(api.create_topic(cluster_->broker_addr(1), topic).is_ok());
    ASSERT_TRUE(eventually([&] {
      auto route = api.get_topic_route(kTopic);
      return route.is_ok() && route->broker_datas.size() == 1 && route->broker_datas[0].broker_addrs.size() == 2;
    })) << "the name server never routed the slave";
  }

  void TearDown() override {
    producer_.reset();
    cluster_.reset();
  }

  // Message i, "m<i>", written to queue 0 of the master and then of the slave.
  void send_to_both(int i) {
    SendMessageRequest request;
    request.producer_group = "slave_read_it_producer";
    request.topic = kTopic;
    request.queue_id = 0;
    request.body = std::make_shared<const std::string>("m" + std::to_string(i));
    for (std::size_t broker = 0; broker < 2; ++broker) {
      auto sent = producer_->instance()->api().send_message(cluster_->broker_addr(broker), "broker-a", request);
      ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
      EXPECT_EQ(sent->queue_offset, i);
    }
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
};

TEST_F(SlaveReadIntegrationTest, ASlowConsumerReadsFromTheSlaveAndReceivesEveryMessage) {
  for (int i = 0; i < kMessages; ++i) ASSERT_NO_FATAL_FAILURE(send_to_both(i));

  std::mutex mutex;
  std::set<std::string> bodies;
  std::set<std::string> store_hosts;
  ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, kGroup);
  config.pull_batch_size = 8;
  config.consume_thread_count = 1;
  PushConsumer consumer(config);
  ASSERT_TRUE(consumer.subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(consumer
                  .register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    std::lock_guard lock(mutex);
                    for (const auto& m : messages) {
                      bodies.insert(m.body());
                      store_hosts.insert(m.store_host);
                    }
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  const Status started = consumer.start();
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  const bool all = eventually([&] {
    std::lock_guard lock(mutex);
    return bodies.size() == static_cast<std::size_t>(kMessages);
  });
  consumer.shutdown();  // persists the offset

  std::lock_guard lock(mutex);
  EXPECT_TRUE(all) << bodies.size() << " of " << kMessages << " messages received";
  EXPECT_TRUE(store_hosts.contains(cluster_->broker_addr(0))) << "the first pull goes to the master";
  EXPECT_TRUE(store_hosts.contains(cluster_->broker_addr(1))) << "later pulls go to the suggested slave";
  const MessageQueue queue{kTopic, "broker-a", 0};
  auto committed = producer_->instance()->api().query_consumer_offset(cluster_->broker_addr(0), kGroup, queue);
  ASSERT_TRUE(committed.is_ok()) << committed.status().to_string();
  EXPECT_EQ(*committed, kMessages) << "the offset reaches the master";
}

}  // namespace
}  // namespace mqkit::client
