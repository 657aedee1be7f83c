// SubscriptionGroupConfig: a consumer group's settings on a broker, as the admin requests carry
// them (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP body, GET_ALL_SUBSCRIPTIONGROUP_CONFIG answer).
// Written as fastjson writes them (keys in alphabetical order) so Java admin tools read them;
// shared by the broker and the SDK's admin calls.
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

struct SubscriptionGroupConfig {
  std::string group_name;
  bool consume_enable = true;
  bool consume_from_min_enable = true;
  bool consume_broadcast_enable = true;
  std::int32_t retry_queue_nums = 1;
  std::int32_t retry_max_times = 16;
  std::int64_t broker_id = 0;
  std::int64_t which_broker_when_consume_slowly = 1;
  bool notify_consumer_ids_changed_enable = true;
  // RocketMQ 5: the group consumes in order; pop consumers (RocketMQ 5 gRPC clients through
  // mqproxy) get a queue's next messages only once the earlier ones are acknowledged.
  bool consume_message_orderly = false;
  bool operator==(const SubscriptionGroupConfig&) const = default;
};

// Decoding requires groupName; absent settings keep their defaults. Numbers may come as strings.
std::string encode_subscription_group(const SubscriptionGroupConfig& group);
plugin::v1::Result<SubscriptionGroupConfig> decode_subscription_group(std::string_view json);

// SubscriptionGroupList (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST): {"groupConfigList":[...]}.
std::string encode_subscription_group_list(const std::vector<SubscriptionGroupConfig>& groups);
plugin::v1::Result<std::vector<SubscriptionGroupConfig>> decode_subscription_group_list(std::string_view json);

// SubscriptionGroupWrapper: {"subscriptionGroupTable":{name:{...}},"dataVersion":{...}}; the
// decoder reads the table only.
std::string encode_subscription_group_table(const std::map<std::string, SubscriptionGroupConfig>& groups);
plugin::v1::Result<std::map<std::string, SubscriptionGroupConfig>> decode_subscription_group_table(
    std::string_view json);

}  // namespace mqkit::protocol
