// CommitLog: the one append-only log every topic's messages go to, in fixed-size mapped files
// named by their start offset (RocketMQ's CommitLog). Records are RocketMQ records, encoded by
// plugin-api's encode_record; a record (or a batch) that does not fit the rest of a file leaves
// an end-of-file blank (int32 remaining size, int32 0xCBD43194) and goes to the next file, so
// records never span files. The log assigns commit offsets, queue offsets and store timestamps.
//
// Two ways to write (docs/storage-format.md §2.5):
// - through the mapping (default): the writer copies records into the mapped file; what it
//   wrote is committed (readable) at once.
// - through a TransientStorePool (transient_store_pool_enable, and always with SYNC_FLUSH): the
//   writer copies records into the pool (its written offset), and commit() — on the commit
//   service's thread (or the group commit's, before each flush), or on the writer's when the
//   pool is full — pwrites them into the file and only then advances the committed offset. Readers and dispatch never look past the committed offset, so they never
//   see bytes that are not in the file. flush() commits everything first.
//
// Threads: append() and append_replicated() serialize on the put lock (one writer at a time).
// The committed offset is published with release semantics after a record's bytes are in the
// file, so readers on any thread (read_record, read_for_dispatch) see whole records only.
// commit() and flush() may run on any thread and are serialized internally (lock order: put,
// flush, commit, publish). Recovery (restore) runs before any of these.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "env.hpp"
#include "file_allocator.hpp"
#include "logger.hpp"
#include "mapped_file_queue.hpp"
#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "options.hpp"
#include "queue_offset_table.hpp"
#include "transient_store_pool.hpp"

namespace mqkit::plugins::stores::commitlog {

struct CommitLogOptions {
  std::string dir;
  std::int64_t file_size = 1LL << 30;
  std::int64_t max_message_size = 4LL * 1024 * 1024;
  // Buffers of the write buffer (transient store pool); 0 writes through the mapping.
  std::int64_t write_buffers = 0;
  // Flushed bytes further than this behind the flushed offset are evicted from the page cache
  // (0: never; see StoreOptions::commit_log_page_cache_window).
  std::int64_t page_cache_window = 0;
  // Zeros written ahead of the writer (MappedFile::Policy::zero_ahead; 0: none).
  std::int64_t zero_ahead = 0;
  // Writing through the mapping: pages kept faulted in this far ahead of the writer by the
  // allocator's thread (0: none; StoreOptions::commit_log_warm_ahead).
  std::int64_t warm_ahead = 0;
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

  // Opens the existing files (positions stay 0 until restore()) and allocates the pool.
  v1::Status load();
  // Recovery's verdict: the log ends at `max_offset` (files already truncated there), and data
  // below `flushed_offset` is known to be on disk.
  void restore(std::int64_t max_offset, std::int64_t flushed_offset, std::int64_t last_store_timestamp,
               QueueOffsetTable queue_offsets);
  void start_allocator() { allocator_.start(); }
  // Refuses further appends, waits for the one in progress and stops the allocator.
  void close();

  v1::Result<AppendOutcome> append(std::span<const plugin::v1::MessageToAppend> batch);
  // Copies records encoded by another store byte for byte; `commit_offset` must be max_offset(),
  // or, while the log holds nothing, the start of a file (an empty slave starts at its master's
  // last file).
  v1::Status append_replicated(std::int64_t commit_offset, std::span<const std::uint8_t> records);

  // First offset still held (0 when empty) and the end of the committed (readable) records.
  std::int64_t min_offset() const;
  std::int64_t max_offset() const noexcept { return committed_.load(std::memory_order_acquire); }
  // Where the next record goes: max_offset() plus what waits in the pool to be committed.
  std::int64_t written_offset() const noexcept { return written_.load(std::memory_order_acquire); }
  const TransientStorePool* pool() const noexcept { return pool_.get(); }

  // Pool only: copies what the writer published into the files when at least `least_pages`
  // 4 KiB pages wait (0 = any byte; a file that filled up always commits). Returns whether it
  // committed anything. An error (a failed pwrite) leaves the committed offset where it was.
  v1::Result<bool> commit(std::int64_t least_pages);
  // A commit failed: acknowledged records may be stuck in the pool, the store must stop writes.
  bool commit_failed() const noexcept { return commit_failed_.load(std::memory_order_acquire); }
  std::int64_t flushed_offset() const noexcept { return flushed_.load(std::memory_order_acquire); }
  std::int64_t last_store_timestamp() const noexcept { return last_store_timestamp_.load(std::memory_order_acquire); }
  // Store timestamp of the last record at or below the flushed offset (for the checkpoint).
  std::int64_t flushed_store_timestamp() const noexcept {
    return flushed_store_timestamp_.load(std::memory_order_acquire);
  }

