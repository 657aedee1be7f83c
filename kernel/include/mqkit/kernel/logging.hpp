// Logging: one spdlog sink shared by a logger per component ("broker", "store",
// "plugin.averagely"), configured from the [log] section.
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <string_view>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/host.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

// Schema of the [log] section.
const plugin::v1::ConfigSchema& log_schema();

// Applies [log] (level, pattern, file). Safe to call again; existing loggers follow.
plugin::v1::Status configure_logging(const plugin::v1::ConfigValues& log_section);

// The logger of a component, created on first use with the configured sink, level and pattern.
std::shared_ptr<spdlog::logger> logger(std::string_view component);

spdlog::level::level_enum to_spdlog(plugin::v1::LogLevel level);

}  // namespace mqkit::kernel
