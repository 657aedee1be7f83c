// Consumer group settings: updateSubGroup (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP) and
// deleteSubGroup (DELETE_SUBSCRIPTIONGROUP), on one broker (-b) or every master of a cluster (-c).
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
  json.w().EndObject();
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
    const auto& g = options.group;
    Table table({"#Setting", "#Value"});
    table.add({"groupName", g.group_name});
    table.add({"consumeEnable", g.consume_enable ? "true" : "false"});
    table.add({"consumeFromMinEnable", g.consume_from_min_enable ? "true" : "false"});
    table.add({"consumeBroadcastEnable", g.consume_broadcast_enable ? "true" : "false"});
    table.add({"retryQueueNums", std::to_string(g.retry_queue_nums)});
    table.add({"retryMaxTimes", std::to_string(g.retry_max_times)});
    table.add({"brokerId", std::to_string(g.broker_id)});
    table.add({"whichBrokerWhenConsumeSlowly", std::to_string(g.which_broker_when_consume_slowly)});
    table.add({"notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable ? "true" : "false"});
    table.print(*ctx.out);
  }
  return 0;
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
