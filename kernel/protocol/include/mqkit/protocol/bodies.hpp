// JSON bodies of the remoting protocol (rocketmq-facts §1.11), encoded and decoded only here.
//
// Decoders accept what real peers send: fastjson's unquoted numeric map keys ({0:"addr"}), the
// old `topicSynFlag` spelling, missing optional fields. Encoders write standard JSON unless
// JsonStyle::kLegacy asks for fastjson's unquoted numeric keys (route replies to clients older
// than 4.9.4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

using plugin::v1::MessageQueue;
using plugin::v1::Result;
using plugin::v1::Status;

enum class JsonStyle : std::uint8_t { kStandard, kLegacy };

struct DataVersion {
  std::int64_t timestamp = 0;
  std::int64_t counter = 0;
  std::int64_t state_version = 0;
  bool operator==(const DataVersion&) const = default;
};

struct TopicConfig {
  std::string topic_name{};
  std::int32_t read_queue_nums = 16;
  std::int32_t write_queue_nums = 16;
  std::int32_t perm = 6;
  std::string topic_filter_type = "SINGLE_TAG";
  std::int32_t topic_sys_flag = 0;
  bool order = false;
  std::map<std::string, std::string> attributes{};
  bool operator==(const TopicConfig&) const = default;
};

struct TopicConfigTable {
  DataVersion data_version{};
  std::map<std::string, TopicConfig> topic_config_table{};
};

// The most queues one broker may claim for a topic in a route or a topic config: more than any
// deployment uses (mqkit's brokers allow 1024). A client makes one entry per queue, so a route
// claiming two billion from a broken or hostile server is refused rather than followed.
inline constexpr std::int32_t kMaxQueueNums = 65535;

struct QueueData {
  std::string broker_name{};
  std::int32_t read_queue_nums = 0;
  std::int32_t write_queue_nums = 0;
  std::int32_t perm = 0;
  std::int32_t topic_sys_flag = 0;
  bool operator==(const QueueData&) const = default;
};

struct BrokerData {
  std::string cluster{};
  std::string broker_name{};
  std::map<std::int64_t, std::string> broker_addrs{};  // broker id → "ip:port"; 0 = master
  bool operator==(const BrokerData&) const = default;
};

struct TopicRouteData {
  std::string order_topic_conf{};
  std::vector<QueueData> queue_datas{};
  std::vector<BrokerData> broker_datas{};
  std::map<std::string, std::vector<std::string>> filter_server_table{};
};

struct ClusterInfo {
  std::map<std::string, BrokerData> broker_addr_table{};
  std::map<std::string, std::set<std::string>> cluster_addr_table{};
};

struct TopicList {
  std::set<std::string> topic_list{};
  std::string broker_addr{};
};

struct KvTable {
  std::map<std::string, std::string> table{};
};

struct RegisterBrokerBody {
  TopicConfigTable topic_config_wrapper{};
  std::vector<std::string> filter_server_list{};
};

// REGISTER_BROKER header field of mqkit's brokers: "true" when the body lists every topic of the
// broker (its periodic registration), so an mqkit name server drops topics it no longer lists.
// Without it the body may list only changed topics (RocketMQ's registerIncrementBrokerData) and
// is merged. RocketMQ's name server ignores the field.
inline constexpr std::string_view kFullTopicTableField = "mqkitFullTopicTable";

struct SubscriptionData {
  std::string topic{};
  std::string sub_string{};
  std::set<std::string> tags_set{};
  std::set<std::int32_t> code_set{};
  std::int64_t sub_version = 0;
  std::string expression_type = "TAG";
  bool class_filter_mode = false;
};

struct ConsumerData {
  std::string group_name{};
  std::string consume_type{};         // CONSUME_PASSIVELY (push) / CONSUME_ACTIVELY (pull)
  std::string message_model{};        // CLUSTERING / BROADCASTING
  std::string consume_from_where{};   // CONSUME_FROM_LAST_OFFSET / _FIRST_OFFSET / _TIMESTAMP
  std::vector<SubscriptionData> subscription_data_set{};
  bool unit_mode = false;
};

struct HeartbeatData {
  std::string client_id{};
  std::vector<std::string> producer_groups{};
  std::vector<ConsumerData> consumer_data_set{};
};

// CHECK_CLIENT_CONFIG's body: may this broker serve the subscription?
struct CheckClientRequestBody {
  std::string client_id{};
  std::string group{};
  std::optional<SubscriptionData> subscription_data{};
};

struct ConsumerIdList {
  std::vector<std::string> consumer_id_list{};
};

