#include "mqkit/kernel/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace mqkit::kernel {

namespace {

constexpr const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "off", nullptr};
constexpr plugin::v1::ConfigField kLogFields[] = {
    {.key = "level", .type = plugin::v1::ValueType::kString, .default_value = "info",
     .description = "Lowest level written: trace, debug, info, warn, error or off", .allowed = kLevels,
     .needs_restart = false},
    {.key = "pattern", .type = plugin::v1::ValueType::kString, .default_value = "%Y-%m-%d %H:%M:%S.%e %^%l%$ [%n] %v",
     .description = "spdlog pattern of each line"},
    {.key = "file", .type = plugin::v1::ValueType::kString, .default_value = "",
     .description = "Append to this file instead of standard error (empty = standard error)"},
};
constexpr plugin::v1::ConfigSchema kLogSchema{kLogFields, std::size(kLogFields)};

struct LogState {
  std::mutex mutex;
  spdlog::sink_ptr sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  spdlog::level::level_enum level = spdlog::level::info;
  std::string pattern = "%Y-%m-%d %H:%M:%S.%e %^%l%$ [%n] %v";
};

LogState& state() {
  static LogState s;
  return s;
}

}  // namespace

const plugin::v1::ConfigSchema& log_schema() { return kLogSchema; }

plugin::v1::Status configure_logging(const plugin::v1::ConfigValues& log_section) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  const std::string& file = log_section.get_string("file");
  try {
    if (!file.empty()) s.sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file);
  } catch (const spdlog::spdlog_ex& e) {
    return plugin::v1::Status::io_error("cannot open log file " + file + ": " + e.what());
  }
  s.level = spdlog::level::from_str(log_section.get_string("level"));
  s.pattern = log_section.get_string("pattern");
  s.sink->set_pattern(s.pattern);
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& l) {
    l->sinks().assign(1, s.sink);
    l->set_level(s.level);
  });
  return plugin::v1::Status::ok();
}

std::shared_ptr<spdlog::logger> logger(std::string_view component) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  const std::string name(component);
  if (auto existing = spdlog::get(name)) return existing;
  auto created = std::make_shared<spdlog::logger>(name, s.sink);
  created->set_level(s.level);
  created->set_pattern(s.pattern);
  spdlog::register_logger(created);
  return created;
}

spdlog::level::level_enum to_spdlog(plugin::v1::LogLevel level) {
  switch (level) {
    case plugin::v1::LogLevel::kTrace: return spdlog::level::trace;
    case plugin::v1::LogLevel::kDebug: return spdlog::level::debug;
    case plugin::v1::LogLevel::kInfo: return spdlog::level::info;
    case plugin::v1::LogLevel::kWarn: return spdlog::level::warn;
    case plugin::v1::LogLevel::kError: return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace mqkit::kernel
