// Store maintenance and inspection, as RocketMQ's tools name them: deleteExpiredCommitLog,
// cleanExpiredCQ and cleanUnusedTopic on one broker (-b), the brokers of a cluster (-c) or, with
// neither, every broker the name servers know (slaves too, as RocketMQ's tools do); queryCq
// (a queue's units) and haStatus (replication).
#include <iostream>
#include <thread>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/protocol/store_bodies.hpp"

namespace mqkit::admin {

namespace {

// Deleting a few 1 GiB files takes longer than a usual request.
constexpr std::chrono::milliseconds kMaintenanceTimeout{30'000};

void print_subscription(std::ostream& out, const protocol::SubscriptionData& s) {
  JsonOut json;
  json.w().StartObject();
  json.field("topic", s.topic);
  json.field("subString", s.sub_string);
  json.field("expressionType", s.expression_type);
  json.key("tagsSet"), json.w().StartArray();
  for (const auto& tag : s.tags_set) json.str(tag);
  json.w().EndArray();
  json.key("codeSet"), json.w().StartArray();
  for (const auto code : s.code_set) json.w().Int(code);
  json.w().EndArray();
  json.field("subVersion", s.sub_version);
  json.w().EndObject();
  json.print(out);
}

void print_ha_status(std::ostream& out, const std::string& address, const protocol::HaRuntimeInfo& info) {
  if (info.master) {
    out << "\n#MasterAddr\t" << address << "\n#MasterCommitLogMaxOffset\t" << info.master_commit_log_max_offset
        << "\n#SlaveNum\t" << info.ha_connection_info.size() << "\n#InSyncSlaveNum\t" << info.in_sync_slave_nums << "\n";
    Table table({"#SlaveAddr", "#SlaveAckOffset", "#Diff", "#TransferSpeed(KB/s)", "#Status", "#TransferFromWhere"});
    for (const auto& slave : info.ha_connection_info) {
      table.add({slave.addr, std::to_string(slave.slave_ack_offset), std::to_string(slave.diff),
                 fixed(static_cast<double>(slave.transferred_byte_in_second) / 1024.0, 2),
                 slave.in_sync ? "OK" : "Fall Behind", std::to_string(slave.transfer_from_where)});
    }
    table.print(out);
    return;
  }
  const protocol::HaClientRuntimeInfo& client = info.ha_client_runtime_info;
  out << "\n#MasterAddr\t" << client.master_addr << "\n#CommitLogMaxOffset\t" << client.max_offset
      << "\n#TransferSpeed(KB/s)\t" << fixed(static_cast<double>(client.transferred_byte_in_second) / 1024.0, 2)
      << "\n#LastReadTime\t" << local_time(client.last_read_timestamp, true) << "\n#LastWriteTime\t"
      << local_time(client.last_write_timestamp, true) << "\n#MasterFlushOffset\t" << client.master_flush_offset << "\n";
}

void write_ha_status(JsonOut& json, const std::string& address, const protocol::HaRuntimeInfo& info) {
  json.w().StartObject();
  json.field("brokerAddr", address);
  json.field("master", info.master);
  if (info.master) {
    json.field("masterCommitLogMaxOffset", info.master_commit_log_max_offset);
    json.field("inSyncSlaveNums", info.in_sync_slave_nums);
    json.key("slaves"), json.w().StartArray();
    for (const auto& slave : info.ha_connection_info) {
      json.w().StartObject();
      json.field("addr", slave.addr);
      json.field("slaveAckOffset", slave.slave_ack_offset);
      json.field("diff", slave.diff);
      json.field("inSync", slave.in_sync);
      json.field("transferredByteInSecond", slave.transferred_byte_in_second);
      json.field("transferFromWhere", slave.transfer_from_where);
      json.w().EndObject();
    }
    json.w().EndArray();
  } else {
    const protocol::HaClientRuntimeInfo& client = info.ha_client_runtime_info;
    json.field("masterAddr", client.master_addr);
    json.field("maxOffset", client.max_offset);
    json.field("transferredByteInSecond", client.transferred_byte_in_second);
    json.field("lastReadTimestamp", client.last_read_timestamp);
    json.field("lastWriteTimestamp", client.last_write_timestamp);
    json.field("masterFlushOffset", client.master_flush_offset);
  }
  json.w().EndObject();
}

}  // namespace

int store_maintenance(AdminContext& ctx, StoreMaintenance which, const std::string& broker_addr,
                      const std::string& cluster) {
  struct Kind {
    const char* command;
    const char* done;
    client::Result<std::string> (client::ClientApi::*request)(std::string_view, std::chrono::milliseconds);
  };
  static constexpr Kind kKinds[] = {
      {"deleteExpiredCommitLog", "delete expired commit log files on ", &client::ClientApi::delete_expired_commit_log},
      {"cleanExpiredCQ", "clean expired consume queues on ", &client::ClientApi::clean_expired_consume_queue},
      {"cleanUnusedTopic", "clean unused topics on ", &client::ClientApi::clean_unused_topic},
  };
  const Kind& kind = kKinds[static_cast<int>(which)];
  auto targets = broker_addr.empty() && cluster.empty() ? every_broker(ctx)
                                                        : command_targets(ctx, broker_addr, cluster, true);
  if (!targets) return ctx.fail(kind.command, targets.status());
  return on_every_broker(ctx, kind.command, *targets, kind.done, [&](const std::string& address) {
    return (ctx.api().*kind.request)(address, kMaintenanceTimeout);
  });
}

int query_cq(AdminContext& ctx, const QueryCqOptions& options) {
  std::string broker = options.broker_addr;
  if (broker.empty()) {
    // RocketMQ's tool asks the topic's first broker.
    auto masters = topic_masters(ctx, options.topic);
    if (!masters) return ctx.fail("queryCq", masters.status());
    broker = masters->front().second;
  }
  auto body = ctx.api().query_consume_queue(broker, options.topic, options.queue_id, options.index, options.count,
                                            options.group);
  if (!body) return ctx.fail("queryCq " + std::to_string(options.queue_id) + "@" + options.topic + " on " + broker, body.status());
  if (ctx.json) {
    *ctx.out << protocol::encode(*body) << "\n";
    return 0;
  }
  constexpr std::string_view kRule = "======================================\n";
  if (body->subscription_data) {
    *ctx.out << "Subscription data: \n";
    print_subscription(*ctx.out, *body->subscription_data);
    *ctx.out << kRule;
  }
  if (body->filter_data) *ctx.out << "Filter data: \n" << *body->filter_data << "\n" << kRule;
  *ctx.out << "Queue data: \nmax: " << body->max_queue_index << ", min: " << body->min_queue_index << "\n" << kRule;
  std::int64_t index = std::max(options.index, body->min_queue_index);
  for (const auto& unit : body->queue_data) *ctx.out << "idx: " << index++ << "\n" << protocol::to_string(unit) << "\n" << kRule;
  return 0;
}

int ha_status(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster, int interval_s) {
  auto targets = command_targets(ctx, broker_addr, cluster, false);
  if (!targets) return ctx.fail("haStatus", targets.status());
  for (bool first = true;; first = false) {
    if (!first) std::this_thread::sleep_for(std::chrono::seconds(interval_s));
    int code = 0;
    JsonOut json;
    json.w().StartArray();
    for (const auto& broker : *targets) {
      auto info = ctx.api().get_broker_ha_status(broker.address);
      if (!info) {
        code = ctx.fail("haStatus of " + broker.address, info.status());
        continue;
      }
      if (ctx.json) {
        write_ha_status(json, broker.address, *info);
      } else {
        print_ha_status(*ctx.out, broker.address, *info);
      }
    }
    json.w().EndArray();
    if (ctx.json) json.print(*ctx.out);
    ctx.out->flush();
    if (interval_s <= 0) return code;
  }
}

}  // namespace mqkit::admin