  // Commits (pool) and makes everything written so far durable; returns the new flushed offset.
  v1::Result<std::int64_t> flush();
  // ASYNC_FLUSH's periodic round: makes durable only what lies in whole write-back blocks
  // behind the writer (settled_offset()), so the writer never touches a page (or large folio)
  // that is under writeback — a write into one waits for its I/O, which held appends for tens
  // of milliseconds. The rest waits for a thorough round (or flush()).
  v1::Result<std::int64_t> flush_settled();
  // `offset` rounded down to a write-back block boundary of its file: the bytes below it share
  // no page-cache folio with the bytes at or above it.
  std::int64_t settled_offset(std::int64_t offset) const noexcept;

  // The whole record starting at `commit_offset`; NotFound outside [min, max) or where no
  // record starts.
  v1::Result<plugin::v1::StoredSlice> read_record(std::int64_t commit_offset) const;
  // `size` bytes at `commit_offset` (a record a consume queue unit points at).
  v1::Result<plugin::v1::StoredSlice> read(std::int64_t commit_offset, std::int32_t size) const;
  // Store timestamp of the record at `commit_offset`.
  v1::Result<std::int64_t> store_timestamp_at(std::int64_t commit_offset) const;
  // Whole committed records from `from`, at most `max_bytes` (at least one record), never
  // crossing a file; end-of-file blanks are skipped. Copied with pread into a buffer the chunk
  // keeps alive, not viewed through the mapping (storage-format §2.5).
  v1::Result<plugin::v1::DispatchChunk> read_for_dispatch(std::int64_t from, std::int64_t max_bytes) const;

  void remove_topic(std::string_view topic);
  // Under the put lock, so no append to the queue can start meanwhile: asks `remove` with the
  // queue's next queue offset, and forgets that offset when it says yes (the queue starts again
  // at 0). Returns what `remove` said.
  bool remove_queue_if(std::string_view topic, std::int32_t queue_id,
                       const std::function<bool(std::int64_t next_queue_offset)>& remove);
  MappedFileQueue& files() noexcept { return files_; }
  const FileAllocator& allocator() const noexcept { return allocator_; }
  const CommitLogOptions& options() const noexcept { return options_; }
  std::int64_t scratch_bytes() const;
  // How long the append holding the put lock has held it (pageCacheLockTimeMills).
  plugin::v1::PutLockClock& put_lock_clock() noexcept { return put_lock_clock_; }

 private:
  v1::Status validate(std::span<const plugin::v1::MessageToAppend> batch, std::vector<std::int32_t>& sizes,
                      std::int64_t& total) const;
  v1::Result<std::shared_ptr<MappedFile>> current_file();
  v1::Result<std::shared_ptr<MappedFile>> next_file(std::int64_t start_offset);
  // The writer's end of the log moved to `written` (without a pool it is committed at once).
  void publish(std::int64_t written, std::int64_t store_timestamp);
  // Bytes up to `end` went into the file directly (pool emptied first, under the commit lock).
  void publish_committed(std::int64_t end, std::int64_t store_timestamp);
  // Puts the end-of-file blank at `position` of `file` and moves the writer to the next file.
  v1::Status place_blank(MappedFile& file, std::int64_t position);
  // Bytes up to `position` of `file` were written through the mapping: now and then (every
  // quarter of the warm-ahead distance) asks the allocator to warm the pages ahead.
  void wrote_through_mapping(MappedFile& file, std::int64_t position);
  // Puts finished records at `position` of `file`.
  v1::Status place(MappedFile& file, std::int64_t position, std::span<const std::uint8_t> records,
                   std::int64_t store_timestamp);
  v1::Result<bool> commit_locked(std::int64_t least_pages);
  // read_record of a record still in the pool: a copy, made under the commit lock; NotFound
  // when there is none, or when it was committed meanwhile (`committed` says so: read the file).
  v1::Result<plugin::v1::StoredSlice> read_uncommitted(std::int64_t commit_offset, bool* committed) const;
  // Pool: commits until the pool has room for bytes up to `end`.
  v1::Status make_room(std::int64_t end);

