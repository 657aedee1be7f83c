// Logger: how the store writes log lines. Plugins never link a logging library; every line goes
// through the host (v1::Host::log), tagged with the plugin name.
//
// Threads: any (Host::log is thread-safe).
#pragma once

#include <string_view>

#include "mqkit/plugin/v1/host.hpp"

namespace mqkit::plugins::stores::commitlog {

class Logger {
 public:
  explicit Logger(plugin::v1::Host& host) noexcept : host_(&host) {}
  void debug(std::string_view message) const noexcept { write(plugin::v1::LogLevel::kDebug, message); }
  void info(std::string_view message) const noexcept { write(plugin::v1::LogLevel::kInfo, message); }
  void warn(std::string_view message) const noexcept { write(plugin::v1::LogLevel::kWarn, message); }
  void error(std::string_view message) const noexcept { write(plugin::v1::LogLevel::kError, message); }

 private:
  void write(plugin::v1::LogLevel level, std::string_view message) const noexcept {
    host_->log(level, "commitlog", message);
  }
  plugin::v1::Host* host_;
};

}  // namespace mqkit::plugins::stores::commitlog
