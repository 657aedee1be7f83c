#include "mqkit/namesrv/namesrv_settings.hpp"

#include "mqkit/kernel/live_config.hpp"
#include "mqkit/metrics/exporter_settings.hpp"

namespace mqkit::namesrv {

namespace {

using plugin::v1::ValueType;

constexpr plugin::v1::ConfigField kFields[] = {
    {.key = "listen_host", .type = ValueType::kString, .default_value = "0.0.0.0",
     .description = "Address to listen on"},
    {.key = "listen_port", .type = ValueType::kInt, .default_value = "9876",
     .description = "TCP port for brokers and clients (0 = any free port)", .min = 0, .max = 65535},
    {.key = "broker_expiry", .type = ValueType::kDuration, .default_value = "120s",
     .description = "A broker that has not registered for this long is dropped from routes", .min = 1000,
     .needs_restart = false},
    {.key = "scan_interval", .type = ValueType::kDuration, .default_value = "10s",
     .description = "How often silent brokers are looked for", .min = 10, .needs_restart = false},
    {.key = "kv_config_path", .type = ValueType::kString, .default_value = "",
     .description = "File keeping the KV config (ORDER_TOPIC_CONFIG, ...); empty = memory only"},
    {.key = "order_message_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Fill orderTopicConf in routes from the ORDER_TOPIC_CONFIG namespace", .needs_restart = false},
    // Prometheus metrics (docs/metrics.md), with the broker's keys; 5557 is the broker's port.
    metrics::kExporterTypeField,
    metrics::kExporterHostField,
    {.key = "metrics_prom_exporter_port", .type = ValueType::kInt, .default_value = "5558",
     .description = "Port of the metrics exporter (0 = any free port)", .min = 0, .max = 65535},
};
constexpr plugin::v1::ConfigSchema kSchema{kFields, std::size(kFields)};

}  // namespace

const plugin::v1::ConfigSchema& namesrv_schema() { return kSchema; }

bool NamesrvSettings::order_message_enable() const {
  std::lock_guard lock(mutex_);
  return values_.get_bool("order_message_enable");
}

std::int64_t NamesrvSettings::broker_expiry_ms() const {
  std::lock_guard lock(mutex_);
  return values_.get_duration_ms("broker_expiry");
}

std::int64_t NamesrvSettings::scan_interval_ms() const {
  std::lock_guard lock(mutex_);
  return values_.get_duration_ms("scan_interval");
}

std::map<std::string, std::string> NamesrvSettings::properties() const {
  std::lock_guard lock(mutex_);
  return kernel::camel_case_properties(values_);
}

plugin::v1::Status NamesrvSettings::update(const std::map<std::string, std::string>& properties) {
  MQKIT_ASSIGN_OR_RETURN(auto changes, kernel::checked_live_updates(kSchema, properties, "name server", "namesrv.toml"));
  std::lock_guard lock(mutex_);
  for (auto& [key, value] : changes) values_.set(std::move(key), std::move(value));
  return plugin::v1::Status::ok();
}

}  // namespace mqkit::namesrv
