#include "topic_setup.hpp"

#include <thread>

namespace mqkit::bench {

using client::Status;

namespace {

bool route_complete(client::ClientApi& api, const std::string& topic, std::size_t brokers, int queues) {
  auto route = api.get_topic_route(topic);
  if (!route) return false;
  std::size_t ready = 0;
  for (const auto& queue_data : route->queue_datas) {
    if (queue_data.write_queue_nums == queues && queue_data.read_queue_nums == queues) ++ready;
  }
  return ready >= brokers;
}

}  // namespace

Status create_topics(client::ClientApi& api, const std::vector<std::string>& topics, int queues,
                     std::chrono::milliseconds route_timeout) {
  auto cluster = api.get_cluster_info();
  if (!cluster) return cluster.status().with_context("cluster info");
  std::vector<std::string> masters;
  for (const auto& [name, broker] : cluster->broker_addr_table) {
    if (auto master = broker.broker_addrs.find(0); master != broker.broker_addrs.end()) masters.push_back(master->second);
  }
  if (masters.empty()) return Status::unavailable("the name server knows no master broker");
  for (const std::string& topic : topics) {
    protocol::TopicConfig config;
    config.topic_name = topic;
    config.read_queue_nums = config.write_queue_nums = queues;
    for (const std::string& address : masters) {
      if (Status s = api.create_topic(address, config); !s) return s.with_context("creating " + topic + " on " + address);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + route_timeout;
  for (const std::string& topic : topics) {
    while (!route_complete(api, topic, masters.size(), queues)) {
      if (std::chrono::steady_clock::now() > deadline) {
        return Status::unavailable("the route of " + topic + " does not show " + std::to_string(queues) +
                                   " queues on every broker yet");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return Status::ok();
}

std::vector<std::string> topic_names(const std::string& name, int count) {
  if (count <= 1) return {name};
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back(name + "-" + std::to_string(i));
  return names;
}

}  // namespace mqkit::bench
