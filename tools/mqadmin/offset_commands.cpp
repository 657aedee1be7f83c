// Consumer offsets: progress (lag per queue), resetting a group to a point in time, and the
// offsets live consumers hold in memory.
#include <charconv>
#include <chrono>
#include <iostream>
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/connection.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::admin {

namespace {

// One line of consumerProgress without a group (RocketMQ's GroupConsumeInfo).
struct GroupProgress {
  std::string group;
  std::size_t count = 0;  // consumers online
  std::int32_t min_version = 0;
  std::string consume_type;   // CONSUME_PASSIVELY / CONSUME_ACTIVELY, when online
  std::string message_model;  // CLUSTERING / BROADCASTING, when online
  double consume_tps = 0;
  std::int64_t diff_total = 0;
};

// RocketMQ prints PUSH or PULL, and the model only for push consumers.
std::string type_column(const GroupProgress& g) {
  if (g.count == 0) return "";
  return g.consume_type == "CONSUME_ACTIVELY" ? "PULL" : "PUSH";
}
std::string model_column(const GroupProgress& g) {
  return g.count != 0 && g.consume_type == "CONSUME_PASSIVELY" ? g.message_model : "";
}

// Every group that has a retry topic, with its consumers online, rate and lag, the busiest
// first (RocketMQ's consumerProgress without -g).
int every_group_progress(AdminContext& ctx) {
  auto topics = ctx.api().get_all_topic_list();
  if (!topics) return ctx.fail("consumerProgress", topics.status());
  int exit_code = 0;
  std::vector<GroupProgress> groups;
  for (const std::string& topic : topics->topic_list) {
    if (!topic.starts_with(protocol::kRetryGroupTopicPrefix)) continue;
    GroupProgress g;
    g.group = topic.substr(protocol::kRetryGroupTopicPrefix.size());
    auto brokers = topic_readers(ctx, topic);
    if (!brokers) {
      exit_code = ctx.fail("consumerProgress " + g.group, brokers.status());
      continue;
    }
    for (const auto& [name, address] : *brokers) {
      auto stats = ctx.api().get_consume_stats(address, g.group);
      if (!stats) {
        exit_code = ctx.fail("consumerProgress " + g.group + " on " + address, stats.status());
        continue;
      }
      g.consume_tps += stats->consume_tps;
      g.diff_total += protocol::total_diff(*stats);
    }
    // A group with no consumer online is answered with an error by RocketMQ's brokers and an
    // empty list by mqkit's: both are OFFLINE.
    if (auto connection = ctx.api().get_consumer_connection_list(brokers->front().second, g.group);
        connection && !connection->connection_set.empty()) {
      g.count = connection->connection_set.size();
      g.min_version = connection->connection_set.front().version;
      for (const auto& c : connection->connection_set) g.min_version = std::min(g.min_version, c.version);
      g.consume_type = connection->consume_type;
      g.message_model = connection->message_model;
    }
    groups.push_back(std::move(g));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const GroupProgress& a, const GroupProgress& b) {
    return a.count != b.count ? a.count > b.count : a.diff_total > b.diff_total;
  });
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const GroupProgress& g : groups) {
      json.w().StartObject();
      json.field("group", g.group);
      json.field("count", static_cast<std::int64_t>(g.count));
      if (g.count > 0) json.field("version", protocol::version_desc(g.min_version));
      json.field("type", type_column(g));
      json.field("model", model_column(g));
      json.field("consumeTps", g.consume_tps);
      json.field("diffTotal", g.diff_total);
      json.w().EndObject();
    }
    json.w().EndArray();
    json.print(*ctx.out);
    return exit_code;
  }
  Table table({"#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total"});
  for (const GroupProgress& g : groups) {
    table.add({g.group, std::to_string(g.count), g.count > 0 ? protocol::version_desc(g.min_version) : "OFFLINE",
               type_column(g), model_column(g), std::to_string(static_cast<std::int64_t>(g.consume_tps)),
               std::to_string(g.diff_total)});
  }
  table.print(*ctx.out);
  return exit_code;
}

}  // namespace

