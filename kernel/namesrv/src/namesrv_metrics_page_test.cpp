#include "mqkit/namesrv/namesrv_metrics_page.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "exposition_page.hpp"
#include "mqkit/namesrv/namesrv_processor.hpp"
#include "mqkit/protocol/codes.hpp"
#include "registration_test_support.hpp"

namespace mqkit::namesrv {
namespace {

using mqkit::testing::sample_value;
using testing::registration;

TEST(NamesrvMetricsPageTest, CountsClustersLiveBrokersAndTopics) {
  RouteInfoManager routes;
  metrics::RpcLatency rpc;
  const std::string empty = namesrv_metrics_page(routes, rpc);
  EXPECT_EQ(sample_value(empty, "mqkit_namesrv_cluster_number", {{"node_type", "nameserver"}}), 0);
  EXPECT_EQ(sample_value(empty, "mqkit_namesrv_topic_number"), 0);

  routes.register_broker(registration("c1", "broker-a", "10.0.0.1:10911", 0, {"T", "U"}), 0);
  routes.register_broker(registration("c1", "broker-a", "10.0.0.2:10911", 1, {"T"}), 0);
  routes.register_broker(registration("c1", "broker-b", "10.0.0.3:10911", 0, {"T"}), 0);
  routes.register_broker(registration("c2", "broker-c", "10.0.0.4:10911", 0, {"V"}), 0);
  const std::string page = namesrv_metrics_page(routes, rpc);
  EXPECT_EQ(sample_value(page, "mqkit_namesrv_cluster_number"), 2);
  EXPECT_EQ(sample_value(page, "mqkit_namesrv_broker_number", {{"cluster", "c1"}, {"node_type", "nameserver"}}), 3);
  EXPECT_EQ(sample_value(page, "mqkit_namesrv_broker_number", {{"cluster", "c2"}}), 1);
  EXPECT_EQ(sample_value(page, "mqkit_namesrv_topic_number"), 3);

  routes.unregister_broker("c2", "10.0.0.4:10911", "broker-c", 0);
  const std::string after = namesrv_metrics_page(routes, rpc);
  EXPECT_EQ(sample_value(after, "mqkit_namesrv_cluster_number"), 1);
  EXPECT_EQ(sample_value(after, "mqkit_namesrv_broker_number", {{"cluster", "c2"}}), std::nullopt);
  EXPECT_EQ(sample_value(after, "mqkit_namesrv_topic_number"), 2);
}

// A channel that keeps what is sent through it.
class KeepingChannel final : public plugin::v1::Channel {
 public:
  std::uint64_t id() const noexcept override { return 7; }
  std::string remote_address() const noexcept override { return "127.0.0.1:50000"; }
  std::string local_address() const noexcept override { return "127.0.0.1:9876"; }
  bool is_open() const noexcept override { return true; }
  plugin::v1::Status send(plugin::v1::RemotingCommand command) noexcept override {
    std::lock_guard lock(mutex_);
    sent_.push_back(std::move(command));
    return plugin::v1::Status::ok();
  }
  void invoke(plugin::v1::RemotingCommand, std::chrono::milliseconds, plugin::v1::ResponseCallback done) noexcept override {
    done(plugin::v1::Status::unavailable("not here"));
  }
  void close() noexcept override {}
  std::size_t sent() {
    std::lock_guard lock(mutex_);
    return sent_.size();
  }

 private:
  std::mutex mutex_;
  std::vector<plugin::v1::RemotingCommand> sent_;
};

TEST(NamesrvMetricsPageTest, RequestsAreCountedPerRequestAndResponseCode) {
  RouteInfoManager routes;
  KvConfigManager kv;
  metrics::RpcLatency rpc;
  NameServerProcessor processor(routes, kv, {}, [] { return std::int64_t{0}; });
  processor.record_latency_in(&rpc);
  auto channel = std::make_shared<KeepingChannel>();
  for (int i = 0; i < 3; ++i) {
    auto route = plugin::v1::RemotingCommand::request(protocol::request_code::kGetRouteInfoByTopic);
    route.ext_fields.set("topic", "nope");
    processor.on_request(channel, route);
  }
  processor.on_request(channel, plugin::v1::RemotingCommand::request(protocol::request_code::kGetBrokerClusterInfo));
  const std::string page = namesrv_metrics_page(routes, rpc);
  EXPECT_EQ(sample_value(page, "rocketmq_rpc_latency_count",
                         {{"node_type", "nameserver"}, {"request_code", "get_routeinfo_by_topic"},
                          {"response_code", "topic_not_exist"}, {"result", "success"}}),
            3);
  EXPECT_EQ(sample_value(page, "rocketmq_rpc_latency_count",
                         {{"request_code", "get_broker_cluster_info"}, {"response_code", "success"}}),
            1);
  EXPECT_EQ(channel->sent(), 4u);
}

}  // namespace
}  // namespace mqkit::namesrv
