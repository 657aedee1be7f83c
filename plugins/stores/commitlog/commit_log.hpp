// CommitLog: the one append-only log every topic's messages go to, in fixed-size mapped files
// named by their start offset (RocketMQ's CommitLog). Records are RocketMQ records, encoded by
// plugin-api's encode_record; a record (or a batch) that does not fit the rest of a file leaves
// an end-of-file blank (int32 remaining size, int32 0xCBD43194) and goes to the next file, so
// records never span files. The log assigns commit offsets, queue offsets and store timestamps.
//
// Threads: append() and append_replicated() serialize on the put lock (one writer at a time).
// The committed offset is published with release semantics after a record's bytes are in place,
// so readers on any thread (read_record, read_for_dispatch) see whole records only. flush_to()
// runs on the flusher thread (or any thread for an explicit flush) and is serialized
// internally. Recovery (restore) runs before any of these.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "env.hpp"
#include "file_allocator.hpp"
#include "logger.hpp"
#include "mapped_file_queue.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "options.hpp"
#include "queue_offset_table.hpp"

namespace mqkit::plugins::stores::commitlog {

struct CommitLogOptions {
  std::string dir;
  std::int64_t file_size = 1LL << 30;
  std::int64_t max_message_size = 4LL * 1024 * 1024;
};

struct AppendOutcome {
  plugin::v1::AppendResult result{};
  std::int64_t end_offset = 0;  // the commit log offset just past the batch
};

class CommitLog {
 public:
  CommitLog(Env& env, Logger log, CommitLogOptions options);
  ~CommitLog();
  CommitLog(const CommitLog&) = delete;
  CommitLog& operator=(const CommitLog&) = delete;

  // Opens the existing files; positions stay 0 until restore().
  v1::Status load();
  // Recovery's verdict: the log ends at `max_offset` (files already truncated there), and data
  // below `flushed_offset` is known to be on disk.
  void restore(std::int64_t max_offset, std::int64_t flushed_offset, std::int64_t last_store_timestamp,
               QueueOffsetTable queue_offsets);
  void start_allocator() { allocator_.start(); }
  // Refuses further appends, waits for the one in progress and stops the allocator.
  void close();

  v1::Result<AppendOutcome> append(std::span<const plugin::v1::MessageToAppend> batch);
  // Copies records encoded by another store byte for byte; `commit_offset` must be max_offset().
  v1::Status append_replicated(std::int64_t commit_offset, std::span<const std::uint8_t> records);

  // First offset still held (0 when empty) and the offset where the next record goes.
  std::int64_t min_offset() const;
  std::int64_t max_offset() const noexcept { return committed_.load(std::memory_order_acquire); }
  std::int64_t flushed_offset() const noexcept { return flushed_.load(std::memory_order_acquire); }
  std::int64_t last_store_timestamp() const noexcept { return last_store_timestamp_.load(std::memory_order_acquire); }
  // Store timestamp of the last record at or below the flushed offset (for the checkpoint).
  std::int64_t flushed_store_timestamp() const noexcept {
    return flushed_store_timestamp_.load(std::memory_order_acquire);
  }

  // Makes everything committed so far durable; returns the new flushed offset.
  v1::Result<std::int64_t> flush();

  // The whole record starting at `commit_offset`; NotFound outside [min, max) or where no
  // record starts.
  v1::Result<plugin::v1::StoredSlice> read_record(std::int64_t commit_offset) const;
  // `size` bytes at `commit_offset` (a record a consume queue unit points at).
  v1::Result<plugin::v1::StoredSlice> read(std::int64_t commit_offset, std::int32_t size) const;
  // Store timestamp of the record at `commit_offset`.
  v1::Result<std::int64_t> store_timestamp_at(std::int64_t commit_offset) const;
  // Whole committed records from `from`, at most `max_bytes` (at least one record), never
  // crossing a file; end-of-file blanks are skipped.
  v1::Result<plugin::v1::DispatchChunk> read_for_dispatch(std::int64_t from, std::int64_t max_bytes) const;

  void remove_topic(std::string_view topic);
  MappedFileQueue& files() noexcept { return files_; }
  const CommitLogOptions& options() const noexcept { return options_; }
  std::int64_t scratch_bytes() const;

 private:
  v1::Status validate(std::span<const plugin::v1::MessageToAppend> batch, std::vector<std::int32_t>& sizes,
                      std::int64_t& total) const;
  v1::Result<std::shared_ptr<MappedFile>> current_file();
  v1::Result<std::shared_ptr<MappedFile>> next_file(std::int64_t start_offset);
  void publish(std::int64_t committed, std::int64_t store_timestamp);

  Env& env_;
  Logger log_;
  const CommitLogOptions options_;
  MappedFileQueue files_;
  FileAllocator allocator_;

  mutable std::mutex put_mutex_;
  bool closed_ = false;                 // guarded by put_mutex_
  QueueOffsetTable queue_offsets_;      // guarded by put_mutex_
  std::vector<std::uint8_t> scratch_;   // guarded by put_mutex_
  std::vector<std::int32_t> sizes_;     // guarded by put_mutex_: record sizes of the batch

  std::atomic<std::int64_t> committed_{0};
  std::atomic<std::int64_t> flushed_{0};
  std::atomic<std::int64_t> last_store_timestamp_{0};
  std::atomic<std::int64_t> flushed_store_timestamp_{0};
  // Taken around publishing (committed, timestamp) and reading the pair, so a flush knows the
  // timestamp of the last record it made durable.
  mutable std::mutex publish_mutex_;
  std::mutex flush_mutex_;
};

// Prepared and rolled-back transaction records take no queue offset and never reach a consume
// queue (RocketMQ stamps queue offset 0 on them).
bool takes_queue_offset(std::int32_t sys_flag) noexcept;

// Topic names become directory names: refuse the ones that would escape consumequeue/.
v1::Status validate_topic_name(std::string_view topic);

}  // namespace mqkit::plugins::stores::commitlog