// The groups that consume a topic on one broker (QUERY_TOPIC_CONSUME_BY_WHO).
struct GroupList {
  std::set<std::string> group_list{};
};

struct LockBatchRequest {
  std::string consumer_group{};
  std::string client_id{};
  std::set<MessageQueue> mq_set{};
  bool only_this_broker = false;
};

struct LockBatchResponse {
  std::set<MessageQueue> lock_ok_mq_set{};
};

// Per-queue offsets of a consumer group (GET_CONSUME_STATS).
struct OffsetWrapper {
  std::int64_t broker_offset = 0;
  std::int64_t consumer_offset = 0;
  std::int64_t last_timestamp = 0;
};
struct ConsumeStats {
  std::map<MessageQueue, OffsetWrapper> offset_table{};
  double consume_tps = 0;
};
// Broker offset minus consumer offset, summed over the queues (RocketMQ's computeTotalDiff).
std::int64_t total_diff(const ConsumeStats& stats);
// Every group's ConsumeStats on one broker (GET_BROKER_CONSUME_STATS): one {group: [one
// ConsumeStats per topic]} map per subscription group, and the sum of broker offset minus
// consumer offset over all of them.
struct ConsumeStatsList {
  std::vector<std::map<std::string, std::vector<ConsumeStats>>> consume_stats_list{};
  std::string broker_addr;
  std::int64_t total_diff = 0;
};

// Per-queue min/max offsets of a topic (GET_TOPIC_STATS_INFO).
struct TopicOffset {
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;
  std::int64_t last_update_timestamp = 0;
};
struct TopicStatsTable {
  std::map<MessageQueue, TopicOffset> offset_table{};
};

// A consumer group's new offset per queue (ResetOffsetBody): the answer to
// INVOKE_BROKER_TO_RESET_OFFSET, and the RESET_CONSUMER_CLIENT_OFFSET notice a broker sends a
// consumer client.
struct ResetOffsetBody {
  std::map<MessageQueue, std::int64_t> offset_table{};
};

// Consumers' offsets in memory (GetConsumerStatusBody). A client answers
// GET_CONSUMER_STATUS_FROM_CLIENT with its offsets of the topic in message_queue_table; a broker
// answers INVOKE_BROKER_TO_GET_CONSUMER_STATUS with every answer it got, by client id, in
// consumer_table.
struct GetConsumerStatusBody {
  std::map<MessageQueue, std::int64_t> message_queue_table{};
  std::map<std::string, std::map<MessageQueue, std::int64_t>> consumer_table{};
};

// What a consumer reports of one owned queue (ProcessQueueInfo). Timestamps are ms since the
// epoch; sizes in MiB as RocketMQ.
struct ProcessQueueInfo {
  std::int64_t commit_offset = 0;
  std::int64_t cached_msg_min_offset = 0;
  std::int64_t cached_msg_max_offset = 0;
  std::int32_t cached_msg_count = 0;
  std::int32_t cached_msg_size_in_mib = 0;
  std::int64_t transaction_msg_min_offset = 0;  // orderly: the batch being consumed
  std::int64_t transaction_msg_max_offset = 0;
  std::int32_t transaction_msg_count = 0;
  bool locked = false;
  std::int64_t try_unlock_times = 0;
  std::int64_t last_lock_timestamp = 0;
  bool dropped = false;  // "droped" on the wire
  std::int64_t last_pull_timestamp = 0;
  std::int64_t last_consume_timestamp = 0;
  bool operator==(const ProcessQueueInfo&) const = default;
};

// Per-topic consumption rates (ConsumeStatus); RT in ms, TPS per second.
struct ConsumeStatus {
  double pull_rt = 0;
  double pull_tps = 0;
  double consume_rt = 0;
  double consume_ok_tps = 0;
  double consume_failed_tps = 0;
  std::int64_t consume_failed_msgs = 0;  // in the last hour
  bool operator==(const ConsumeStatus&) const = default;
};

// A consumer's answer to GET_CONSUMER_RUNNING_INFO (ConsumerRunningInfo): its settings as string
// properties (PROP_* keys below plus its config fields), subscriptions, owned queues and rates.
struct ConsumerRunningInfo {
  static constexpr std::string_view kPropNamesrvAddr = "PROP_NAMESERVER_ADDR";
  static constexpr std::string_view kPropThreadPoolCoreSize = "PROP_THREADPOOL_CORE_SIZE";
  static constexpr std::string_view kPropConsumeOrderly = "PROP_CONSUMEORDERLY";
  static constexpr std::string_view kPropConsumeType = "PROP_CONSUME_TYPE";
  static constexpr std::string_view kPropClientVersion = "PROP_CLIENT_VERSION";
  static constexpr std::string_view kPropConsumerStartTimestamp = "PROP_CONSUMER_START_TIMESTAMP";

