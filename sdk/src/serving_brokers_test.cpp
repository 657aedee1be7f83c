// The producer tells its fault strategy to forget a broker once routes show it hosts none of the
// producer's topics any more.
#include "serving_brokers.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "message_sender.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

using testing::FakeCluster;

TopicRouteInfo route_on(std::string_view topic, std::initializer_list<const char*> brokers) {
  protocol::TopicRouteData route;
  for (const char* broker : brokers) route.queue_datas.push_back({broker, 4, 4, 6, 0});
  return make_route_info(topic, std::move(route), false);
}

TEST(ServingBrokersTest, ABrokerIsGoneWhenNoFollowedTopicHasItAnyMore) {
  ServingBrokers serving;
  serving.track("T", route_on("T", {"broker-a", "broker-b"}));
  serving.track("U", route_on("U", {"broker-b"}));
  serving.track("T", route_on("T", {}));  // followed already: the first route stays
  EXPECT_TRUE(serving.update("V", route_on("V", {})).empty());  // not followed
  EXPECT_TRUE(serving.update("T", route_on("T", {"broker-a"})).empty());  // broker-b still hosts U
  EXPECT_EQ(serving.update("U", route_on("U", {"broker-c"})), std::vector<std::string>{"broker-b"});
  EXPECT_EQ(serving.update("T", route_on("T", {})), std::vector<std::string>{"broker-a"});
  EXPECT_TRUE(serving.update("T", route_on("T", {"broker-a"})).empty());  // coming back is no news
}

// Records what the sender tells it.
class RecordingFaultStrategy final : public plugin::v1::FaultStrategy {
 public:
  bool is_available(std::string_view) const noexcept override { return true; }
  void update(std::string_view, std::int64_t, bool) noexcept override {}
  std::optional<std::string> pick_one_at_least() noexcept override { return std::nullopt; }
  void remove(std::string_view broker_name) noexcept override {
    std::lock_guard lock(mutex_);
    removed_.emplace_back(broker_name);
  }
  std::vector<std::string> removed() const {
    std::lock_guard lock(mutex_);
    return removed_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> removed_;
};

TEST(MessageSenderTest, TellsTheFaultStrategyWhenABrokerLeavesEveryRouteOfItsTopics) {
  FakeCluster cluster;
  cluster.add_broker("broker-a", "10.0.0.1:10911");
  cluster.add_broker("broker-b", "10.0.0.2:10911");
  cluster.add_topic("T", "broker-a", 2);
  cluster.add_topic("T", "broker-b", 2);
  cluster.add_topic("C", "broker-b", 2);  // a topic the producer does not send to
  ProducerConfig config;
  config.group = "PG";
  config.client.namesrv_addresses = {FakeCluster::kNamesrv};
  config.client.client_ip = "10.0.0.9";
  config.client.instance_name = "serving-brokers-test";
  config.client.plugin_dirs = {MQKIT_PLUGIN_DIR};
  auto instance = ClientInstance::create(config.client, cluster.transport());
  ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
  auto selector = (*instance)->make_plugin<plugin::v1::QueueSelector>(config.client.selector);
  ASSERT_TRUE(selector.is_ok()) << selector.status().to_string();
  auto faults = std::make_shared<RecordingFaultStrategy>();
  const SendHooks no_hooks;
  MessageSender sender(**instance, config, *selector, faults, no_hooks);
  auto message = prepare_message(Message("T", "body"), config);
  ASSERT_TRUE(message.is_ok()) << message.status().to_string();
  const auto started = MessageSender::Clock::now();
  ASSERT_TRUE(sender.send(std::make_shared<const PreparedMessage>(std::move(message).value()), SendTarget{}, started,
                          started + std::chrono::seconds(3))
                  .is_ok());
  ASSERT_TRUE((*instance)->update_route("C").is_ok());

  cluster.remove_topic("C", "broker-b");
  cluster.add_topic("C", "broker-a", 2);
  ASSERT_TRUE((*instance)->update_route("C").is_ok());
  EXPECT_TRUE(faults->removed().empty());  // not a topic of the producer's
  cluster.remove_topic("T", "broker-b");
  ASSERT_TRUE((*instance)->update_route("T").is_ok());
  EXPECT_EQ(faults->removed(), std::vector<std::string>{"broker-b"});
  ASSERT_TRUE((*instance)->update_route("T").is_ok());
  EXPECT_EQ(faults->removed().size(), 1u);  // told once
}

}  // namespace
}  // namespace mqkit::client
