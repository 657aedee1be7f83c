// allocateMQ: how an allocator plugin would share a topic's queues among a group's clients —
// RocketMQ's AllocateMQSubCommand, with any allocator mqkit can load instead of only
// AllocateMessageQueueAveragely, so an allocator plugin (and its settings) can be tried against a
// live route before consumers use it.
#include <algorithm>
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/plugin/v1/allocator.hpp"

namespace mqkit::admin {

int allocate_mq(AdminContext& ctx, const AllocateOptions& options) {
  const std::string what = "allocateMQ " + options.topic;
  if (options.client_ids.empty()) return ctx.fail(what + ": -i names no client");
  auto allocator = ctx.instance->make_plugin<plugin::v1::QueueAllocator>(options.allocator);
  if (!allocator) return ctx.fail(what + ": allocator " + options.allocator.name, allocator.status());
  auto route = ctx.instance->route(options.topic);
  if (!route) return ctx.fail(what, route.status());
  // The rebalancer's inputs: readable queues and client ids, both sorted (every client computes
  // the same answer from them).
  const std::vector<client::MessageQueue>& queues = (*route)->subscribe_queues;
  std::vector<std::string> clients = options.client_ids;
  std::sort(clients.begin(), clients.end());
  clients.erase(std::unique(clients.begin(), clients.end()), clients.end());

  std::vector<std::pair<std::string, std::vector<client::MessageQueue>>> allocation;
  for (const std::string& client : options.client_ids) {
    auto owned = (*allocator)->allocate({.consumer_group = options.group, .current_client_id = client,
                                         .all_queues = queues, .all_client_ids = clients});
    if (!owned) return ctx.fail(what + ": allocating for " + client, owned.status());
    allocation.emplace_back(client, std::move(owned).value());
  }
  if (ctx.json) {
    // RocketMQ's RebalanceResult: {"result": {client: [MessageQueue]}}.
    JsonOut json;
    json.w().StartObject();
    json.key("result");
    json.w().StartObject();
    for (const auto& [client, owned] : allocation) {
      json.key(client);
      json.w().StartArray();
      for (const auto& queue : owned) {
        json.w().StartObject();
        json.field("brokerName", queue.broker_name);
        json.field("queueId", queue.queue_id);
        json.field("topic", queue.topic);
        json.w().EndObject();
      }
      json.w().EndArray();
    }
    json.w().EndObject();
    json.w().EndObject();
    json.print(*ctx.out);
    return 0;
  }
  Table table({"#Client", "#Broker Name", "#QID"});
  for (const auto& [client, owned] : allocation) {
    if (owned.empty()) table.add({client, "", ""});
    for (const auto& queue : owned) table.add({client, queue.broker_name, std::to_string(queue.queue_id)});
  }
  table.print(*ctx.out);
  return 0;
}

}  // namespace mqkit::admin