int consumer_progress(AdminContext& ctx, const std::string& group, const std::string& topic) {
  if (group.empty()) return every_group_progress(ctx);
  // Without a topic, the group's retry topic names the brokers that know it (RocketMQ does so).
  auto brokers = topic_readers(ctx, topic.empty() ? "%RETRY%" + group : topic);
  if (!brokers) return ctx.fail("consumerProgress " + group, brokers.status());
  protocol::ConsumeStats all;
  for (const auto& [name, address] : *brokers) {
    auto stats = ctx.api().get_consume_stats(address, group, topic);
    if (!stats) return ctx.fail("consumerProgress " + group + " on " + address, stats.status());
    all.offset_table.insert(stats->offset_table.begin(), stats->offset_table.end());
    all.consume_tps += stats->consume_tps;
  }
  const std::int64_t total_lag = protocol::total_diff(all);
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.field("group", group);
    json.key("queues");
    json.w().StartArray();
    for (const auto& [queue, offsets] : all.offset_table) {
      json.w().StartObject();
      json.field("topic", queue.topic);
      json.field("brokerName", queue.broker_name);
      json.field("queueId", queue.queue_id);
      json.field("brokerOffset", offsets.broker_offset);
      json.field("consumerOffset", offsets.consumer_offset);
      json.field("lag", offsets.broker_offset - offsets.consumer_offset);
      json.w().EndObject();
    }
    json.w().EndArray();
    json.field("totalLag", total_lag);
    json.key("consumeTps");
    json.w().Double(all.consume_tps);
    json.w().EndObject();
    json.print(*ctx.out);
    return 0;
  }
  Table table({"#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff"});
  for (const auto& [queue, offsets] : all.offset_table) {
    table.add({queue.topic, queue.broker_name, std::to_string(queue.queue_id), std::to_string(offsets.broker_offset),
               std::to_string(offsets.consumer_offset), std::to_string(offsets.broker_offset - offsets.consumer_offset)});
  }
  table.print(*ctx.out);
  *ctx.out << "\nConsume TPS: " << all.consume_tps << "\nDiff Total: " << total_lag << "\n";
  return 0;
}

namespace {

// The new offset of every queue, and whether its broker reset it (or this tool wrote it).
using ResetOffsets = std::map<client::MessageQueue, std::pair<std::int64_t, bool>>;

// Moves the group's offsets on every queue of `topic` to `when` (ms since the epoch; -1 the end
// of each queue, as RocketMQ's brokers read it).
client::Result<ResetOffsets> reset_offsets(AdminContext& ctx, const std::string& group, const std::string& topic,
                                           std::int64_t when) {
  MQKIT_ASSIGN_OR_RETURN(auto route, ctx.instance->route(topic));
  MQKIT_ASSIGN_OR_RETURN(auto masters, topic_masters(ctx, topic));
  ResetOffsets reset;
  for (const auto& [name, address] : masters) {
    if (auto by_broker = ctx.api().reset_offset(address, topic, group, when)) {
      for (const auto& [queue, offset] : *by_broker) reset[queue] = {offset, true};
      continue;
    }
    // The broker refuses when no consumer of the group is online (RocketMQ's
    // CONSUMER_NOT_ONLINE); then the offsets are searched and written one queue at a time, as
    // RocketMQ's resetOffsetByTimeOld does.
    for (const auto& queue : route->subscribe_queues) {
      if (queue.broker_name != name) continue;
      auto offset = when == -1 ? ctx.api().get_max_offset(address, queue) : ctx.api().search_offset(address, queue, when);
      if (!offset) {
        return client::Status(offset.status().code(), "offset of queue " + std::to_string(queue.queue_id) + ": " +
                                                          offset.status().message());
      }
      if (auto updated = ctx.api().update_consumer_offset(address, group, queue, *offset); !updated) {
        return client::Status(updated.code(), "update offset of queue " + std::to_string(queue.queue_id) + ": " +
                                                  updated.message());
      }
      reset[queue] = {*offset, false};
    }
  }
  return reset;
}

void print_reset_json(AdminContext& ctx, const ResetOffsets& reset) {
  JsonOut json;
  json.w().StartArray();
  for (const auto& [queue, outcome] : reset) {
    json.w().StartObject();
    json.field("brokerName", queue.broker_name);
    json.field("queueId", queue.queue_id);
    json.field("offset", outcome.first);
    json.field("resetByBroker", outcome.second);
    json.w().EndObject();
  }
  json.w().EndArray();
  json.print(*ctx.out);
}

}  // namespace

int reset_offset_by_time(AdminContext& ctx, const std::string& group, const std::string& topic,
                         const std::string& timestamp) {
  std::int64_t when = 0;
  if (timestamp == "now") {
    when = kernel::wall_clock_ms();
  } else {
    const auto* end = timestamp.data() + timestamp.size();
    auto [ptr, ec] = std::from_chars(timestamp.data(), end, when);
    if (ec != std::errc() || ptr != end || when < 0) {
      return ctx.fail("resetOffsetByTime: -s must be milliseconds since the epoch or \"now\", not \"" + timestamp + "\"");
    }
  }
  auto reset = reset_offsets(ctx, group, topic, when);
  if (!reset) return ctx.fail("resetOffsetByTime " + topic, reset.status());
  if (ctx.json) {
    print_reset_json(ctx, *reset);
    return 0;
  }
  *ctx.out << "rollback consumer offset by specified group[" << group << "], topic[" << topic << "], timestamp(long)["
           << when << "]\n";
  Table table({"#Broker Name", "#QID", "#New Offset", "#Reset By"});
  for (const auto& [queue, outcome] : *reset) {
    table.add({queue.broker_name, std::to_string(queue.queue_id), std::to_string(outcome.first),
               outcome.second ? "broker" : "mqadmin"});
  }
  table.print(*ctx.out);
  return 0;
}

