#include "mqkit/broker/broker_metrics_page.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "../consume/queue_stats.hpp"
#include "mqkit/broker/broker_metrics.hpp"
#include "mqkit/metrics/exposition.hpp"
#include "mqkit/protocol/code_names.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace {

using metrics::ExpositionWriter;
using metrics::MetricType;

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// One (group, topic) a consumer group subscribes to, summed over the topic's queues, as RocketMQ's
// ConsumerLagCalculator sums it.
struct Progress {
  std::string group;
  std::string topic;
  std::int64_t lag = 0;       // stored and not committed
  std::int64_t inflight = 0;  // pulled and not committed
  std::int64_t ready = 0;     // stored and not pulled
  std::int64_t earliest_unconsumed = kNever;  // store time of the first message not committed
  std::int64_t earliest_unpulled = kNever;    // store time of the first message not pulled
};

// The store time of the message at `offset` when there is one before `end`.
std::int64_t time_at(const BrokerContext& context, const std::string& topic, std::int32_t queue_id,
                     std::int64_t offset, std::int64_t end) {
  if (offset >= end) return kNever;
  const std::int64_t time = message_store_time(*context.store, topic, queue_id, offset);
  return time > 0 ? time : kNever;
}

// Every online group's subscribed topics (RocketMQ without useStaticSubscription: groups with no
// consumer connected are left out; retry topics and topics that cannot be read or written too).
//
// Per queue: the committed offset is what the group acknowledged; a queue it never committed
// counts as fully consumed (RocketMQ). The pulled offset is where its last pull that found
// messages ended (BrokerMetrics::note_pulled), never behind the committed one; a queue it never
// pulled counts as pulled up to the committed offset.
std::vector<Progress> consumer_progress(const BrokerContext& context, const BrokerMetrics& counted) {
  const auto pulled = counted.pulled_offsets();
  const std::int32_t broker_permission = context.config->broker_permission;
  std::vector<Progress> all;
  for (const auto& [group, settings] : context.groups->all()) {
    const auto online = context.consumers->find(group);
    if (!online) continue;
    for (const auto& [topic, subscription] : online->subscriptions) {
      if (topic.starts_with(protocol::kRetryGroupTopicPrefix)) continue;
      const auto config = context.topics->find(topic);
      if (!config) continue;
      const std::int32_t perm = config->perm & broker_permission;
      if (!protocol::perm::readable(perm) && !protocol::perm::writeable(perm)) continue;
      const auto committed_offsets = context.offsets->offsets(group, topic);
      Progress p{group, topic};
      for (std::int32_t queue_id = 0; queue_id < config->write_queue_nums; ++queue_id) {
        const std::int64_t end = std::max<std::int64_t>(0, context.store->max_offset(topic, queue_id));
        const auto c = committed_offsets.find(queue_id);
        const std::int64_t committed = c != committed_offsets.end() && c->second >= 0 ? c->second : end;
        const auto noted = pulled.find({group, topic, queue_id});
        const std::int64_t next_pull =
            std::clamp(noted != pulled.end() ? noted->second : committed, committed, std::max(committed, end));
        p.lag += std::max<std::int64_t>(0, end - committed);
        p.inflight += next_pull - committed;
        p.ready += std::max<std::int64_t>(0, end - next_pull);
        p.earliest_unconsumed = std::min(p.earliest_unconsumed, time_at(context, topic, queue_id, committed, end));
        p.earliest_unpulled = std::min(p.earliest_unpulled, time_at(context, topic, queue_id, next_pull, end));
      }
      all.push_back(std::move(p));
    }
  }
  return all;
}

std::int64_t age(std::int64_t since, std::int64_t now_ms) {
  return since == kNever ? 0 : std::max<std::int64_t>(0, now_ms - since);
}

