// Broker-wide commands: brokerStatus (GET_BROKER_RUNTIME_INFO), getBrokerConfig
// (GET_BROKER_CONFIG) and updateBrokerConfig (UPDATE_BROKER_CONFIG), each on one broker (-b) or
// a cluster (-c); brokerConsumeStats (GET_BROKER_CONSUME_STATS) on one broker.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"

namespace mqkit::admin {

int broker_status(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster) {
  auto targets = command_targets(ctx, broker_addr, cluster, true);
  if (!targets) return ctx.fail("brokerStatus", targets.status());
  const bool with_address = !cluster.empty();
  return print_tables(
      ctx, "brokerStatus", *targets,
      [&](const std::string& address) -> client::Result<std::map<std::string, std::string>> {
        auto info = ctx.api().get_broker_runtime_info(address);
        if (!info) return info.status();
        return std::move(info->table);
      },
      [&](const BrokerAddr& broker, const std::map<std::string, std::string>& table) {
        // RocketMQ's layout: "key: value" sorted by key, the address first for a cluster.
        for (const auto& [key, value] : table) {
          if (with_address) *ctx.out << padded(broker.address, 24) << " ";
          *ctx.out << padded(key, 32) << ": " << value << "\n";
        }
      });
}

int get_broker_config(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster) {
  auto targets = command_targets(ctx, broker_addr, cluster, true);
  if (!targets) return ctx.fail("getBrokerConfig", targets.status());
  std::map<std::string, std::string> master_of;  // broker name → master address, for slave headers
  for (const auto& broker : *targets) {
    if (broker.id == 0) master_of[broker.name] = broker.address;
  }
  return print_tables(
      ctx, "getBrokerConfig", *targets,
      [&](const std::string& address) { return ctx.api().get_broker_config(address); },
      [&](const BrokerAddr& broker, const std::map<std::string, std::string>& table) {
        if (cluster.empty()) {
          *ctx.out << "============" << broker.address << "============\n";
        } else if (broker.id == 0) {
          *ctx.out << "============Master: " << broker.address << "============\n";
        } else {
          *ctx.out << "============My Master: " << master_of[broker.name] << "=====Slave: " << broker.address
                   << "============\n";
        }
        for (const auto& [key, value] : table) *ctx.out << padded(key, 50) << "=  " << value << "\n";
        *ctx.out << "\n";
      });
}

int update_broker_config(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster,
                         const std::string& key, const std::string& value) {
  auto targets = command_targets(ctx, broker_addr, cluster, false);
  if (!targets) return ctx.fail("updateBrokerConfig", targets.status());
  JsonOut json;
  json.w().StartArray();
  for (const auto& broker : *targets) {
    if (auto updated = ctx.api().update_broker_config(broker.address, {{key, value}}); !updated) {
      return ctx.fail("updateBrokerConfig " + key + " on " + broker.address, updated);
    }
    if (ctx.json) {
      json.w().StartObject();
      json.field("brokerAddr", broker.address);
      json.field(key, value);
      json.w().EndObject();
    } else {
      *ctx.out << "update broker config success, " << broker.address << "\n";
    }
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return 0;
}

int broker_consume_stats(AdminContext& ctx, const BrokerConsumeStatsOptions& options) {
  auto list = ctx.api().get_broker_consume_stats(options.broker_addr, options.only_ordered,
                                                 std::chrono::milliseconds(options.timeout_ms));
  if (!list) return ctx.fail("brokerConsumeStats " + options.broker_addr, list.status());
  // RocketMQ's tool: rows in the broker's group order, each group's queues sorted; a queue
  // nothing was consumed from (no last time) or less than -l behind is left out.
  Table table({"#Topic", "#Group", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime"});
  JsonOut json;
  json.w().StartObject();
  json.field("brokerAddr", list->broker_addr);
  json.field("totalDiff", list->total_diff);
  json.key("queues");
  json.w().StartArray();
  for (const auto& groups : list->consume_stats_list) {
    for (const auto& [group, per_topic] : groups) {
      for (const auto& stats : per_topic) {
        for (const auto& [queue, progress] : stats.offset_table) {  // a std::map: sorted
          const std::int64_t diff = progress.broker_offset - progress.consumer_offset;
          if (diff < options.min_diff || progress.last_timestamp <= 0) continue;
          if (ctx.json) {
            json.w().StartObject();
            json.field("topic", queue.topic);
            json.field("group", group);
            json.field("brokerName", queue.broker_name);
            json.field("queueId", queue.queue_id);
            json.field("brokerOffset", progress.broker_offset);
            json.field("consumerOffset", progress.consumer_offset);
            json.field("diff", diff);
            json.field("lastTimestamp", progress.last_timestamp);
            json.w().EndObject();
          } else {
            table.add({queue.topic, group, queue.broker_name, std::to_string(queue.queue_id),
                       std::to_string(progress.broker_offset), std::to_string(progress.consumer_offset),
                       std::to_string(diff), local_time(progress.last_timestamp, false)});
          }
        }
      }
    }
  }
  json.w().EndArray();
  json.w().EndObject();
  if (ctx.json) {
    json.print(*ctx.out);
  } else {
    table.print(*ctx.out);
    *ctx.out << "\nDiff Total: " << list->total_diff << "\n";
  }
  return 0;
}

}  // namespace mqkit::admin