  std::map<std::string, std::string> properties{};
  std::vector<SubscriptionData> subscription_set{};
  std::map<MessageQueue, ProcessQueueInfo> mq_table{};
  std::map<std::string, ConsumeStatus> status_table{};  // by topic
  std::map<std::string, std::string> user_consumer_info{};
  std::string jstack{};
};

std::string encode(const DataVersion& v);
// DataVersions by name, {"<name>": DataVersion}: GET_BROKER_CLUSTER_ACL_INFO's allAclFileVersion
// header (the ACL files' versions by path).
std::string encode_data_versions(const std::map<std::string, DataVersion>& versions);
std::string encode(const TopicConfigTable& t);
// One topic's config (GET_TOPIC_CONFIG's TopicConfigAndQueueMapping, without a queue mapping).
std::string encode(const TopicConfig& t);
// CreateTopicListRequestBody (UPDATE_AND_CREATE_TOPIC_LIST): {"topicConfigList":[TopicConfig...]}.
std::string encode_topic_config_list(const std::vector<TopicConfig>& topics);
std::string encode(const TopicRouteData& r, JsonStyle style = JsonStyle::kStandard);
std::string encode(const ClusterInfo& c, JsonStyle style = JsonStyle::kStandard);
std::string encode(const TopicList& t);
std::string encode(const KvTable& t);
std::string encode(const RegisterBrokerBody& b);
std::string encode(const HeartbeatData& h);
std::string encode(const ConsumerIdList& l);
std::string encode(const GroupList& l);
std::string encode(const LockBatchRequest& r);
std::string encode(const LockBatchResponse& r);
std::string encode(const ConsumeStats& s);
std::string encode(const ConsumeStatsList& s);
std::string encode(const TopicStatsTable& s);
// mqTable in fastjson's object-keyed form, as Java admin tools read it.
std::string encode(const ConsumerRunningInfo& info);
// fastjson's map keyed by MessageQueue objects ({"offsetTable":{{"brokerName":..}:42}}), what
// RocketMQ sends every peer but a C++ one.
std::string encode(const ResetOffsetBody& b);
// ResetOffsetBodyForC ({"offsetTable":[{"brokerName","offset","queueId","topic"}]}), what RocketMQ
// sends peers whose language is CPP.
std::string encode_for_cpp(const ResetOffsetBody& b);
// Both tables in fastjson's object-keyed form.
std::string encode(const GetConsumerStatusBody& b);

Result<DataVersion> decode_data_version(std::string_view json);
Result<std::map<std::string, DataVersion>> decode_data_versions(std::string_view json);
Result<TopicConfigTable> decode_topic_config_table(std::string_view json);
Result<TopicConfig> decode_topic_config(std::string_view json);
Result<std::vector<TopicConfig>> decode_topic_config_list(std::string_view json);
Result<TopicRouteData> decode_topic_route(std::string_view json);
Result<ClusterInfo> decode_cluster_info(std::string_view json);
Result<TopicList> decode_topic_list(std::string_view json);
Result<KvTable> decode_kv_table(std::string_view json);
Result<RegisterBrokerBody> decode_register_broker_body(std::string_view json);
Result<HeartbeatData> decode_heartbeat(std::string_view json);
Result<CheckClientRequestBody> decode_check_client_request(std::string_view json);
Result<ConsumerIdList> decode_consumer_id_list(std::string_view json);
Result<GroupList> decode_group_list(std::string_view json);
Result<LockBatchRequest> decode_lock_batch_request(std::string_view json);
Result<LockBatchResponse> decode_lock_batch_response(std::string_view json);
Result<ConsumeStats> decode_consume_stats(std::string_view json);
Result<ConsumeStatsList> decode_consume_stats_list(std::string_view json);
Result<TopicStatsTable> decode_topic_stats(std::string_view json);
Result<ConsumerRunningInfo> decode_consumer_running_info(std::string_view json);
// Either shape encode() and encode_for_cpp() write.
Result<ResetOffsetBody> decode_reset_offset_body(std::string_view json);
Result<GetConsumerStatusBody> decode_get_consumer_status_body(std::string_view json);

// Rewrites fastjson's unquoted object keys ({0:"a"} → {"0":"a"}) so a standard parser reads it.
std::string quote_bare_keys(std::string_view json);

}  // namespace mqkit::protocol
