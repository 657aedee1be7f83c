// The store's configuration: the schema the kernel validates the [store] table against (each key
// declared once, RocketMQ's camelCase spelling accepted by the kernel), and the typed options the
// engine classes take.
//
// Threads: plain values, copied into each component at construction.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace v1 = ::mqkit::plugin::v1;

enum class FlushMode : std::uint8_t { kAsync, kSync };

// RocketMQ accepts a whole record up to max_message_size plus this much (headers, properties).
inline constexpr std::int64_t kRecordSlack = 64 * 1024;
// Commit log files deleted per retention pass (RocketMQ's DELETE_FILES_BATCH_MAX).
inline constexpr int kDeleteFilesBatchMax = 10;

struct StoreOptions {
  std::string store_path;
  std::int64_t commit_log_file_size = 1LL << 30;
  std::int64_t consume_queue_file_size = 6'000'000;  // bytes, a multiple of 20
  FlushMode flush_mode = FlushMode::kAsync;
  std::chrono::milliseconds flush_interval_commit_log{500};
  std::int64_t flush_commit_log_least_pages = 4;
  std::chrono::milliseconds flush_commit_log_thorough_interval{10'000};
  std::chrono::milliseconds flush_interval_consume_queue{1000};
  std::int64_t flush_consume_queue_least_pages = 2;
  std::chrono::milliseconds flush_consume_queue_thorough_interval{60'000};
  std::chrono::milliseconds sync_flush_timeout{5000};
  bool check_crc_on_recover = true;
  std::chrono::milliseconds file_reserved_time{72LL * 3600 * 1000};
  std::vector<int> delete_when_hours{4};
  double disk_max_used_space_ratio = 0.75;  // configured in percent, kept as a fraction
  double disk_space_clean_forcibly_ratio = 0.85;
  double disk_space_warning_level_ratio = 0.90;
  bool clean_file_forcibly_enable = true;
  std::chrono::milliseconds clean_resource_interval{10'000};
  std::chrono::milliseconds delete_commit_log_files_interval{100};
  bool message_index_enable = true;
  std::int64_t max_hash_slot_num = 5'000'000;
  std::int64_t max_index_num = 20'000'000;
  std::int64_t max_message_size = 4LL * 1024 * 1024;
  bool transient_store_pool_enable = false;
  std::int64_t transient_store_pool_size = 5;  // buffers
  std::chrono::milliseconds commit_interval_commit_log{200};
  std::int64_t commit_commit_log_least_pages = 4;
  std::chrono::milliseconds commit_commit_log_thorough_interval{200};
  // Flushed commit-log bytes further than this behind the flushed offset leave the page cache
  // (0: the kernel decides, as in RocketMQ). Appends then reuse the evicted pages instead of
  // memory the system has not handed out recently — on virtual machines that give free memory
  // back to the host, a first touch of such memory costs several times the copy — and the
  // broker's page-cache footprint stays bounded; a consumer reading further back reads the disk.
  std::int64_t commit_log_page_cache_window = 0;
  // SYNC_FLUSH: zeros kept written this far ahead of the commit log writer (MappedFile::Policy::
  // zero_ahead), so group commits overwrite written blocks instead of converting fallocated
  // extents and committing the file system's journal each time. ASYNC_FLUSH does not use it: no
  // acknowledgement waits for its flushes.
  std::int64_t commit_log_zero_fill_ahead = 1LL << 20;
  // Writing through the mapping: the file allocator's thread keeps the commit log's pages this
  // far ahead of the writer faulted in (RocketMQ's warmMappedFile, ahead of the writer instead of
  // a whole file at once). A first write into a page otherwise takes the page fault on the
  // writer's thread, and on virtual machines a fault on memory the host took back costs many
  // times the copy.
  std::int64_t commit_log_warm_ahead = 32LL << 20;
  std::int64_t commit_log_zero_ahead() const noexcept {
    return flush_mode == FlushMode::kSync ? commit_log_zero_fill_ahead : 0;
  }

  // RocketMQ's rule: the pool only with ASYNC_FLUSH.
  bool uses_transient_store_pool() const noexcept {
    return transient_store_pool_enable && flush_mode == FlushMode::kAsync;
  }
  // Buffers the commit log is written through (0: through the mapping). SYNC_FLUSH always
  // writes with pwrite through one buffer: group commit then never write-protects mapped pages
  // (msync's write-protect faults and TLB-shootdown IPIs with many writer threads).
  std::int64_t write_buffers() const noexcept {
    if (uses_transient_store_pool()) return transient_store_pool_size;
    return flush_mode == FlushMode::kSync ? 1 : 0;
  }

  // What the allocator keeps warmed ahead of the writer: nothing when writes go through a buffer.
  std::int64_t commit_log_warm_ahead_bytes() const noexcept { return write_buffers() > 0 ? 0 : commit_log_warm_ahead; }

  std::string commit_log_dir() const { return store_path + "/commitlog"; }
  std::string consume_queue_dir() const { return store_path + "/consumequeue"; }
  std::string index_dir() const { return store_path + "/index"; }
  std::string config_dir() const { return store_path + "/config"; }
  std::string checkpoint_path() const { return store_path + "/checkpoint"; }
  std::string abort_path() const { return store_path + "/abort"; }
  std::string lock_path() const { return store_path + "/lock"; }
};

inline constexpr const char* kFlushDiskTypes[] = {"ASYNC_FLUSH", "SYNC_FLUSH", nullptr};

inline constexpr v1::ConfigField kConfigSchema[] = {
    {.key = "store_path", .type = v1::ValueType::kString, .default_value = "~/store",
     .description = "root directory of the store (commitlog/, consumequeue/, index/, config/, checkpoint); "
                    "a leading ~ is the user's home"},
    {.key = "mapped_file_size_commit_log", .type = v1::ValueType::kSize, .default_value = "1GiB",
     .description = "size of each commit log file; a record (or batch) never spans two files",
     .min = 4096, .max = 2147483647},
    {.key = "mapped_file_size_consume_queue", .type = v1::ValueType::kSize, .default_value = "6000000",
     .description = "bytes per consume queue file, rounded up to whole 20-byte units (6000000 = 300000 units)",
     .min = 20, .max = 2147483640},
    {.key = "flush_disk_type", .type = v1::ValueType::kString, .default_value = "ASYNC_FLUSH",
     .description = "ASYNC_FLUSH: acknowledge once written to the page cache, flush in the background; "
                    "SYNC_FLUSH: acknowledge once on disk (group commit)",
     .allowed = kFlushDiskTypes},
    {.key = "flush_interval_commit_log", .type = v1::ValueType::kDuration, .default_value = "500ms",
     .description = "ASYNC_FLUSH: how often the commit log flusher looks for dirty pages", .min = 1, .max = 60'000},
    {.key = "flush_commit_log_least_pages", .type = v1::ValueType::kInt, .default_value = "4",
     .description = "ASYNC_FLUSH: flush only when at least this many 4 KiB pages are dirty (0 = any)",
     .min = 0, .max = 1'000'000},
    {.key = "flush_commit_log_thorough_interval", .type = v1::ValueType::kDuration, .default_value = "10s",
     .description = "ASYNC_FLUSH: flush every dirty byte at least this often", .min = 1, .max = 3'600'000},
    {.key = "flush_interval_consume_queue", .type = v1::ValueType::kDuration, .default_value = "1s",
     .description = "how often consume queues and index files are flushed and the checkpoint written",
     .min = 1, .max = 60'000},
    {.key = "flush_consume_queue_least_pages", .type = v1::ValueType::kInt, .default_value = "2",
     .description = "flush a consume queue only when at least this many 4 KiB pages are dirty (0 = any)",
     .min = 0, .max = 1'000'000},
    {.key = "flush_consume_queue_thorough_interval", .type = v1::ValueType::kDuration, .default_value = "60s",
     .description = "flush every consume queue and index byte, and advance the checkpoint's dispatch "
                    "position, at least this often",
     .min = 1, .max = 3'600'000},
    {.key = "sync_flush_timeout", .type = v1::ValueType::kDuration, .default_value = "5s",
     .description = "SYNC_FLUSH: how long an append waits for its flush before it is acknowledged as "
                    "FLUSH_DISK_TIMEOUT",
     .min = 1, .max = 600'000},
    {.key = "check_crc_on_recover", .type = v1::ValueType::kBool, .default_value = "true",
     .description = "verify each record's body CRC while recovering the commit log"},
    {.key = "file_reserved_time", .type = v1::ValueType::kDuration, .default_value = "72h",
     .description = "how long commit log files are kept after their last write (write a unit: RocketMQ's "
                    "fileReservedTime counts hours, a bare number here counts milliseconds; at least 1h, so "
                    "a bare RocketMQ value such as 72 is refused rather than deleting data early)",
     .min = 3'600'000},
    {.key = "delete_when", .type = v1::ValueType::kString, .default_value = "04",
     .description = "hours of the day (00-23, ';'-separated) when expired files are deleted even if the "
                    "disk is not filling up"},
    {.key = "disk_max_used_space_ratio", .type = v1::ValueType::kInt, .default_value = "75",
     .description = "percent of the disk in use above which expired files are deleted at any hour",
     .min = 10, .max = 95},
    {.key = "disk_space_clean_forcibly_ratio", .type = v1::ValueType::kDouble, .default_value = "0.85",
     .description = "disk use (fraction) above which the oldest files are deleted even if not expired",
     .min = 0.01, .max = 1.0},
    {.key = "disk_space_warning_level_ratio", .type = v1::ValueType::kDouble, .default_value = "0.90",
     .description = "disk use (fraction) above which the store refuses writes (disk full) until use falls "
                    "back below disk_space_clean_forcibly_ratio",
     .min = 0.01, .max = 1.0},
    {.key = "clean_file_forcibly_enable", .type = v1::ValueType::kBool, .default_value = "true",
     .description = "allow deleting files that have not expired when the disk is nearly full"},
    {.key = "clean_resource_interval", .type = v1::ValueType::kDuration, .default_value = "10s",
     .description = "how often disk use is checked and expired files are deleted", .min = 1, .max = 3'600'000},
    {.key = "delete_commit_log_files_interval", .type = v1::ValueType::kDuration, .default_value = "100ms",
     .description = "pause between two commit log file deletions in one retention pass", .min = 0,
     .max = 60'000},
    {.key = "message_index_enable", .type = v1::ValueType::kBool, .default_value = "true",
     .description = "build the key index (query by KEYS and UNIQ_KEY)"},
    {.key = "max_hash_slot_num", .type = v1::ValueType::kInt, .default_value = "5000000",
     .description = "hash slots per index file", .min = 1, .max = 100'000'000},
    {.key = "max_index_num", .type = v1::ValueType::kInt, .default_value = "20000000",
     .description = "entries per index file (the file is sparse: disk is used as entries are added)",
     .min = 2, .max = 100'000'000},
    {.key = "max_message_size", .type = v1::ValueType::kSize, .default_value = "4MiB",
     .description = "largest message body accepted; a whole record may be 64 KiB larger",
     .min = 1, .max = 1'073'741'824},
    {.key = "transient_store_pool_enable", .type = v1::ValueType::kBool, .default_value = "false",
     .description = "ASYNC_FLUSH only (ignored with SYNC_FLUSH, as in RocketMQ; SYNC_FLUSH always writes through "
                    "one buffer of its own): appends go to a pool of pre-touched memory buffers and a commit "
                    "service writes them into the commit log with pwrite; messages become dispatchable once "
                    "committed (see commit_commit_log_thorough_interval)"},
    {.key = "transient_store_pool_size", .type = v1::ValueType::kInt, .default_value = "5",
     .description = "buffers in the transient store pool, each min(4 MiB, mapped_file_size_commit_log) of "
                    "anonymous memory (default 20 MiB); appends wait for a commit when all are full",
     .min = 1, .max = 256},
    {.key = "commit_interval_commit_log", .type = v1::ValueType::kDuration, .default_value = "200ms",
     .description = "transient store pool: how often the commit service looks for bytes to commit",
     .min = 1, .max = 60'000},
    {.key = "commit_commit_log_least_pages", .type = v1::ValueType::kInt, .default_value = "4",
     .description = "transient store pool: commit only when at least this many 4 KiB pages wait (0 = any)",
     .min = 0, .max = 1'000'000},
    {.key = "commit_log_page_cache_window", .type = v1::ValueType::kSize, .default_value = "0",
     .description = "evict flushed commit log bytes further than this behind the flush position from the page "
                    "cache (0 = never); appends then reuse those pages instead of fresh memory, and consumers "
                    "reading further back read from disk",
     .min = 0, .max = 1LL << 50},
    {.key = "commit_log_zero_fill_ahead", .type = v1::ValueType::kSize, .default_value = "1MiB",
     .description = "SYNC_FLUSH only: keep zeros written this far ahead of the commit log writer (0 = off), so "
                    "each group commit overwrites written blocks instead of converting fallocated ones and "
                    "committing the file system journal",
     .min = 0, .max = 1LL << 30},
    {.key = "commit_log_warm_ahead", .type = v1::ValueType::kSize, .default_value = "32MiB",
     .description = "writing through the mapping (ASYNC_FLUSH without the transient store pool): keep the "
                    "commit log's pages this far ahead of the writer faulted in on the file allocator's thread, "
                    "so appends take no page faults (0 = off; RocketMQ's warmMapedFileEnable warms whole files)",
     .min = 0, .max = 1LL << 30},
    {.key = "commit_commit_log_thorough_interval", .type = v1::ValueType::kDuration, .default_value = "200ms",
     .description = "transient store pool: commit every waiting byte at least this often (bounds how long "
                    "an appended message stays unreadable)",
     .min = 1, .max = 60'000},
};

v1::Result<StoreOptions> options_from_config(const v1::ConfigValues& config);

// "~/store" -> "$HOME/store".
std::string expand_home(std::string_view path);
// "04;16" -> {4, 16}.
v1::Result<std::vector<int>> parse_delete_when(std::string_view text);

}  // namespace mqkit::plugins::stores::commitlog
