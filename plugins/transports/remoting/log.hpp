// Logging through the Host (plugins never link a logging library themselves).
#pragma once

#include <string_view>

#include "mqkit/plugin/v1/host.hpp"

namespace mqkit::plugins::transports::remoting {

namespace v1 = ::mqkit::plugin::v1;

inline constexpr std::string_view kPluginName = "remoting";

class Log {
 public:
  explicit Log(v1::Host& host) : host_(&host) {}
  void debug(std::string_view message) const noexcept { write(v1::LogLevel::kDebug, message); }
  void info(std::string_view message) const noexcept { write(v1::LogLevel::kInfo, message); }
  void warn(std::string_view message) const noexcept { write(v1::LogLevel::kWarn, message); }
  void error(std::string_view message) const noexcept { write(v1::LogLevel::kError, message); }
  void write(v1::LogLevel level, std::string_view message) const noexcept {
    host_->log(level, kPluginName, message);
  }

 private:
  v1::Host* host_;  // the Host outlives every plugin object (host.hpp)
};

}  // namespace mqkit::plugins::transports::remoting
