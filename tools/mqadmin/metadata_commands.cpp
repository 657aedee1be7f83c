// exportMetadata: the user topics and subscription groups of one broker or of a cluster's
// masters, written as JSON files for backup or for creating them elsewhere (RocketMQ's
// ExportMetadataCommand); exportConfigs: the settings that shape a cluster (ExportConfigsCommand).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/subscription_group.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::admin {

namespace {

using TopicConfigs = std::map<std::string, protocol::TopicConfig>;
using GroupConfigs = std::map<std::string, protocol::SubscriptionGroupConfig>;

// RocketMQ's getUserTopicConfig: no system topic (nor a topic named after a cluster or a broker,
// which brokers create for themselves), no topic with an invalid permission, and retry and
// dead-letter topics only when asked for.
bool user_topic(const protocol::TopicConfig& topic, bool special_topics, const std::set<std::string>& server_names) {
  const std::string& name = topic.topic_name;
  if (protocol::is_system_topic(name) || server_names.count(name) > 0) return false;
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
  std::set<std::string> server_names;
  for (const auto& [cluster, names] : info->cluster_addr_table) {
    server_names.insert(cluster);
    server_names.insert(names.begin(), names.end());
  }

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

}  // namespace mqkit::admin
