// The store configuration the crash child and the crash test share: small files, so a run of a
// second crosses commit log, consume queue and index file boundaries, and fast background
// rounds, so kills land in the middle of flushes and checkpoints too.
#pragma once

#include <map>
#include <string>

namespace mqkit::testing::crash {

inline constexpr const char* kTopic = "crash";
inline constexpr int kQueues = 4;

// The third mode besides ASYNC_FLUSH and SYNC_FLUSH: ASYNC_FLUSH through the transient store
// pool, committed every 20 ms at the latest (a kill loses what the pool had not committed).
inline constexpr const char* kAsyncFlushWithPool = "ASYNC_FLUSH_POOL";

inline std::map<std::string, std::string> store_config(const std::string& dir, const std::string& mode) {
  std::map<std::string, std::string> config = {
      {"store_path", dir},
      {"flush_disk_type", mode == kAsyncFlushWithPool ? "ASYNC_FLUSH" : mode},
      {"mapped_file_size_commit_log", "128KiB"},
      {"mapped_file_size_consume_queue", "4000"},  // 200 units
      {"max_hash_slot_num", "512"},
      {"max_index_num", "2000"},
      {"flush_interval_commit_log", "20ms"},
      {"flush_interval_consume_queue", "30ms"},
      {"flush_consume_queue_thorough_interval", "150ms"},
  };
  if (mode == kAsyncFlushWithPool) {
    config["transient_store_pool_enable"] = "true";
    config["transient_store_pool_size"] = "2";
    config["commit_interval_commit_log"] = "10ms";
    config["commit_commit_log_thorough_interval"] = "20ms";
  }
  return config;
}

// Message bodies carry their own queue and queue offset: "<queue>:<offset>".
inline std::string body_for(int queue, long long offset) {
  return std::to_string(queue) + ":" + std::to_string(offset) + ":" + std::string(static_cast<std::size_t>(40 + offset % 200), 'x');
}

}  // namespace mqkit::testing::crash
