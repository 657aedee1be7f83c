// exportMetadata: the user topics and subscription groups of one broker or of a cluster's
// masters, written as JSON files for backup or for creating them elsewhere (RocketMQ's
// ExportMetadataCommand); exportConfigs: the settings that shape a cluster (ExportConfigsCommand);
// exportMetrics: each master's load, traffic and clients (ExportMetricsCommand).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/broker_stats_data.hpp"
#include "mqkit/protocol/connection.hpp"
#include "mqkit/protocol/request_reply.hpp"
#include "mqkit/protocol/subscription_group.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::admin {

namespace {

using TopicConfigs = std::map<std::string, protocol::TopicConfig>;
using GroupConfigs = std::map<std::string, protocol::SubscriptionGroupConfig>;

// The topics brokers create for themselves beyond the fixed system ones: one named after each
// cluster and each broker, and each cluster's reply topic (RocketMQ's addSystemTopic).
std::set<std::string> server_topics(const protocol::ClusterInfo& info) {
  std::set<std::string> topics;
  for (const auto& [cluster, brokers] : info.cluster_addr_table) {
    topics.insert(cluster);
    topics.insert(protocol::reply::reply_topic_of(cluster));
    topics.insert(brokers.begin(), brokers.end());
  }
  return topics;
}

// RocketMQ's getUserTopicConfig: no system topic (nor one of `server_topics`), no topic with an
// invalid permission, and retry and dead-letter topics only when asked for.
bool user_topic(const protocol::TopicConfig& topic, bool special_topics, const std::set<std::string>& server_topics) {
  const std::string& name = topic.topic_name;
  if (protocol::is_system_topic(name) || server_topics.count(name) > 0) return false;
  if (!special_topics && (name.starts_with(protocol::kRetryGroupTopicPrefix) || name.starts_with(protocol::kDlqGroupTopicPrefix))) {
    return false;
  }
  return topic.perm >= 0 && topic.perm <= 7;
}

// A file of `json` at `dir`/`name`; the directory is created when missing.
client::Result<std::string> write_export(const std::string& dir, const std::string& name, const std::string& json) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return client::Status::io_error("cannot create directory " + dir + ": " + error.message());
  const std::string path = (std::filesystem::path(dir) / name).string();
  std::ofstream out(path, std::ios::trunc);
  out << json << "\n";
  out.close();
  if (!out) return client::Status::io_error("cannot write " + path);
  return path;
}

}  // namespace

int export_metadata(AdminContext& ctx, const ExportMetadataOptions& options) {
  auto targets = command_targets(ctx, options.broker_addr, options.cluster, false);
  if (!targets) return ctx.fail("exportMetadata", targets.status());
  auto info = ctx.api().get_cluster_info();
  if (!info) return ctx.fail("exportMetadata: cluster info", info.status());
  const std::set<std::string> server_names = server_topics(*info);

  // Summed over the masters, as RocketMQ's tool does: a topic on two brokers of 4 queues each
  // exports 8 queues, a group's retry queues likewise.
  TopicConfigs topics;
  GroupConfigs groups;
  for (const auto& broker : *targets) {
    if (!options.groups_only) {
      auto table = ctx.api().get_all_topic_config(broker.address);
      if (!table) return ctx.fail("exportMetadata: topics of " + broker.address, table.status());
      for (auto& [name, config] : table->topic_config_table) {
        if (!user_topic(config, options.special_topics, server_names)) continue;
        if (const auto known = topics.find(name); known != topics.end()) {
          config.read_queue_nums += known->second.read_queue_nums;
          config.write_queue_nums += known->second.write_queue_nums;
        }
        topics[name] = config;
      }
    }
    if (!options.topics_only) {
      auto table = ctx.api().get_all_subscription_groups(broker.address);
      if (!table) return ctx.fail("exportMetadata: groups of " + broker.address, table.status());
      for (auto& [name, config] : *table) {
        if (protocol::is_system_group(name)) continue;
        if (const auto known = groups.find(name); known != groups.end()) {
          config.retry_queue_nums += known->second.retry_queue_nums;
        }
        groups[name] = config;
      }
    }
  }

  JsonOut json;
  json.w().StartObject();
  if (!options.groups_only) {
    json.key("topicConfigTable"), json.w().StartObject();
    for (const auto& [name, config] : topics) {
      const std::string encoded = protocol::encode(config);
      json.key(name), json.w().RawValue(encoded.data(), encoded.size(), rapidjson::kObjectType);
    }
    json.w().EndObject();
  }
  if (!options.topics_only) {
    json.key("subscriptionGroupTable"), json.w().StartObject();
    for (const auto& [name, config] : groups) {
      const std::string encoded = protocol::encode_subscription_group(config);
      json.key(name), json.w().RawValue(encoded.data(), encoded.size(), rapidjson::kObjectType);
    }
    json.w().EndObject();
  }
  json.field("exportTime", kernel::wall_clock_ms());
  json.w().EndObject();

  const char* file = options.topics_only ? "topic.json" : options.groups_only ? "subscriptionGroup.json" : "metadata.json";
  auto written = write_export(options.file_path, file, json.text());
  if (!written) return ctx.fail("exportMetadata", written.status());
  if (ctx.json) {
    JsonOut summary;
    summary.w().StartObject();
    summary.field("path", *written);
    summary.field("topics", static_cast<std::int64_t>(topics.size()));
    summary.field("subscriptionGroups", static_cast<std::int64_t>(groups.size()));
    summary.w().EndObject();
    summary.print(*ctx.out);
  } else {
    *ctx.out << "export " << *written << " success\n";
  }
  return 0;
}

}  // namespace mqkit::admin