void write_progress(ExpositionWriter& out, const std::vector<Progress>& all, std::int64_t now_ms) {
  const auto family = [&](std::string_view name, std::string_view help, auto value_of) {
    out.family(name, MetricType::kGauge, help);
    for (const Progress& p : all) {
      out.sample({{"consumer_group", p.group},
                  {"topic", p.topic},
                  {"is_retry", "false"},
                  {"is_system", is_system(p.topic, p.group) ? "true" : "false"}},
                 value_of(p));
    }
  };
  family("rocketmq_consumer_lag_messages", "Messages stored and not yet committed by the group",
         [](const Progress& p) { return p.lag; });
  family("rocketmq_consumer_lag_latency", "Milliseconds since the first message the group has not committed was stored",
         [&](const Progress& p) { return age(p.earliest_unconsumed, now_ms); });
  family("rocketmq_consumer_inflight_messages", "Messages the group pulled and has not committed",
         [](const Progress& p) { return p.inflight; });
  family("rocketmq_consumer_queueing_latency", "Milliseconds since the first message the group has not pulled was stored",
         [&](const Progress& p) { return age(p.earliest_unpulled, now_ms); });
  family("rocketmq_consumer_ready_messages", "Messages stored and not yet pulled by the group",
         [](const Progress& p) { return p.ready; });
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// RocketMQ's ConsumeType.getTypeCN, lowercased.
std::string_view consume_mode(std::string_view consume_type) {
  if (consume_type == "CONSUME_ACTIVELY") return "pull";
  if (consume_type == "CONSUME_POP") return "pop";
  return "push";
}

// Client connections by group, language and version, as RocketMQ counts them (a client in two
// groups counts in each).
void write_connections(ExpositionWriter& out, const BrokerContext& context) {
  const auto client = [](const ClientConnection& c) {
    return std::pair{lowercase(plugin::v1::to_string(c.language)), lowercase(protocol::version_name(c.version))};
  };
  std::map<std::pair<std::string, std::string>, std::int64_t> producers;
  for (const ClientConnection& c : context.producers->all_connections()) ++producers[client(c)];
  out.family("rocketmq_producer_connections", MetricType::kGauge, "Producer connections");
  for (const auto& [key, count] : producers) {
    out.sample({{"language", key.first}, {"version", key.second}, {"protocol_type", "remoting"}}, count);
  }
  std::map<std::tuple<std::string, std::string, std::string, std::string_view>, std::int64_t> consumers;
  for (const std::string& group : context.consumers->groups()) {
    const auto info = context.consumers->find(group);
    if (!info) continue;
    for (const auto& [id, c] : info->connections) {
      const auto [language, version] = client(c);
      ++consumers[{group, language, version, consume_mode(info->consume_type)}];
    }
  }
  out.family("rocketmq_consumer_connections", MetricType::kGauge, "Consumer connections");
  for (const auto& [key, count] : consumers) {
    const auto& [group, language, version, mode] = key;
    out.sample({{"consumer_group", group},
                {"language", language},
                {"version", version},
                {"consume_mode", mode},
                {"protocol_type", "remoting"},
                {"is_system", is_system({}, group) ? "true" : "false"}},
               count);
  }
}

void write_store(ExpositionWriter& out, const BrokerContext& context, std::int64_t now_ms) {
  const plugin::v1::StoreStats stats = context.store->stats();
  const std::initializer_list<metrics::Label> labels{{"storage_type", "local"}, {"storage_medium", "disk"}};
  out.family("rocketmq_storage_flush_behind_bytes", MetricType::kGauge, "Commit log bytes not yet flushed to disk");
  out.sample(labels, flush_behind_bytes(stats));
  out.family("rocketmq_storage_dispatch_behind_bytes", MetricType::kGauge,
             "Commit log bytes not yet dispatched to the consume queues");
  out.sample(labels, dispatch_behind_bytes(stats));
  out.family("rocketmq_storage_message_reserve_time", MetricType::kGauge,
             "Milliseconds since the oldest message in the commit log was stored");
  // RocketMQ records nothing while the store is empty.
  if (const std::int64_t earliest = earliest_message_time(*context.store, stats); earliest > 0) {
    out.sample(labels, std::max<std::int64_t>(0, now_ms - earliest));
  }
}

}  // namespace

std::string broker_metrics_page(const BrokerContext& context, std::int64_t now_ms) {
  const BrokerConfig& config = *context.config;
  ExpositionWriter out({{"cluster", config.cluster_name}, {"node_type", "broker"}, {"node_id", config.broker_name}});
  out.family("rocketmq_broker_permission", MetricType::kGauge, "The broker's permission bits: 4 read, 2 write");
  out.sample({}, std::int64_t{config.broker_permission.get()});
  out.family("rocketmq_topic_number", MetricType::kGauge, "Topics this broker has a config for");
  out.sample({}, static_cast<std::int64_t>(context.topics->snapshot().topic_config_table.size()));
  out.family("rocketmq_consumer_group_number", MetricType::kGauge, "Subscription groups this broker has a config for");
  out.sample({}, static_cast<std::int64_t>(context.groups->all().size()));
  context.metrics->write(out);
  write_connections(out, context);
  write_progress(out, consumer_progress(context, *context.metrics), now_ms);
  write_store(out, context, now_ms);
  return out.take();
}

}  // namespace mqkit::broker
