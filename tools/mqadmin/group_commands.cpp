// Consumer group settings: updateSubGroup (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP) and
// deleteSubGroup (DELETE_SUBSCRIPTIONGROUP), on one broker (-b) or every master of a cluster (-c).
#include <cstdio>
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"

namespace mqkit::admin {

namespace {

void write_group(JsonOut& json, const protocol::SubscriptionGroupConfig& g) {
  json.w().StartObject();
  json.field("groupName", g.group_name);
  json.field("consumeEnable", g.consume_enable);
  json.field("consumeFromMinEnable", g.consume_from_min_enable);
  json.field("consumeBroadcastEnable", g.consume_broadcast_enable);
  json.field("retryQueueNums", g.retry_queue_nums);
  json.field("retryMaxTimes", g.retry_max_times);
  json.field("brokerId", g.broker_id);
  json.field("whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly);
  json.field("notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable);
  json.field("consumeMessageOrderly", g.consume_message_orderly);
  json.w().EndObject();
}

// The settings as RocketMQ's tools list them (SubscriptionGroupConfig's field order).
std::vector<std::pair<std::string, std::string>> settings_of(const protocol::SubscriptionGroupConfig& g) {
  const auto flag = [](bool on) { return std::string(on ? "true" : "false"); };
  return {{"groupName", g.group_name},
          {"consumeEnable", flag(g.consume_enable)},
          {"consumeFromMinEnable", flag(g.consume_from_min_enable)},
          {"consumeBroadcastEnable", flag(g.consume_broadcast_enable)},
          {"retryQueueNums", std::to_string(g.retry_queue_nums)},
          {"retryMaxTimes", std::to_string(g.retry_max_times)},
          {"brokerId", std::to_string(g.broker_id)},
          {"whichBrokerWhenConsumeSlowly", std::to_string(g.which_broker_when_consume_slowly)},
          {"notifyConsumerIdsChangedEnable", flag(g.notify_consumer_ids_changed_enable)},
          {"consumeMessageOrderly", flag(g.consume_message_orderly)}};
}

}  // namespace

int update_sub_group(AdminContext& ctx, const UpdateSubGroupOptions& options) {
  auto targets = command_targets(ctx, options.broker_addr, options.cluster, false);
  if (!targets) return ctx.fail("updateSubGroup", targets.status());
  JsonOut json;
  json.w().StartObject();
  json.key("brokerAddrs");
  json.w().StartArray();
  for (const auto& broker : *targets) {
    if (auto updated = ctx.api().update_subscription_group(broker.address, options.group); !updated) {
      return ctx.fail("updateSubGroup " + options.group.group_name + " on " + broker.address, updated);
    }
    json.str(broker.address);
    if (!ctx.json) *ctx.out << "create subscription group to " << broker.address << " success.\n";
  }
  json.w().EndArray();
  json.key("group");
  write_group(json, options.group);
  json.w().EndObject();
  if (ctx.json) {
    json.print(*ctx.out);
  } else {
    Table table({"#Setting", "#Value"});
    for (auto& [name, value] : settings_of(options.group)) table.add({name, value});
    table.print(*ctx.out);
  }
  return 0;
}

int get_consumer_config(AdminContext& ctx, const std::string& group) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return ctx.fail("getConsumerConfig: cluster info", info.status());
  JsonOut json;
  json.w().StartArray();
  bool found = false;
  for (const auto& [broker_name, broker] : info->broker_addr_table) {
    if (broker.broker_addrs.empty()) continue;
    // RocketMQ's selectBrokerAddr: the master, else a slave.
    const auto master = broker.broker_addrs.find(0);
    const std::string& address = master != broker.broker_addrs.end() ? master->second : broker.broker_addrs.begin()->second;
    auto config = ctx.api().get_subscription_group(address, group);
    if (!config && config.status().code() == client::StatusCode::kNotFound) continue;
    if (!config) return ctx.fail("getConsumerConfig: " + group + " on " + address, config.status());
    found = true;
    if (ctx.json) {
      json.w().StartObject();
      json.field("clusterName", broker.cluster);
      json.field("brokerName", broker_name);
      json.key("subscriptionGroupConfig");
      write_group(json, *config);
      json.w().EndObject();
    } else {
      *ctx.out << "=============================" << broker.cluster << ":" << broker_name
               << "=============================\n";
      for (const auto& [name, value] : settings_of(*config)) {
        char line[96];
        std::snprintf(line, sizeof line, "%-40s=  ", name.c_str());
        *ctx.out << line << value << "\n";
      }
    }
  }
  json.w().EndArray();
  if (!found) return ctx.fail("getConsumerConfig: no broker has subscription group " + group);
  if (ctx.json) json.print(*ctx.out);
  return 0;
}

int update_sub_group_list(AdminContext& ctx, const std::string& file, const std::string& broker_addr,
                          const std::string& cluster) {
  return submit_config_list(ctx, "updateSubGroupList", "groupConfigList", "group", file, broker_addr, cluster,
                            protocol::decode_subscription_group_list,
                            [&](const std::string& address, const std::vector<protocol::SubscriptionGroupConfig>& groups) {
                              return ctx.api().update_subscription_groups(address, groups);
                            });
}

int delete_sub_group(AdminContext& ctx, const std::string& group, const std::string& broker_addr,
                     const std::string& cluster) {
  auto targets = command_targets(ctx, broker_addr, cluster, false);
  if (!targets) return ctx.fail("deleteSubGroup", targets.status());
  // Brokers answer SUCCESS for any name, so a mistyped group would look deleted: look first.
  bool known = false;
  for (const auto& broker : *targets) {
    auto groups = ctx.api().get_all_subscription_groups(broker.address);
    if (!groups) return ctx.fail("deleteSubGroup: groups of " + broker.address, groups.status());
    known = known || groups->count(group) > 0;
  }
  if (!known) {
    return ctx.fail("deleteSubGroup: no subscription group " + group + " on " +
                    (cluster.empty() ? "broker " + broker_addr : "cluster " + cluster));
  }
  JsonOut json;
  json.w().StartObject();
  json.field("groupName", group);
  json.key("brokerAddrs");
  json.w().StartArray();
  for (const auto& broker : *targets) {
    if (auto deleted = ctx.api().delete_subscription_group(broker.address, group); !deleted) {
      return ctx.fail("deleteSubGroup " + group + " on " + broker.address, deleted);
    }
    json.str(broker.address);
    if (!ctx.json) {
      *ctx.out << "delete subscription group [" << group << "] from broker [" << broker.address << "]"
               << (cluster.empty() ? "" : " in cluster [" + cluster + "]") << " success.\n";
    }
  }
  json.w().EndArray();
  json.key("deletedTopics");
  json.w().StartArray();
  if (!cluster.empty()) {
    // As RocketMQ: the group's retry and dead-letter topics go too; one that does not exist is
    // not an error.
    for (const auto& topic : {"%RETRY%" + group, "%DLQ%" + group}) {
      for (const auto& broker : *targets) (void)ctx.api().delete_topic_in_broker(broker.address, topic);
      (void)ctx.api().delete_topic_in_namesrv(topic);
      json.str(topic);
      if (!ctx.json) *ctx.out << "delete topic [" << topic << "] from cluster [" << cluster << "] success.\n";
    }
  }
  json.w().EndArray();
  json.w().EndObject();
  if (ctx.json) json.print(*ctx.out);
  return 0;
}

}  // namespace mqkit::admin
