// The bodies of the store inspection requests: QUERY_CONSUME_QUEUE's QueryConsumeQueueResponseBody
// (mqadmin queryCq) and GET_BROKER_HA_STATUS's HARuntimeInfo (mqadmin haStatus). Written as
// fastjson writes them (keys in alphabetical order, null fields left out) so Java admin tools read
// them; shared by the broker and mqadmin.
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/protocol/bodies.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

// One consume queue unit. RocketMQ's extended fields (extendDataJson, bitMap, eval) belong to its
// optional consume queue extension, which mqkit's stores do not keep: they stay empty.
struct ConsumeQueueData {
  std::int64_t physic_offset = 0;
  std::int32_t physic_size = 0;
  std::int64_t tags_code = 0;
  std::optional<std::string> extend_data_json{};
  std::optional<std::string> bit_map{};
  bool eval = false;
  std::optional<std::string> msg{};
  bool operator==(const ConsumeQueueData&) const = default;
};

struct QueryConsumeQueueResponse {
  std::optional<SubscriptionData> subscription_data{};
  // The group's filter data as JSON, or "<group>@<topic> is not online!" (RocketMQ's text).
  std::optional<std::string> filter_data{};
  std::vector<ConsumeQueueData> queue_data{};
  std::int64_t max_queue_index = 0;
  std::int64_t min_queue_index = 0;
};

std::string encode(const QueryConsumeQueueResponse& body);
plugin::v1::Result<QueryConsumeQueueResponse> decode_query_consume_queue_response(std::string_view json);
// RocketMQ's ConsumeQueueData.toString, which mqadmin queryCq prints per unit.
std::string to_string(const ConsumeQueueData& data);

// A master's view of one connected slave.
struct HaConnectionRuntimeInfo {
  std::string addr{};
  std::int64_t slave_ack_offset = 0;
  std::int64_t diff = 0;  // the master's max offset minus slave_ack_offset
  bool in_sync = false;
  std::int64_t transferred_byte_in_second = 0;
  std::int64_t transfer_from_where = 0;  // where the master started sending to this slave
  bool operator==(const HaConnectionRuntimeInfo&) const = default;
};

// A slave's view of its master.
struct HaClientRuntimeInfo {
  std::string master_addr{};
  std::int64_t transferred_byte_in_second = 0;
  std::int64_t max_offset = 0;
  std::int64_t last_read_timestamp = 0;
  std::int64_t last_write_timestamp = 0;
  std::int64_t master_flush_offset = 0;
  bool activated = false;
  bool operator==(const HaClientRuntimeInfo&) const = default;
};

struct HaRuntimeInfo {
  bool master = false;
  std::int64_t master_commit_log_max_offset = 0;
  std::int32_t in_sync_slave_nums = 0;
  std::vector<HaConnectionRuntimeInfo> ha_connection_info{};
  HaClientRuntimeInfo ha_client_runtime_info{};
  bool operator==(const HaRuntimeInfo&) const = default;
};

std::string encode(const HaRuntimeInfo& info);
plugin::v1::Result<HaRuntimeInfo> decode_ha_runtime_info(std::string_view json);

}  // namespace mqkit::protocol
