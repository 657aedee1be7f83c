#include "client_cluster.hpp"

#include <thread>

namespace mqkit::testing {

using std::chrono::milliseconds;

client::ClientConfig fast_client_config(const LocalCluster& cluster) {
  client::ClientConfig client;
  client.namesrv_addresses = client::split_namesrv_addresses(cluster.namesrv_addrs());
  client.plugin_dirs = {MQKIT_PLUGIN_DIR};
  client.rebalance_interval = milliseconds(1000);
  client.heartbeat_broker_interval = milliseconds(1000);
  client.persist_consumer_offset_interval = milliseconds(1000);
  client.poll_name_server_interval = milliseconds(1000);
  return client;
}

client::ConcurrentListener ReceivedBodies::listener() {
  return [this](std::span<const client::MessageExt> messages, client::ConsumeConcurrentlyContext&) {
    std::lock_guard lock(mutex_);
    for (const auto& m : messages) bodies_.insert(m.body());
    return client::ConsumeConcurrentlyStatus::kConsumeSuccess;
  };
}

std::set<std::string> ReceivedBodies::bodies() const {
  std::lock_guard lock(mutex_);
  return bodies_;
}

client::ConsumerConfig fast_consumer_config(const LocalCluster& cluster, const std::string& group) {
  client::ConsumerConfig config;
  config.client = fast_client_config(cluster);
  config.group = group;
  config.consume_from_where = client::ConsumeFromWhere::kFirstOffset;
  config.broker_suspend_max_time = milliseconds(2000);
  config.consumer_timeout_when_suspend = milliseconds(5000);
  config.offset_store_dir = cluster.directory() / "offsets";
  return config;
}

plugin::v1::Status create_topic_on_brokers(client::ClientApi& api, const LocalCluster& cluster, std::size_t brokers,
                                           const std::string& topic, int queues) {
  protocol::TopicConfig config;
  config.topic_name = topic;
  config.read_queue_nums = queues;
  config.write_queue_nums = queues;
  for (std::size_t i = 0; i < brokers; ++i) {
    if (auto s = api.create_topic(cluster.broker_addr(i), config); !s) return s.with_context("creating " + topic);
  }
  const bool routed = eventually([&] {
    auto route = api.get_topic_route(topic);
    return route.is_ok() && route->queue_datas.size() == brokers;
  });
  if (!routed) return plugin::v1::Status::timeout("the name servers never routed " + topic + " to every broker");
  return plugin::v1::Status::ok();
}

}  // namespace mqkit::testing
