#include "mqkit/kernel/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
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
    {.key = "max_file_size", .type = plugin::v1::ValueType::kSize, .default_value = "128MiB",
     .description = "With file: a file this large is renamed <name>.1<ext> (the older ones shift up) and a new "
                    "one begun; 0 = one file, never rotated (RocketMQ's logback rolls at 128 MB)",
     .min = 0, .max = 1099511627776.0},
    {.key = "max_files", .type = plugin::v1::ValueType::kInt, .default_value = "10",
     .description = "With file and max_file_size: rotated files kept beside the current one, the oldest "
                    "deleted (RocketMQ's maxIndex)",
     .min = 1, .max = 10000},
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
  const std::int64_t max_file_size = log_section.get_size("max_file_size");
  try {
    if (file.empty()) {
      s.sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    } else if (max_file_size == 0) {
      s.sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file);
    } else {
      s.sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
          file, static_cast<std::size_t>(max_file_size), static_cast<std::size_t>(log_section.get_int("max_files")));
    }
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