namespace mqkit::admin {

namespace {
// The broker settings RocketMQ's exportConfigs keeps.
constexpr const char* kExportedBrokerKeys[] = {
    "brokerClusterName", "brokerId",          "brokerName",       "brokerRole",      "fileReservedTime",
    "filterServerNums",  "flushDiskType",     "maxMessageSize",   "messageDelayLevel", "msgTraceTopicName",
    "slaveReadEnable",   "traceOn",           "traceTopicEnable", "useTLS",          "autoCreateTopicEnable",
    "autoCreateSubscriptionGroup"};
}  // namespace

int export_configs(AdminContext& ctx, const std::string& cluster, const std::string& file_path) {
  auto brokers = cluster_brokers(ctx, cluster);
  if (!brokers) return ctx.fail("exportConfigs", brokers.status());
  JsonOut json;
  json.w().StartObject();
  json.key("brokerConfigs");
  json.w().StartObject();
  std::int32_t masters = 0;
  std::int32_t slaves = 0;
  for (const auto& broker : *brokers) {
    if (broker.id != 0) {
      ++slaves;
      continue;
    }
    ++masters;
    auto config = ctx.api().get_broker_config(broker.address);
    if (!config) return ctx.fail("exportConfigs: config of " + broker.address, config.status());
    const auto name = config->find("brokerName");
    json.key(name != config->end() ? name->second : broker.name);
    json.w().StartObject();
    for (const char* key : kExportedBrokerKeys) {
      if (const auto it = config->find(key); it != config->end()) json.field(key, it->second);
    }
    json.w().EndObject();
  }
  json.w().EndObject();
  const auto namesrvs = static_cast<std::int32_t>(ctx.api().namesrv_addresses().size());
  json.key("clusterScale");
  json.w().StartObject();
  json.field("namesrvSize", namesrvs);
  json.field("masterBrokerSize", masters);
  json.field("slaveBrokerSize", slaves);
  json.w().EndObject();
  json.w().EndObject();
  auto written = write_export(file_path, "configs.json", json.text());
  if (!written) return ctx.fail("exportConfigs", written.status());
  if (ctx.json) {
    JsonOut summary;
    summary.w().StartObject();
    summary.field("path", *written);
    summary.field("namesrvSize", namesrvs);
    summary.field("masterBrokerSize", masters);
    summary.field("slaveBrokerSize", slaves);
    summary.w().EndObject();
    summary.print(*ctx.out);
  } else {
    *ctx.out << "export " << *written << " success\n";
  }
  return 0;
}

namespace {

// One broker's traffic figures, and the cluster's sums of them.
struct Traffic {
  double normal_in_tps = 0;
  double normal_out_tps = 0;
  double trans_in_tps = 0;
  double schedule_in_tps = 0;
  std::int64_t normal_day_in = 0;
  std::int64_t normal_day_out = 0;
  std::int64_t trans_day_in = 0;
  std::int64_t schedule_day_in = 0;

