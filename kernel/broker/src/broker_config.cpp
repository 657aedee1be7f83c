#include "mqkit/broker/broker_config.hpp"

#include <charconv>
#include <sstream>
#include <utility>

#include "mqkit/kernel/config_value.hpp"
#include "mqkit/kernel/live_config.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::ValueType;

namespace {

constexpr const char* kBrokerRoles[] = {"ASYNC_MASTER", "SYNC_MASTER", "SLAVE", nullptr};

constexpr plugin::v1::ConfigField kFields[] = {
    {.key = "broker_cluster_name", .type = ValueType::kString, .default_value = "DefaultCluster",
     .description = "Cluster this broker belongs to"},
    {.key = "broker_name", .type = ValueType::kString, .default_value = "broker-a",
     .description = "Broker name shared by a master and its slaves"},
    {.key = "broker_id", .type = ValueType::kInt, .default_value = "0",
     .description = "0 for the master, > 0 for slaves", .min = 0, .max = 1024},
    {.key = "broker_ip1", .type = ValueType::kString, .default_value = "",
     .description = "Address advertised to name servers and clients (empty = first non-loopback IPv4)"},
    {.key = "listen_host", .type = ValueType::kString, .default_value = "0.0.0.0", .description = "Address to listen on"},
    {.key = "listen_port", .type = ValueType::kInt, .default_value = "10911",
     .description = "Port for clients and name servers (0 = any free port)", .min = 0, .max = 65535},
    {.key = "fast_listen_port", .type = ValueType::kInt, .default_value = "-1",
     .description = "RocketMQ's fast (VIP) port, where clients with vipChannelEnabled send: -1 = listen_port - 2 "
                    "(none when listen_port is 0), 0 = none",
     .min = -1, .max = 65535},
    {.key = "namesrv_addr", .type = ValueType::kString, .default_value = "127.0.0.1:9876",
     .description = "Name servers, separated by ';' (the broker registers with every one)"},
    {.key = "auto_create_topic_enable", .type = ValueType::kBool, .default_value = "true",
     .description = "Create a topic on first send, from the TBW102 default topic", .needs_restart = false},
    {.key = "default_topic_queue_nums", .type = ValueType::kInt, .default_value = "8",
     .description = "Queues of the TBW102 default topic (caps auto-created topics)", .min = 1, .max = 1024},
    {.key = "auto_create_subscription_group", .type = ValueType::kBool, .default_value = "true",
     .description = "Create a consumer group's settings on its first heartbeat or pull", .needs_restart = false},
    {.key = "broker_permission", .type = ValueType::kInt, .default_value = "6",
     .description = "Broker permission bits: 4 read, 2 write", .min = 0, .max = 7, .needs_restart = false},
    {.key = "register_name_server_period", .type = ValueType::kDuration, .default_value = "30s",
     .description = "How often the broker re-registers with every name server (10s..60s)", .min = 10'000,
     .max = 60'000},
    {.key = "long_polling_enable", .type = ValueType::kBool, .default_value = "true",
     .description = "Hold a pull that finds nothing until a message arrives or the client's timeout", .needs_restart = false},
    {.key = "short_polling_time", .type = ValueType::kDuration, .default_value = "1s",
     .description = "How long a pull is held when long polling is off"},
    {.key = "enable_property_filter", .type = ValueType::kBool, .default_value = "false",
     .description = "Serve SQL92 subscriptions (filter pulled messages by their properties)"},
    {.key = "slave_read_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Pull answers suggest the group's broker_id, or its which_broker_when_consume_slowly "
                    "when the consumer reads data no longer in memory (false: always the master)", .needs_restart = false},
    {.key = "access_message_in_memory_max_ratio", .type = ValueType::kInt, .default_value = "40",
     .description = "Percent of physical memory a consumer may lag behind the commit log end before its "
                    "reads count as slow (with slave_read_enable)",
     .min = 0, .max = 100},
    {.key = "max_message_size", .type = ValueType::kSize, .default_value = "4MiB",
     .description = "Largest message body accepted", .min = 1024, .max = 64.0 * 1024 * 1024},
    {.key = "message_delay_level", .type = ValueType::kString,
     .default_value = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
     .description = "Delay of each delay level, level 1 first"},
    // Timer messages (docs/timer-messages.md), RocketMQ 5's MessageStoreConfig timer keys.
    {.key = "timer_wheel_enable", .type = ValueType::kBool, .default_value = "true",
     .description = "Hold messages with TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS until then (false: "
                    "refuse them)"},
    {.key = "recall_message_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Answer RECALL_MESSAGE: a producer may cancel a timer message before its delivery "
                    "(RocketMQ 5.3's recallMessageEnable; false: NO_PERMISSION)"},
    {.key = "allow_recall_when_broker_not_writeable", .type = ValueType::kBool, .default_value = "true",
     .description = "Recall timer messages even while the broker takes no sends (brokerPermission without write)"},
    {.key = "timer_max_delay_sec", .type = ValueType::kInt, .default_value = "259200",
     .description = "Longest delay a timer message may ask for, in seconds (further: MESSAGE_ILLEGAL)", .min = 1,
     .max = 2'147'483'647},
    {.key = "timer_precision_ms", .type = ValueType::kInt, .default_value = "1000",
     .description = "Delivery times are rounded down to this (100, 200, 500 or 1000; others round down to one)",
     .min = 100, .max = 2'147'483'647},
    {.key = "timer_max_pending_in_memory", .type = ValueType::kInt, .default_value = "1000000",
     .description = "Most waiting timer messages indexed in memory; beyond it the timer topic is read on only as "
                    "earlier ones are delivered",
     .min = 1, .max = 100'000'000},
    {.key = "flush_consumer_offset_interval", .type = ValueType::kDuration, .default_value = "5s",
     .description = "How often consumer offsets are persisted", .min = 100},
    {.key = "channel_expired_timeout", .type = ValueType::kDuration, .default_value = "120s",
     .description = "A client silent this long is dropped from its groups", .min = 1000},
    {.key = "rebalance_lock_max_live_time", .type = ValueType::kDuration, .default_value = "60s",
     .description = "An ordered-queue lock not renewed this long expires", .min = 100},
    {.key = "max_transfer_count_on_message_in_memory", .type = ValueType::kInt, .default_value = "32",
     .description = "Most messages returned by one pull", .min = 1, .max = 65536},
    {.key = "max_transfer_bytes_on_message_in_memory", .type = ValueType::kSize, .default_value = "256KiB",
     .description = "Most bytes returned by one pull", .min = 1024},
    {.key = "default_query_max_num", .type = ValueType::kInt, .default_value = "32",
     .description = "Most messages a query by key returns", .min = 1, .max = 65536},
    {.key = "reject_transaction_message", .type = ValueType::kBool, .default_value = "false",
     .description = "Refuse transactional (half) messages with NO_PERMISSION", .needs_restart = false},
    {.key = "transaction_time_out", .type = ValueType::kDuration, .default_value = "6s",
     .description = "A half message this old without COMMIT or ROLLBACK gets a transaction check"},
    {.key = "transaction_check_max", .type = ValueType::kInt, .default_value = "15",
     .description = "Checks a half message gets before it moves to TRANS_CHECK_MAX_TIME_TOPIC", .min = 1,
     .max = 1000},
    {.key = "transaction_check_interval", .type = ValueType::kDuration, .default_value = "60s",
     .description = "How often the half messages are walked for checks", .min = 10},
    {.key = "store_reply_message_enable", .type = ValueType::kBool, .default_value = "true",
     .description = "Also store request-reply replies in <cluster>_REPLY_TOPIC (they are pushed to the "
                    "requester either way)", .needs_restart = false},
    // Message trace (docs/sdk.md "Message trace"): the topic traced clients write to.
    {.key = "trace_topic_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Create msg_trace_topic_name (1 queue, read-write) at start, for clients with enable_msg_trace"},
    {.key = "msg_trace_topic_name", .type = ValueType::kString, .default_value = "RMQ_SYS_TRACE_TOPIC",
     .description = "The trace topic trace_topic_enable creates"},
    {.key = "region_id", .type = ValueType::kString, .default_value = "DefaultRegion",
     .description = "Region stamped into every sent message (MSG_REGION) and send answer; traced clients record it"},
    {.key = "trace_on", .type = ValueType::kBool, .default_value = "true",
     .description = "Stamped into every sent message (TRACE_ON) and send answer; false: traced consumers skip the "
                    "message"},
    // Master/slave replication (docs/replication.md), RocketMQ 4.x MessageStoreConfig's HA keys.
    {.key = "broker_role", .type = ValueType::kString, .default_value = "ASYNC_MASTER",
     .description = "ASYNC_MASTER, SYNC_MASTER (a send waits for a slave) or SLAVE (copies its master)",
     .allowed = kBrokerRoles},
    {.key = "ha_listen_port", .type = ValueType::kInt, .default_value = "-1",
     .description = "Port masters accept slaves on (-1 = listen_port + 1, 0 = any free port)", .min = -1,
     .max = 65535},
    {.key = "ha_send_heartbeat_interval", .type = ValueType::kDuration, .default_value = "5s",
     .description = "A slave reports its offset, and a master sends an empty frame, at least this often",
     .min = 10},
    {.key = "ha_housekeeping_interval", .type = ValueType::kDuration, .default_value = "20s",
     .description = "A replication connection silent this long is closed", .min = 100},
    {.key = "ha_transfer_batch_size", .type = ValueType::kSize, .default_value = "32KiB",
     .description = "Most commit log bytes in one replication frame", .min = 1024, .max = 64.0 * 1024 * 1024},
    {.key = "ha_max_gap_not_in_sync", .type = ValueType::kSize, .default_value = "256MiB",
     .description = "SYNC_MASTER: a slave further behind than this is not available (haSlaveFallbehindMax)",
     .min = 1},
    {.key = "ha_slave_timeout", .type = ValueType::kDuration, .default_value = "3s",
     .description = "SYNC_MASTER: how long a send waits for a slave before FLUSH_SLAVE_TIMEOUT", .min = 1},
    {.key = "ha_master_address", .type = ValueType::kString, .default_value = "",
     .description = "SLAVE: the master's replication address host:port (empty = learnt from the name server)"},
    // Plain ACL (docs/acl.md), RocketMQ 4.x's aclEnable with its plain_acl.yml as a TOML file.
    {.key = "acl_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Check every client request against acl_file: signature, account, topic and group permissions"},
    {.key = "acl_file", .type = ValueType::kString, .default_value = "acl.toml",
     .description = "The ACL file (accounts, permissions, white addresses); relative to this config file's "
                    "directory; re-read when it changes"},
    {.key = "acl_access_key", .type = ValueType::kString, .default_value = "",
     .description = "Account this broker signs its own requests with (a slave's synchronization from its master); "
                    "empty: unsigned, as in RocketMQ, so list the slaves in the master's global white addresses"},
    {.key = "acl_secret_key", .type = ValueType::kString, .default_value = "",
     .description = "Secret key of acl_access_key (GET_BROKER_CONFIG shows it as ***)"},
    // Prometheus metrics (docs/metrics.md), RocketMQ 5's metricsExporterType and metricsPromExporter*.
    metrics::kExporterTypeField,
    metrics::kExporterHostField,
    {.key = "metrics_prom_exporter_port", .type = ValueType::kInt, .default_value = "5557",
     .description = "Port of the metrics exporter (0 = any free port)", .min = 0, .max = 65535},
};
constexpr plugin::v1::ConfigSchema kSchema{kFields, std::size(kFields)};

// "1s" for 1000, "90s" for 90000, "2h" for 7'200'000: the largest unit that divides evenly.
std::string duration_text(std::int64_t ms) {
  for (const auto& [unit, size] : {std::pair{"h", 3'600'000}, {"m", 60'000}, {"s", 1000}}) {
    if (ms % size == 0) return std::to_string(ms / size) + unit;
  }
  return std::to_string(ms) + "ms";
}

// RocketMQ's setTimerPrecisionMs: the largest of 100, 200, 500, 1000 ms not above the asked one.
std::int64_t timer_precision_from(std::int64_t asked) {
  std::int64_t precision = 100;
  for (const std::int64_t candidate : {200, 500, 1000}) {
    if (asked >= candidate) precision = candidate;
  }
  return precision;
}

// The inverse of broker_config_from: every schema key with the config's value.
plugin::v1::ConfigValues values_of(const BrokerConfig& c) {
  plugin::v1::ConfigValues v;
  std::string namesrv;
  for (const auto& addr : c.namesrv_addrs) namesrv += (namesrv.empty() ? "" : ";") + addr;
  std::string delays;
  for (const auto ms : c.delay_level_ms) {
    if (!delays.empty()) delays += ' ';
    delays += duration_text(ms);
  }
  v.set("broker_cluster_name", c.cluster_name);
  v.set("broker_name", c.broker_name);
  v.set("broker_id", c.broker_id);
  v.set("broker_ip1", c.broker_ip);
  v.set("listen_host", c.listen_host);
  v.set("listen_port", std::int64_t{c.listen_port});
  v.set("fast_listen_port", std::int64_t{c.fast_listen_port});
  v.set("namesrv_addr", namesrv);
  v.set("auto_create_topic_enable", c.auto_create_topic_enable.get());
  v.set("default_topic_queue_nums", std::int64_t{c.default_topic_queue_nums});
  v.set("auto_create_subscription_group", c.auto_create_subscription_group.get());
  v.set("broker_permission", std::int64_t{c.broker_permission.get()});
  v.set("register_name_server_period", c.register_name_server_period_ms);
  v.set("long_polling_enable", c.long_polling_enable.get());
  v.set("short_polling_time", c.short_polling_time_ms);
  v.set("enable_property_filter", c.enable_property_filter);
  v.set("slave_read_enable", c.slave_read_enable.get());
  v.set("access_message_in_memory_max_ratio", std::int64_t{c.access_message_in_memory_max_ratio});
  v.set("max_message_size", c.max_message_size);
  v.set("message_delay_level", delays);
  v.set("timer_wheel_enable", c.timer_wheel_enable);
  v.set("recall_message_enable", c.recall_message_enable);
  v.set("allow_recall_when_broker_not_writeable", c.allow_recall_when_broker_not_writeable);
  v.set("timer_max_delay_sec", c.timer_max_delay_sec);
  v.set("timer_precision_ms", c.timer_precision_ms);
  v.set("timer_max_pending_in_memory", c.timer_max_pending_in_memory);
  v.set("flush_consumer_offset_interval", c.flush_consumer_offset_interval_ms);
  v.set("channel_expired_timeout", c.channel_expired_timeout_ms);
  v.set("rebalance_lock_max_live_time", c.lock_max_live_time_ms);
  v.set("max_transfer_count_on_message_in_memory", std::int64_t{c.max_transfer_count});
  v.set("max_transfer_bytes_on_message_in_memory", c.max_transfer_bytes);
  v.set("default_query_max_num", std::int64_t{c.default_query_max_num});
  v.set("reject_transaction_message", c.reject_transaction_message.get());
  v.set("transaction_time_out", c.transaction_timeout_ms);
  v.set("transaction_check_max", std::int64_t{c.transaction_check_max});
  v.set("transaction_check_interval", c.transaction_check_interval_ms);
  v.set("store_reply_message_enable", c.store_reply_message_enable.get());
  v.set("trace_topic_enable", c.trace_topic_enable);
  v.set("msg_trace_topic_name", c.msg_trace_topic_name);
  v.set("region_id", c.region_id);
  v.set("trace_on", c.trace_on);
  v.set("broker_role", std::string(to_string(c.broker_role)));
  v.set("ha_listen_port", std::int64_t{c.ha_listen_port});
  v.set("ha_send_heartbeat_interval", c.ha_send_heartbeat_interval_ms);
  v.set("ha_housekeeping_interval", c.ha_housekeeping_interval_ms);
  v.set("ha_transfer_batch_size", c.ha_transfer_batch_size);
  v.set("ha_max_gap_not_in_sync", c.ha_max_gap_not_in_sync);
  v.set("ha_slave_timeout", c.ha_slave_timeout_ms);
  v.set("ha_master_address", c.ha_master_address);
  v.set("acl_enable", c.acl_enable);
  v.set("acl_file", c.acl_file.string());
  v.set("acl_access_key", c.acl_credentials.access_key);
  v.set("acl_secret_key", c.acl_credentials.secret_key);
  v.set("metrics_exporter_type", std::string(c.metrics_exporter.enabled ? "PROM" : "DISABLE"));
  v.set("metrics_prom_exporter_host", c.metrics_exporter.host);
  v.set("metrics_prom_exporter_port", std::int64_t{c.metrics_exporter.port});
  return v;
}

// Sets one live setting; the key is a schema key with needs_restart = false, the value checked.
void set_live(const BrokerConfig& c, std::string_view key, const plugin::v1::ConfigValue& value) {
  if (key == "broker_permission") return c.broker_permission.set(static_cast<std::int32_t>(std::get<std::int64_t>(value)));
  const bool flag = std::get<bool>(value);
  if (key == "auto_create_topic_enable") return c.auto_create_topic_enable.set(flag);
  if (key == "auto_create_subscription_group") return c.auto_create_subscription_group.set(flag);
  if (key == "long_polling_enable") return c.long_polling_enable.set(flag);
  if (key == "slave_read_enable") return c.slave_read_enable.set(flag);
  if (key == "reject_transaction_message") return c.reject_transaction_message.set(flag);
  if (key == "store_reply_message_enable") return c.store_reply_message_enable.set(flag);
}

}  // namespace

const plugin::v1::ConfigSchema& broker_schema() { return kSchema; }

std::map<std::string, std::string> broker_config_properties(const BrokerConfig& config) {
  std::map<std::string, std::string> properties = kernel::camel_case_properties(values_of(config));
  for (const auto& settings : config.plugin_settings) properties.merge(kernel::camel_case_properties(settings));
  // Durations read as milliseconds, as most of RocketMQ's do; its fileReservedTime counts hours.
  if (auto reserved = properties.find("fileReservedTime"); reserved != properties.end()) {
    std::int64_t ms = 0;
    const auto [end, error] = std::from_chars(reserved->second.data(), reserved->second.data() + reserved->second.size(), ms);
    if (error == std::errc() && end == reserved->second.data() + reserved->second.size()) {
      reserved->second = std::to_string(ms / 3'600'000);
    }
  }
  // Any signed client may ask for the broker's config: the secret stays here.
  if (!config.acl_credentials.secret_key.empty()) properties["aclSecretKey"] = "***";
  return properties;
}

Status update_live_settings(const BrokerConfig& config, const std::map<std::string, std::string>& properties) {
  MQKIT_ASSIGN_OR_RETURN(auto changes, kernel::checked_live_updates(kSchema, properties, "broker", "broker.toml"));
  for (const auto& [key, value] : changes) set_live(config, key, value);
  return Status::ok();
}

Result<std::vector<std::int64_t>> parse_delay_levels(const std::string& text) {
  std::vector<std::int64_t> levels;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    auto ms = kernel::parse_duration_ms(word);
    if (!ms) return Status::invalid_argument("message_delay_level: " + ms.status().message());
    if (*ms <= 0) return Status::invalid_argument("message_delay_level: \"" + word + "\" must be positive");
    levels.push_back(*ms);
  }
  if (levels.empty()) return Status::invalid_argument("message_delay_level: no levels given");
  return levels;
}

std::string_view to_string(BrokerRole role) {
  switch (role) {
    case BrokerRole::kSyncMaster:
      return "SYNC_MASTER";
    case BrokerRole::kSlave:
      return "SLAVE";
    case BrokerRole::kAsyncMaster:
      break;
  }
  return "ASYNC_MASTER";
}

Result<BrokerRole> broker_role_from(std::string_view text) {
  for (const BrokerRole role : {BrokerRole::kAsyncMaster, BrokerRole::kSyncMaster, BrokerRole::kSlave}) {
    if (text == to_string(role)) return role;
  }
  return Status::invalid_argument("broker_role \"" + std::string(text) + "\" is not ASYNC_MASTER, SYNC_MASTER or SLAVE");
}

Result<BrokerConfig> broker_config_from(const plugin::v1::ConfigValues& v, const std::filesystem::path& base_directory) {
  BrokerConfig c;
  c.cluster_name = v.get_string("broker_cluster_name");
  c.broker_name = v.get_string("broker_name");
  c.broker_id = v.get_int("broker_id");
  c.broker_ip = v.get_string("broker_ip1");
  c.listen_host = v.get_string("listen_host");
  c.listen_port = static_cast<std::uint16_t>(v.get_int("listen_port"));
  c.fast_listen_port = static_cast<std::int32_t>(v.get_int("fast_listen_port"));
  std::string addrs = v.get_string("namesrv_addr");
  for (std::size_t start = 0; start <= addrs.size();) {
    const auto end = addrs.find(';', start);
    std::string one = addrs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    one.erase(0, one.find_first_not_of(' '));
    one.erase(one.find_last_not_of(' ') + 1);
    if (!one.empty()) c.namesrv_addrs.push_back(one);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  c.auto_create_topic_enable = v.get_bool("auto_create_topic_enable");
  c.default_topic_queue_nums = static_cast<std::int32_t>(v.get_int("default_topic_queue_nums"));
  c.auto_create_subscription_group = v.get_bool("auto_create_subscription_group");
  c.broker_permission = static_cast<std::int32_t>(v.get_int("broker_permission"));
  c.register_name_server_period_ms = v.get_duration_ms("register_name_server_period");
  c.long_polling_enable = v.get_bool("long_polling_enable");
  c.short_polling_time_ms = v.get_duration_ms("short_polling_time");
  c.enable_property_filter = v.get_bool("enable_property_filter");
  c.slave_read_enable = v.get_bool("slave_read_enable");
  c.access_message_in_memory_max_ratio = static_cast<std::int32_t>(v.get_int("access_message_in_memory_max_ratio"));
  c.max_message_size = v.get_size("max_message_size");
  MQKIT_ASSIGN_OR_RETURN(c.delay_level_ms, parse_delay_levels(v.get_string("message_delay_level")));
  c.timer_wheel_enable = v.get_bool("timer_wheel_enable");
  c.recall_message_enable = v.get_bool("recall_message_enable");
  c.allow_recall_when_broker_not_writeable = v.get_bool("allow_recall_when_broker_not_writeable");
  c.timer_max_delay_sec = v.get_int("timer_max_delay_sec");
  c.timer_precision_ms = timer_precision_from(v.get_int("timer_precision_ms"));
  c.timer_max_pending_in_memory = v.get_int("timer_max_pending_in_memory");
  c.flush_consumer_offset_interval_ms = v.get_duration_ms("flush_consumer_offset_interval");
  c.channel_expired_timeout_ms = v.get_duration_ms("channel_expired_timeout");
  c.lock_max_live_time_ms = v.get_duration_ms("rebalance_lock_max_live_time");
  c.max_transfer_count = static_cast<std::int32_t>(v.get_int("max_transfer_count_on_message_in_memory"));
  c.max_transfer_bytes = v.get_size("max_transfer_bytes_on_message_in_memory");
  c.default_query_max_num = static_cast<std::int32_t>(v.get_int("default_query_max_num"));
  c.reject_transaction_message = v.get_bool("reject_transaction_message");
  c.transaction_timeout_ms = v.get_duration_ms("transaction_time_out");
  c.transaction_check_max = static_cast<std::int32_t>(v.get_int("transaction_check_max"));
  c.transaction_check_interval_ms = v.get_duration_ms("transaction_check_interval");
  c.store_reply_message_enable = v.get_bool("store_reply_message_enable");
  c.trace_topic_enable = v.get_bool("trace_topic_enable");
  c.msg_trace_topic_name = v.get_string("msg_trace_topic_name");
  if (Status s = protocol::validate_topic(c.msg_trace_topic_name); !s) return s.with_context("msg_trace_topic_name");
  c.region_id = v.get_string("region_id");
  c.trace_on = v.get_bool("trace_on");
  MQKIT_ASSIGN_OR_RETURN(c.broker_role, broker_role_from(v.get_string("broker_role")));
  c.ha_listen_port = static_cast<std::int32_t>(v.get_int("ha_listen_port"));
  c.ha_send_heartbeat_interval_ms = v.get_duration_ms("ha_send_heartbeat_interval");
  c.ha_housekeeping_interval_ms = v.get_duration_ms("ha_housekeeping_interval");
  c.ha_transfer_batch_size = v.get_size("ha_transfer_batch_size");
  c.ha_max_gap_not_in_sync = v.get_size("ha_max_gap_not_in_sync");
  c.ha_slave_timeout_ms = v.get_duration_ms("ha_slave_timeout");
  c.ha_master_address = v.get_string("ha_master_address");
  c.acl_enable = v.get_bool("acl_enable");
  c.acl_file = v.get_string("acl_file");
  if (c.acl_file.is_relative() && !base_directory.empty()) c.acl_file = base_directory / c.acl_file;
  c.acl_credentials.access_key = v.get_string("acl_access_key");
  c.acl_credentials.secret_key = v.get_string("acl_secret_key");
  if (c.acl_credentials.access_key.empty() != c.acl_credentials.secret_key.empty()) {
    return Status::invalid_argument("acl_access_key and acl_secret_key go together: set both or neither");
  }
  c.metrics_exporter = metrics::exporter_settings_from(v, "metrics_prom_exporter_port");
  if (c.broker_role == BrokerRole::kSlave && c.broker_id == 0) {
    return Status::invalid_argument("broker_role is SLAVE but broker_id is 0: a slave needs a broker_id > 0");
  }
  if (c.broker_role != BrokerRole::kSlave && c.broker_id != 0) {
    return Status::invalid_argument("broker_role is " + std::string(to_string(c.broker_role)) + " but broker_id is " +
                                    std::to_string(c.broker_id) + ": a master's broker_id must be 0");
  }
  if (!c.ha_master_address.empty() && c.ha_master_address.rfind(':') == std::string::npos) {
    return Status::invalid_argument("ha_master_address \"" + c.ha_master_address + "\" is not host:port");
  }
  return c;
}

}  // namespace mqkit::broker
