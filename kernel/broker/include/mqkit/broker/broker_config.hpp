// The [broker] section: identity, network, name servers and the broker-side policies that
// RocketMQ keeps in BrokerConfig (rocketmq-facts §5.18).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/metrics/exporter_settings.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/protocol/acl_signature.hpp"

namespace mqkit::broker {

const plugin::v1::ConfigSchema& broker_schema();

// RocketMQ's BrokerRole: a master answers sends (SYNC_MASTER only once a slave has the bytes);
// a slave copies its master's commit log and refuses sends.
enum class BrokerRole : std::uint8_t { kAsyncMaster, kSyncMaster, kSlave };
std::string_view to_string(BrokerRole role);
plugin::v1::Result<BrokerRole> broker_role_from(std::string_view text);

// A setting UPDATE_BROKER_CONFIG may change while the broker runs (its schema field says
// needs_restart = false). Readers on any thread get a relaxed atomic load: these are flags
// checked per request, where seeing the old value for a moment is fine. set() is const because
// processors see the config through a const pointer; only these settings ever change.
template <typename T>
class LiveSetting {
 public:
  LiveSetting(T value = T{}) noexcept : value_(value) {}  // NOLINT: converts, as the plain field did
  LiveSetting(const LiveSetting& other) noexcept : value_(other.get()) {}
  LiveSetting& operator=(const LiveSetting& other) noexcept {
    set(other.get());
    return *this;
  }
  operator T() const noexcept { return get(); }  // NOLINT: reads like the plain field
  T get() const noexcept { return value_.load(std::memory_order_relaxed); }
  void set(T value) const noexcept { value_.store(value, std::memory_order_relaxed); }

 private:
  mutable std::atomic<T> value_;
};

struct BrokerConfig {
  std::string cluster_name;
  std::string broker_name;
  std::int64_t broker_id = 0;
  std::string broker_ip;  // advertised address; resolved at start when empty
  std::string listen_host;
  std::uint16_t listen_port = 10911;
  std::int32_t fast_listen_port = -1;  // -1 = listen_port - 2 (none when listen_port is 0), 0 = none
  std::vector<std::string> namesrv_addrs;
  LiveSetting<bool> auto_create_topic_enable = true;
  std::int32_t default_topic_queue_nums = 8;
  LiveSetting<bool> auto_create_subscription_group = true;
  LiveSetting<std::int32_t> broker_permission = 6;
  std::int64_t register_name_server_period_ms = 30'000;
  LiveSetting<bool> long_polling_enable = true;
  std::int64_t short_polling_time_ms = 1000;
  bool enable_property_filter = false;  // RocketMQ's enablePropertyFilter: SQL92 subscriptions
  LiveSetting<bool> slave_read_enable = false;  // RocketMQ's slaveReadEnable (docs/slave-read.md)
  std::int32_t access_message_in_memory_max_ratio = 40;  // percent of physical memory
  std::int64_t max_message_size = 4 * 1024 * 1024;
  std::vector<std::int64_t> delay_level_ms;  // index 0 = level 1
  // RocketMQ 5's timerWheelEnable / timerMaxDelaySec / timerPrecisionMs (docs/timer-messages.md);
  // timer_max_pending_in_memory is mqkit's bound on the timer service's index.
  bool timer_wheel_enable = true;
  bool recall_message_enable = false;  // RECALL_MESSAGE answered (RocketMQ 5.3)
  bool allow_recall_when_broker_not_writeable = true;
  std::int64_t timer_max_delay_sec = 3 * 24 * 3600;
  std::int64_t timer_precision_ms = 1000;
  std::int64_t timer_max_pending_in_memory = 1'000'000;
  std::int64_t flush_consumer_offset_interval_ms = 5000;
  std::int64_t channel_expired_timeout_ms = 120'000;
  std::int64_t lock_max_live_time_ms = 60'000;
  std::int32_t max_transfer_count = 32;
  std::int64_t max_transfer_bytes = 256 * 1024;
  std::int32_t default_query_max_num = 32;
  LiveSetting<bool> reject_transaction_message = false;
  std::int64_t transaction_timeout_ms = 6000;
  std::int32_t transaction_check_max = 15;
  std::int64_t transaction_check_interval_ms = 60'000;
  // RocketMQ's storeReplyMessageEnable: replies are stored in <cluster>_REPLY_TOPIC as well as
  // pushed to the requester.
  LiveSetting<bool> store_reply_message_enable = true;
  // RocketMQ's traceTopicEnable / msgTraceTopicName: the message trace topic is created at start.
  bool trace_topic_enable = false;
  std::string msg_trace_topic_name = "RMQ_SYS_TRACE_TOPIC";
  // RocketMQ's regionId / traceOn: stamped into every sent message (MSG_REGION, TRACE_ON) and
  // its send answer.
  std::string region_id = "DefaultRegion";
  bool trace_on = true;
  // Replication (docs/replication.md).
  BrokerRole broker_role = BrokerRole::kAsyncMaster;
  std::int32_t ha_listen_port = -1;  // -1 = listen_port + 1, 0 = any free port
  std::int64_t ha_send_heartbeat_interval_ms = 5000;
  std::int64_t ha_housekeeping_interval_ms = 20'000;
  std::int64_t ha_transfer_batch_size = 32 * 1024;
  std::int64_t ha_max_gap_not_in_sync = 256LL * 1024 * 1024;
  std::int64_t ha_slave_timeout_ms = 3000;
  std::string ha_master_address;  // slave: overrides the address learnt from the name server
  // Plain ACL (docs/acl.md).
  bool acl_enable = false;
  std::filesystem::path acl_file = "acl.toml";
  protocol::acl::Credentials acl_credentials;  // signs this broker's own requests when set
  // Prometheus metrics (docs/metrics.md): off unless metrics_exporter_type is PROM.
  metrics::ExporterSettings metrics_exporter{.enabled = false, .host = {}, .port = 5557};

  // The store's and the transport's settings (their plugins' validated tables, defaults
  // included), so GET_BROKER_CONFIG shows every setting as RocketMQ's flat list does. Filled
  // by mqbroker from its bootstrap; not a [broker] key.
  std::vector<plugin::v1::ConfigValues> plugin_settings;

  bool is_slave() const noexcept { return broker_role == BrokerRole::kSlave; }

  // "ip:port" this broker registers and stamps into records.
  std::string address() const { return broker_ip + ":" + std::to_string(listen_port); }
};

// `base_directory` (the config file's) anchors a relative acl_file; empty: the working directory.
plugin::v1::Result<BrokerConfig> broker_config_from(const plugin::v1::ConfigValues& values,
                                                   const std::filesystem::path& base_directory = {});

// Every [broker] key, then every key of `plugin_settings` that [broker] does not have (the
// store's max_message_size is shown once, as the broker's), in RocketMQ's camelCase spelling
// with its value as text (GET_BROKER_CONFIG): durations in milliseconds and sizes in bytes, as
// RocketMQ's own keys hold them.
std::map<std::string, std::string> broker_config_properties(const BrokerConfig& config);

// UPDATE_BROKER_CONFIG: sets the live settings (needs_restart = false in the schema) named in
// `properties` (camelCase or snake_case keys). All or nothing: an unknown key or a bad value is
// InvalidArgument, a key that needs a restart PermissionDenied, and then nothing changes.
plugin::v1::Status update_live_settings(const BrokerConfig& config, const std::map<std::string, std::string>& properties);

// "1s 5s 10s 30s 1m ..." → milliseconds per level.
plugin::v1::Result<std::vector<std::int64_t>> parse_delay_levels(const std::string& text);

}  // namespace mqkit::broker
