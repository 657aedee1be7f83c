// NamesrvSettings: the [namesrv] table as the running name server holds it. GET_NAMESRV_CONFIG
// lists every key (RocketMQ's camelCase spelling), UPDATE_NAMESRV_CONFIG changes the live ones —
// order_message_enable, broker_expiry, scan_interval — which take effect at their next use (the
// next route query, the next scan). Changes are not written back to namesrv.toml: a restart
// returns to the file's values.
//
// Thread-safe: one mutex over the values; readers take it briefly (route queries, the scanner).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::namesrv {

// Schema of the [namesrv] section.
const plugin::v1::ConfigSchema& namesrv_schema();

class NamesrvSettings {
 public:
  // `values`: the validated [namesrv] section (every schema key present).
  explicit NamesrvSettings(plugin::v1::ConfigValues values) : values_(std::move(values)) {}

  bool order_message_enable() const;
  std::int64_t broker_expiry_ms() const;
  std::int64_t scan_interval_ms() const;

  std::map<std::string, std::string> properties() const;
  // All or nothing (kernel::checked_live_updates): InvalidArgument for an unknown key or bad
  // value, PermissionDenied for a key that needs a restart.
  plugin::v1::Status update(const std::map<std::string, std::string>& properties);

 private:
  mutable std::mutex mutex_;
  plugin::v1::ConfigValues values_;
};

}  // namespace mqkit::namesrv
