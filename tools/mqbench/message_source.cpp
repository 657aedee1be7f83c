#include "message_source.hpp"

namespace mqkit::bench {

using client::MessageQueue;
using client::Status;

client::Result<std::vector<ConsumerClient>> connect_consumers(const SourceSettings& settings) {
  if (settings.consumers < 1) return Status::invalid_argument("at least one consumer is needed");
  std::vector<ConsumerClient> clients;
  for (int i = 0; i < settings.consumers; ++i) {
    client::ClientConfig config = settings.client;
    config.instance_name = "mqbench-consumer-" + std::to_string(i);  // its own connections
    auto instance = client::ClientInstance::create(config.resolved());
    if (!instance) return instance.status();
    clients.push_back(ConsumerClient{std::move(instance).value(), {}});
  }
  for (const std::string& topic : settings.topics) {
    for (auto& c : clients) {  // every instance learns the brokers' addresses
      auto route = c.instance->route(topic);
      if (!route) return route.status().with_context("route of " + topic);
    }
  }
  return clients;
}

std::vector<MessageQueue> all_queues(ConsumerClient& client, const std::vector<std::string>& topics) {
  std::vector<MessageQueue> queues;
  for (const std::string& topic : topics) {
    auto route = client.instance->cached_route(topic);
    if (!route) continue;
    queues.insert(queues.end(), route->subscribe_queues.begin(), route->subscribe_queues.end());
  }
  return queues;
}

client::Result<QueueEnd> queue_end(client::ClientInstance& instance, const MessageQueue& queue) {
  QueueEnd end;
  end.broker_address = instance.find_broker_master(queue.broker_name);
  if (end.broker_address.empty()) return Status::unavailable("no master address for broker " + queue.broker_name);
  auto max = instance.api().get_max_offset(end.broker_address, queue);
  if (!max) return max.status().with_context("max offset of " + queue.to_string());
  end.offset = *max;
  return end;
}

}  // namespace mqkit::bench