  void add(const Traffic& other) {
    normal_in_tps += other.normal_in_tps;
    normal_out_tps += other.normal_out_tps;
    trans_in_tps += other.trans_in_tps;
    schedule_in_tps += other.schedule_in_tps;
    normal_day_in += other.normal_day_in;
    normal_day_out += other.normal_day_out;
    trans_day_in += other.trans_day_in;
    schedule_day_in += other.schedule_day_in;
  }
  // A broker's "tps" object, or with `total` the cluster's "totalTps" (RocketMQ's key names).
  void write_tps(JsonOut& json, bool total) const {
    json.field(total ? "totalNormalInTps" : "normalInTps", normal_in_tps);
    json.field(total ? "totalNormalOutTps" : "normalOutTps", normal_out_tps);
    json.field(total ? "totalTransInTps" : "transInTps", trans_in_tps);
    json.field(total ? "totalScheduleInTps" : "scheduleInTps", schedule_in_tps);
  }
  void write_day(JsonOut& json) const {
    json.field("normalOneDayInNum", normal_day_in);
    json.field("normalOneDayOutNum", normal_day_out);
    json.field("transOneDayInNum", trans_day_in);
    json.field("scheduleOneDayInNum", schedule_day_in);
  }
};

// The first figure of a runtime-info TPS value ("12.50 11.00 9.80 "), 0 when absent.
double first_tps(const protocol::KvTable& kv, const std::string& key) {
  const auto it = kv.table.find(key);
  return it == kv.table.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
}

std::int64_t kv_int(const protocol::KvTable& kv, const std::string& key) {
  const auto it = kv.table.find(key);
  return it == kv.table.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
}

// `values[key]` as the member `as`, null when the broker did not report it.
void reported_field(JsonOut& json, const std::map<std::string, std::string>& values, const char* key, const char* as) {
  json.key(as);
  if (const auto it = values.find(key); it != values.end()) {
    json.str(it->second);
  } else {
    json.w().Null();
  }
}

}  // namespace

int export_metrics(AdminContext& ctx, const std::string& cluster, const std::string& file_path) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return ctx.fail("exportMetrics: cluster info", info.status());
  const auto names = info->cluster_addr_table.find(cluster);
  if (names == info->cluster_addr_table.end()) return ctx.fail("exportMetrics: no cluster named " + cluster);
  const std::set<std::string> server_names = server_topics(*info);
  Traffic total;
  JsonOut json;
  json.w().StartObject();
  json.key("evaluateReport");
  json.w().StartObject();
  for (const std::string& broker_name : names->second) {
    const auto broker = info->broker_addr_table.find(broker_name);
    if (broker == info->broker_addr_table.end() || !broker->second.broker_addrs.contains(0)) {
      return ctx.fail("exportMetrics: broker " + broker_name + " has no master");
    }
    const std::string& address = broker->second.broker_addrs.at(0);
    const std::string where = " of " + broker_name + " (" + address + ")";
    auto kv = ctx.api().get_broker_runtime_info(address);
    if (!kv) return ctx.fail("exportMetrics: runtime info" + where, kv.status());
    auto config = ctx.api().get_broker_config(address);
    if (!config) return ctx.fail("exportMetrics: config" + where, config.status());
    auto topics = ctx.api().get_all_topic_config(address);
    if (!topics) return ctx.fail("exportMetrics: topics" + where, topics.status());
    auto groups = ctx.api().get_all_subscription_groups(address);
    if (!groups) return ctx.fail("exportMetrics: groups" + where, groups.status());
    std::erase_if(*groups, [](const auto& group) { return protocol::is_system_group(group.first); });
    const std::int64_t user_topics = std::count_if(
        topics->topic_config_table.begin(), topics->topic_config_table.end(),
        [&](const auto& topic) { return user_topic(topic.second, false, server_names); });

    Traffic traffic;
    traffic.normal_in_tps = first_tps(*kv, "putTps");
    traffic.normal_out_tps = first_tps(*kv, "getTransferredTps");
    traffic.normal_day_in = kv_int(*kv, "msgPutTotalTodayMorning") - kv_int(*kv, "msgPutTotalYesterdayMorning");
    traffic.normal_day_out = kv_int(*kv, "msgGetTotalTodayMorning") - kv_int(*kv, "msgGetTotalYesterdayMorning");
    // Half (transactional) and delayed messages: what the broker counted into their system topics.
    for (const auto& [topic, tps, day] :
         {std::tuple{protocol::transaction::kHalfTopic, &traffic.trans_in_tps, &traffic.trans_day_in},
          std::tuple{protocol::kScheduleTopic, &traffic.schedule_in_tps, &traffic.schedule_day_in}}) {
      auto stats = ctx.api().view_broker_stats_data(address, "TOPIC_PUT_NUMS", topic);
      if (!stats) return ctx.fail("exportMetrics: " + std::string(topic) + " stats" + where, stats.status());
      if (*stats) {
        *tps = (*stats)->stats_minute.tps;
        *day = protocol::sum_of_last_day(**stats);
      }
    }
    total.add(traffic);
    // The clients consuming here: language%version of each connection, as RocketMQ lists them.
    std::set<std::string> clients;
    for (const auto& [group, settings] : *groups) {
      auto connections = ctx.api().get_consumer_connection_list(address, group);
      if (!connections) continue;  // nobody online
      for (const auto& connection : connections->connection_set) {
        clients.insert(connection.language + "%" + protocol::version_desc(connection.version));
      }
    }

    json.key(broker_name);
    json.w().StartObject();
    json.key("runtimeEnv");
    json.w().StartObject();
    reported_field(json, *config, "clientCallbackExecutorThreads", "cpuNum");
    reported_field(json, kv->table, "totalMemKBytes", "totalMemKBytes");
    json.w().EndObject();
    json.key("runtimeQuota");
    json.w().StartObject();
    json.key("diskRatio");
    json.w().StartObject();
    reported_field(json, kv->table, "commitLogDiskRatio", "commitLogDiskRatio");
    reported_field(json, kv->table, "consumeQueueDiskRatio", "consumeQueueDiskRatio");
    json.w().EndObject();
    json.key("tps");
    json.w().StartObject();
    traffic.write_tps(json, false);
    json.w().EndObject();
    json.key("oneDayNum");
    json.w().StartObject();
    traffic.write_day(json);
    json.w().EndObject();
    reported_field(json, kv->table, "putMessageAverageSize", "messageAverageSize");
    json.field("topicSize", user_topics);
    json.field("groupSize", static_cast<std::int64_t>(groups->size()));
    json.w().EndObject();
    json.key("runtimeVersion");
    json.w().StartObject();
    reported_field(json, kv->table, "brokerVersionDesc", "rocketmqVersion");
    json.key("clientInfo");
    json.w().StartArray();
    for (const auto& client : clients) json.str(client);
    json.w().EndArray();
    json.w().EndObject();
    json.w().EndObject();
  }
  json.w().EndObject();
  json.key("totalData");
  json.w().StartObject();
  json.key("totalTps");
  json.w().StartObject();
  total.write_tps(json, true);
  json.w().EndObject();
  json.key("totalOneDayNum");
  json.w().StartObject();
  total.write_day(json);
  json.w().EndObject();
  json.w().EndObject();
  json.w().EndObject();
  auto written = write_export(file_path, "metrics.json", json.text());
  if (!written) return ctx.fail("exportMetrics", written.status());
  if (ctx.json) {
    JsonOut summary;
    summary.w().StartObject();
    summary.field("path", *written);
    summary.field("brokers", static_cast<std::int64_t>(names->second.size()));
    summary.w().EndObject();
    summary.print(*ctx.out);
  } else {
    *ctx.out << "export " << *written << " success\n";
  }
  return 0;
}

}  // namespace mqkit::admin
