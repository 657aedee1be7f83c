// The store configuration the crash child and the crash test share: small files, so a run of a
// second crosses commit log, consume queue and index file boundaries, and fast background
// rounds, so kills land in the middle of flushes and checkpoints too.
#pragma once

#include <map>
#include <string>

namespace mqkit::testing::crash {

inline constexpr const char* kTopic = "crash";
inline constexpr int kQueues = 4;

inline std::map<std::string, std::string> store_config(const std::string& dir, const std::string& flush_disk_type) {
  return {
      {"store_path", dir},
      {"flush_disk_type", flush_disk_type},
      {"mapped_file_size_commit_log", "128KiB"},
      {"mapped_file_size_consume_queue", "4000"},  // 200 units
      {"max_hash_slot_num", "512"},
      {"max_index_num", "2000"},
      {"flush_interval_commit_log", "20ms"},
      {"flush_interval_consume_queue", "30ms"},
      {"flush_consume_queue_thorough_interval", "150ms"},
  };
}

// Message bodies carry their own queue and queue offset: "<queue>:<offset>".
inline std::string body_for(int queue, long long offset) {
  return std::to_string(queue) + ":" + std::to_string(offset) + ":" + std::string(static_cast<std::size_t>(40 + offset % 200), 'x');
}

}  // namespace mqkit::testing::crash
