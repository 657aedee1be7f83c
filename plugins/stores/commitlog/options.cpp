#include "options.hpp"

#include <charconv>
#include <cstdlib>

namespace mqkit::plugins::stores::commitlog {

namespace {

constexpr std::int64_t kUnitSize = 20;

std::chrono::milliseconds duration(const v1::ConfigValues& config, std::string_view key) {
  return std::chrono::milliseconds(config.get_duration_ms(key));
}

}  // namespace

std::string expand_home(std::string_view path) {
  if (path.empty() || path.front() != '~' || (path.size() > 1 && path[1] != '/')) return std::string(path);
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + std::string(path.substr(1));
}

v1::Result<std::vector<int>> parse_delete_when(std::string_view text) {
  std::vector<int> hours;
  while (!text.empty()) {
    const auto end = text.find(';');
    std::string_view item = text.substr(0, end);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    int hour = -1;
    const auto [ptr, error] = std::from_chars(item.data(), item.data() + item.size(), hour);
    if (item.empty() || error != std::errc() || ptr != item.data() + item.size() || hour < 0 || hour > 23) {
      return v1::Status::invalid_argument("delete_when: \"" + std::string(item) +
                                          "\" is not an hour between 00 and 23 (write e.g. \"04\" or \"04;16\")");
    }
    hours.push_back(hour);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return hours;
}

v1::Result<StoreOptions> options_from_config(const v1::ConfigValues& config) {
  StoreOptions o;
  o.store_path = expand_home(config.get_string("store_path"));
  if (o.store_path.empty()) return v1::Status::invalid_argument("store_path must not be empty");
  while (o.store_path.size() > 1 && o.store_path.back() == '/') o.store_path.pop_back();
  o.commit_log_file_size = config.get_size("mapped_file_size_commit_log");
  o.consume_queue_file_size = (config.get_size("mapped_file_size_consume_queue") + kUnitSize - 1) / kUnitSize * kUnitSize;
  o.flush_mode = config.get_string("flush_disk_type") == "SYNC_FLUSH" ? FlushMode::kSync : FlushMode::kAsync;
  o.flush_interval_commit_log = duration(config, "flush_interval_commit_log");
  o.flush_commit_log_least_pages = config.get_int("flush_commit_log_least_pages");
  o.flush_commit_log_thorough_interval = duration(config, "flush_commit_log_thorough_interval");
  o.flush_interval_consume_queue = duration(config, "flush_interval_consume_queue");
  o.flush_consume_queue_least_pages = config.get_int("flush_consume_queue_least_pages");
  o.flush_consume_queue_thorough_interval = duration(config, "flush_consume_queue_thorough_interval");
  o.sync_flush_timeout = duration(config, "sync_flush_timeout");
  o.check_crc_on_recover = config.get_bool("check_crc_on_recover");
  o.file_reserved_time = duration(config, "file_reserved_time");
  MQKIT_ASSIGN_OR_RETURN(o.delete_when_hours, parse_delete_when(config.get_string("delete_when")));
  o.disk_max_used_space_ratio = static_cast<double>(config.get_int("disk_max_used_space_ratio")) / 100.0;
  o.disk_space_clean_forcibly_ratio = config.get_double("disk_space_clean_forcibly_ratio");
  o.disk_space_warning_level_ratio = config.get_double("disk_space_warning_level_ratio");
  o.clean_file_forcibly_enable = config.get_bool("clean_file_forcibly_enable");
  o.clean_resource_interval = duration(config, "clean_resource_interval");
  o.delete_commit_log_files_interval = duration(config, "delete_commit_log_files_interval");
  o.message_index_enable = config.get_bool("message_index_enable");
  o.max_hash_slot_num = config.get_int("max_hash_slot_num");
  o.max_index_num = config.get_int("max_index_num");
  o.max_message_size = config.get_size("max_message_size");
  o.transient_store_pool_enable = config.get_bool("transient_store_pool_enable");
  o.transient_store_pool_size = config.get_int("transient_store_pool_size");
  o.commit_interval_commit_log = duration(config, "commit_interval_commit_log");
  o.commit_commit_log_least_pages = config.get_int("commit_commit_log_least_pages");
  o.commit_commit_log_thorough_interval = duration(config, "commit_commit_log_thorough_interval");
  o.commit_log_page_cache_window = config.get_size("commit_log_page_cache_window");
  o.commit_log_zero_fill_ahead = config.get_size("commit_log_zero_fill_ahead");
  o.commit_log_warm_ahead = config.get_size("commit_log_warm_ahead");
  return o;
}

}  // namespace mqkit::plugins::stores::commitlog