  Env& env_;
  Logger log_;
  const CommitLogOptions options_;
  MappedFileQueue files_;
  FileAllocator allocator_;

  mutable std::mutex put_mutex_;
  plugin::v1::PutLockClock put_lock_clock_;
  bool closed_ = false;                 // guarded by put_mutex_
  QueueOffsetTable queue_offsets_;      // guarded by put_mutex_
  std::vector<std::uint8_t> scratch_;   // guarded by put_mutex_
  std::vector<std::int32_t> sizes_;     // guarded by put_mutex_: record sizes of the batch
  std::int64_t warm_due_at_ = 0;        // guarded by put_mutex_: the commit offset that asks for warming next

  // The pool: bytes of [committed_, written_) wait there. Records placed in a file after its
  // end-of-file blank are never copied into the file (the file ends with zeros there).
  std::unique_ptr<TransientStorePool> pool_;
  struct Blank {
    std::int64_t data_end;  // just past the blank's 8-byte header
    std::int64_t file_end;
  };
  std::deque<Blank> blanks_;  // guarded by publish_mutex_: blanks not yet committed
  std::int64_t written_timestamp_ = 0;  // guarded by publish_mutex_
  mutable std::mutex commit_mutex_;  // also held by read_uncommitted while it copies
  std::atomic<bool> commit_failed_{false};

  std::atomic<std::int64_t> written_{0};
  std::atomic<std::int64_t> committed_{0};
  // After a flush to `flushed`: evicts what lies further than the page-cache window behind it,
  // in steps, so that new appends reuse those pages instead of fresh memory. Under flush_mutex_.
  void drop_cache_behind(std::int64_t flushed) noexcept;

  std::atomic<std::int64_t> flushed_{0};
  std::atomic<std::int64_t> last_store_timestamp_{0};
  std::atomic<std::int64_t> flushed_store_timestamp_{0};
  // Taken around publishing (written or committed, timestamp) and reading the pair, so a commit
  // and a flush know the timestamp of the last record they cover.
  mutable std::mutex publish_mutex_;
  // A buffer of at least `size` bytes for read_for_dispatch: a kept one no chunk holds, or a new one.
  std::shared_ptr<std::vector<std::uint8_t>> dispatch_buffer(std::size_t size) const;
  static constexpr std::size_t kKeptDispatchBuffers = 4;  // the reput thread, HA transfers
  mutable std::mutex dispatch_buffers_mutex_;
  mutable std::vector<std::shared_ptr<std::vector<std::uint8_t>>> dispatch_buffers_;
  std::mutex flush_mutex_;
  std::int64_t dropped_below_ = -1;  // guarded by flush_mutex_: evicted up to here (-1: not yet)
};

// The largest page-cache folio the kernel builds for a file (PMD size): folios are aligned to
// their size in the file, so none straddles a multiple of this.
inline constexpr std::int64_t kWriteBackBlock = 2 * 1024 * 1024;

// RocketMQ's rule for writing back [from, to) of the commit log (commit or flush): some byte
// when `least_pages` is 0, else at least that many 4 KiB pages — or a file filled up.
bool worth_writing_back(std::int64_t from, std::int64_t to, std::int64_t file_size, std::int64_t least_pages) noexcept;

// The page threshold of a periodic write-back round (flusher, commit service): `least_pages`,
// except once every `thorough_interval`, when it is 0 (write back every byte).
class WriteBackRounds {
 public:
  WriteBackRounds(std::int64_t least_pages, std::chrono::milliseconds thorough_interval)
      : least_pages_(least_pages), thorough_interval_(thorough_interval) {}
  std::int64_t next_least_pages() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_thorough_ < thorough_interval_) return least_pages_;
    last_thorough_ = now;
    return 0;
  }

 private:
  std::int64_t least_pages_;
  std::chrono::milliseconds thorough_interval_;
  std::chrono::steady_clock::time_point last_thorough_ = std::chrono::steady_clock::now();
};

// Prepared and rolled-back transaction records take no queue offset and never reach a consume
// queue (RocketMQ stamps queue offset 0 on them).
bool takes_queue_offset(std::int32_t sys_flag) noexcept;

// Topic names become directory names: refuse the ones that would escape consumequeue/.
v1::Status validate_topic_name(std::string_view topic);

}  // namespace mqkit::plugins::stores::commitlog
