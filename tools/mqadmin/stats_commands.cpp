// statsAll: for every topic and each group consuming it, the backlog and the last minute's and
// day's traffic, summed over the topic's masters (RocketMQ's StatsAllSubCommand).
#include <algorithm>
#include <optional>
#include <ostream>
#include <set>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/protocol/broker_stats_data.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::admin {

namespace {

// The minute's rate and the last day's count of one stats item, summed over brokers.
struct Traffic {
  double tps = 0;
  std::int64_t last_day = 0;
};

struct StatsRow {
  std::string topic;
  std::optional<std::string> group;  // none: nobody consumes the topic
  std::int64_t accumulation = 0;
  Traffic in;
  Traffic out;
};

// Gathers figures from a topic's masters. A broker that fails is named on err once per call and
// makes the command exit 1; its share counts as zero so the other brokers' rows still print.
class Gatherer {
 public:
  explicit Gatherer(AdminContext& ctx) : ctx_(ctx) {}

  Traffic traffic(const Masters& masters, std::string_view stats_name, const std::string& key) {
    Traffic sum;
    for (const auto& [name, address] : masters) {
      auto data = ctx_.api().view_broker_stats_data(address, stats_name, key);
      if (!data) {
        failed(std::string(stats_name) + " " + key + " on " + address, data.status());
        continue;
      }
      if (!*data) continue;  // nothing counted under the key on that broker
      sum.tps += (*data)->stats_minute.tps;
      sum.last_day += protocol::sum_of_last_day(**data);
    }
    return sum;
  }

  std::set<std::string> groups(const Masters& masters, const std::string& topic) {
    return groups_consuming(ctx_, masters, topic, ok_);
  }

  // Messages the group has not consumed yet; a group ahead of the broker (offsets from before a
  // truncation) counts as none, as in RocketMQ.
  std::int64_t accumulation(const Masters& masters, const std::string& group, const std::string& topic) {
    std::int64_t diff = 0;
    for (const auto& [name, address] : masters) {
      auto stats = ctx_.api().get_consume_stats(address, group, topic);
      if (!stats) {
        failed("consume stats of " + group + " on " + address, stats.status());
        continue;
      }
      diff += protocol::total_diff(*stats);
    }
    return std::max<std::int64_t>(diff, 0);
  }

  void failed(const std::string& what, const client::Status& status) {
    ctx_.fail(what, status);
    ok_ = false;
  }
  bool ok() const { return ok_; }

 private:
  AdminContext& ctx_;
  bool ok_ = true;
};

void print_rows(AdminContext& ctx, const std::vector<StatsRow>& rows) {
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const StatsRow& row : rows) {
      json.w().StartObject();
      json.field("topic", row.topic);
      if (row.group) json.field("group", *row.group);
      json.field("accumulation", row.accumulation);
      json.field("inTps", row.in.tps);
      json.field("inMsg24Hour", row.in.last_day);
      if (row.group) {
        json.field("outTps", row.out.tps);
        json.field("outMsg24Hour", row.out.last_day);
      }
      json.w().EndObject();
    }
    json.w().EndArray();
    json.print(*ctx.out);
    return;
  }
  Table table({"#Topic", "#Consumer Group", "#Accumulation", "#InTPS", "#OutTPS", "#InMsg24Hour", "#OutMsg24Hour"});
  for (const StatsRow& row : rows) {
    table.add({row.topic, row.group.value_or(""), std::to_string(row.accumulation), fixed(row.in.tps, 2),
               row.group ? fixed(row.out.tps, 2) : "", std::to_string(row.in.last_day),
               row.group ? std::to_string(row.out.last_day) : "NO_CONSUMER"});
  }
  table.print(*ctx.out);
}

}  // namespace

int stats_all(AdminContext& ctx, const StatsAllOptions& options) {
  auto topics = ctx.api().get_all_topic_list();
  if (!topics) return ctx.fail("statsAll", topics.status());
  Gatherer gather(ctx);
  std::vector<StatsRow> rows;
  for (const std::string& topic : topics->topic_list) {
    if (topic.starts_with(protocol::kRetryGroupTopicPrefix) || topic.starts_with(protocol::kDlqGroupTopicPrefix)) continue;
    if (!options.topic.empty() && topic != options.topic) continue;
    auto route = ctx.api().get_topic_route(topic);
    if (!route) {
      gather.failed("route of " + topic, route.status());
      continue;
    }
    auto masters = route_masters(*route, topic);
    if (!masters) continue;  // every broker of the topic is a slave just now: nothing to ask
    const Traffic in = gather.traffic(*masters, "TOPIC_PUT_NUMS", topic);
    const std::set<std::string> groups = gather.groups(*masters, topic);
    if (groups.empty()) {
      if (!options.active_only || in.last_day > 0) rows.push_back({topic, std::nullopt, 0, in, {}});
      continue;
    }
    for (const std::string& group : groups) {
      const Traffic out = gather.traffic(*masters, "GROUP_GET_NUMS", protocol::stats_key(topic, group));
      if (options.active_only && in.last_day == 0 && out.last_day == 0) continue;
      rows.push_back({topic, group, gather.accumulation(*masters, group, topic), in, out});
    }
  }
  if (!options.topic.empty() && !topics->topic_list.contains(options.topic)) {
    return ctx.fail("statsAll: no topic " + options.topic + " on the name servers");
  }
  print_rows(ctx, rows);
  return gather.ok() ? 0 : 1;
}

}  // namespace mqkit::admin