int skip_accumulated_messages(AdminContext& ctx, const std::string& group, const std::string& topic) {
  auto reset = reset_offsets(ctx, group, topic, -1);
  if (!reset) return ctx.fail("skipAccumulatedMessage " + topic, reset.status());
  if (ctx.json) {
    print_reset_json(ctx, *reset);
    return 0;
  }
  Table table({"#brokerName", "#queueId", "#offset"});
  for (const auto& [queue, outcome] : *reset) {
    table.add({queue.broker_name, std::to_string(queue.queue_id), std::to_string(outcome.first)});
  }
  table.print(*ctx.out);
  return 0;
}

int get_consumer_status(AdminContext& ctx, const std::string& group, const std::string& topic,
                        const std::string& client_id) {
  // RocketMQ asks the first broker of the topic: every consumer answers with all its offsets of
  // the topic, whichever broker forwards the question.
  auto masters = topic_masters(ctx, topic);
  if (!masters) return ctx.fail("getConsumerStatus " + topic, masters.status());
  if (masters->empty()) return ctx.fail("getConsumerStatus: no master serves " + topic);
  const std::string& address = masters->front().second;
  auto status = ctx.api().get_consumer_status(address, topic, group, client_id);
  if (!status) return ctx.fail("getConsumerStatus " + group + " on " + address, status.status());
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.field("group", group);
    json.field("topic", topic);
    json.key("consumers");
    json.w().StartArray();
    for (const auto& [consumer, offsets] : *status) {
      json.w().StartObject();
      json.field("clientId", consumer);
      json.key("queues");
      json.w().StartArray();
      for (const auto& [queue, offset] : offsets) {
        json.w().StartObject();
        json.field("brokerName", queue.broker_name);
        json.field("queueId", queue.queue_id);
        json.field("offset", offset);
        json.w().EndObject();
      }
      json.w().EndArray();
      json.w().EndObject();
    }
    json.w().EndArray();
    json.w().EndObject();
    json.print(*ctx.out);
    return 0;
  }
  *ctx.out << "get consumer status from client. group=" << group << ", topic=" << topic
           << ", originClientId=" << client_id << "\n";
  Table table({"#clientId", "#brokerName", "#queueId", "#offset"});
  for (const auto& [consumer, offsets] : *status) {
    for (const auto& [queue, offset] : offsets) {
      table.add({consumer, queue.broker_name, std::to_string(queue.queue_id), std::to_string(offset)});
    }
  }
  table.print(*ctx.out);
  return 0;
}

int clone_group_offset(AdminContext& ctx, const std::string& src, const std::string& dest, const std::string& topic) {
  const std::string what = "cloneGroupOffset " + src + " -> " + dest;
  auto masters = topic_masters(ctx, topic);
  if (!masters) return ctx.fail(what, masters.status());
  JsonOut json;
  json.w().StartObject();
  json.field("srcGroup", src);
  json.field("destGroup", dest);
  json.field("topic", topic);
  json.key("queues");
  json.w().StartArray();
  for (const auto& [name, address] : *masters) {
    auto stats = ctx.api().get_consume_stats(address, src, topic);
    if (!stats) return ctx.fail(what + ": the offsets of " + src + " on " + address, stats.status());
    for (const auto& [queue, offsets] : stats->offset_table) {
      if (offsets.consumer_offset <= 0) continue;
      if (auto updated = ctx.api().update_consumer_offset(address, dest, queue, offsets.consumer_offset); !updated) {
        return ctx.fail(what + ": queue " + std::to_string(queue.queue_id) + " on " + address, updated);
      }
      json.w().StartObject();
      json.field("brokerName", queue.broker_name);
      json.field("queueId", queue.queue_id);
      json.field("offset", offsets.consumer_offset);
      json.w().EndObject();
    }
  }
  json.w().EndArray();
  json.w().EndObject();
  if (ctx.json) {
    json.print(*ctx.out);
  } else {
    // RocketMQ's CloneGroupOffsetCommand line.
    *ctx.out << "clone group offset success. srcGroup[" << src << "], destGroup=[" << dest << "], topic[" << topic
             << "]\n";
  }
  return 0;
}

}  // namespace mqkit::admin
