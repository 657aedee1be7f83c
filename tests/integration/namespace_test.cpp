// Client namespaces against a real name server and broker: a producer and a push consumer with
// namespace ns1 exchange messages on topic T, which the broker stores as ns1%T; a producer and a
// consumer without a namespace, with the same topic and group names, exchange theirs on T, and
// neither consumer sees the other's messages.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;

constexpr int kMessages = 5;

// What one consumer's listener saw: bodies and topics.
struct Seen {
  std::mutex mutex;
  std::set<std::string> bodies;
  std::set<std::string> topics;
  std::size_t count() {
    std::lock_guard lock(mutex);
    return bodies.size();
  }
};

class NamespaceIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>("namespace");
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = "memory"}).is_ok());
  }

  std::unique_ptr<Producer> start_producer(const std::string& name_space) {
    ProducerConfig config;
    config.group = "P";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    config.client.instance_name = "producer-" + (name_space.empty() ? std::string("plain") : name_space);
    config.client.name_space = name_space;
    auto producer = std::make_unique<Producer>(config);
    const Status started = producer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    return producer;
  }

  std::unique_ptr<PushConsumer> start_consumer(const std::string& name_space, Seen& seen) {
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, "G");
    config.client.instance_name = "consumer-" + (name_space.empty() ? std::string("plain") : name_space);
    config.client.name_space = name_space;
    auto consumer = std::make_unique<PushConsumer>(config);
    EXPECT_TRUE(consumer->subscribe("T", "*").is_ok());
    EXPECT_TRUE(consumer
                    ->register_listener([&seen](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                      std::lock_guard lock(seen.mutex);
                      for (const auto& m : messages) {
                        seen.bodies.insert(m.body());
                        seen.topics.insert(m.topic());
                      }
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    const Status started = consumer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    return consumer;
  }

  // Messages the broker stores in `topic`, summed over its queues.
  std::int64_t stored_in(Producer& producer, const std::string& topic) {
    auto stats = producer.instance()->api().get_topic_stats(cluster_->broker_addr(0), topic);
    EXPECT_TRUE(stats.is_ok()) << topic << ": " << stats.status().to_string();
    if (!stats) return -1;
    std::int64_t sum = 0;
    for (const auto& [queue, offsets] : stats->offset_table) sum += offsets.max_offset - offsets.min_offset;
    return sum;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
};

TEST_F(NamespaceIntegrationTest, ANamespacedProducerAndConsumerShareTopicTWithoutMixingWithPlainClients) {
  auto namespaced = start_producer("ns1");
  auto plain = start_producer("");
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(plain->instance()->api(), *cluster_, 1, "ns1%T", 2).is_ok());
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(plain->instance()->api(), *cluster_, 1, "T", 2).is_ok());

  Seen in_namespace;
  Seen outside;
  auto namespaced_consumer = start_consumer("ns1", in_namespace);
  auto plain_consumer = start_consumer("", outside);

  for (int i = 0; i < kMessages; ++i) {
    auto sent = namespaced->send(Message("T", "ns-" + std::to_string(i)));
    ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
    EXPECT_EQ(sent->message_queue.topic, "T");
    ASSERT_TRUE(plain->send(Message("T", "plain-" + std::to_string(i))).is_ok());
  }
  // The broker has them under the wire names: ns1%T holds the namespaced ones, T the others.
  EXPECT_EQ(stored_in(*plain, "ns1%T"), kMessages);
  EXPECT_EQ(stored_in(*plain, "T"), kMessages);
  auto route = plain->instance()->api().get_topic_route("ns1%T");
  ASSERT_TRUE(route.is_ok()) << route.status().to_string();
  EXPECT_FALSE(route->queue_datas.empty());

  ASSERT_TRUE(eventually([&] { return in_namespace.count() == kMessages && outside.count() == kMessages; }))
      << in_namespace.count() << " " << outside.count();
  std::set<std::string> expected_namespaced;
  std::set<std::string> expected_plain;
  for (int i = 0; i < kMessages; ++i) {
    expected_namespaced.insert("ns-" + std::to_string(i));
    expected_plain.insert("plain-" + std::to_string(i));
  }
  std::lock_guard lock_in(in_namespace.mutex);
  std::lock_guard lock_out(outside.mutex);
  EXPECT_EQ(in_namespace.bodies, expected_namespaced);
  EXPECT_EQ(outside.bodies, expected_plain);
  EXPECT_EQ(in_namespace.topics, std::set<std::string>{"T"});  // without the namespace
  EXPECT_EQ(outside.topics, std::set<std::string>{"T"});
}

}  // namespace
}  // namespace mqkit::client
