// ConsumeQueue: the index of one (topic, queue) into the commit log (RocketMQ's ConsumeQueue).
// Fixed 20-byte units — commit offset i64 | record size i32 | tags code i64, big-endian — in
// files of a configured size under consumequeue/<topic>/<queueId>/, each named by the byte
// offset of its first unit. The logical queue offset of a unit is its index.
//
// Units are written at an explicit index (the record's queue offset), so dispatching a record
// twice (re-dispatch after a crash) finds the unit already there and changes nothing.
//
// Threads: put() runs on the kernel's reput thread only; recovery (recover, truncate_dirty)
// before dispatch starts. Readers on any thread see units below max_offset(), published with
// release semantics after the unit is written. Retention (delete_expired_files) and the flusher
// run on the store's housekeeping thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "env.hpp"
#include "logger.hpp"
#include "mapped_file_queue.hpp"

namespace mqkit::plugins::stores::commitlog {

inline constexpr std::int64_t kUnitSize = 20;

struct ConsumeQueueUnit {
  std::int64_t commit_offset = 0;
  std::int32_t size = 0;
  std::int64_t tags_code = 0;
  // RocketMQ's test for a written unit; zeros (never written) fail it.
  bool valid() const noexcept { return commit_offset >= 0 && size > 0; }
};

ConsumeQueueUnit decode_unit(const std::uint8_t* bytes) noexcept;
void encode_unit(const ConsumeQueueUnit& unit, std::uint8_t* bytes) noexcept;

// A run of units readable in place, kept mapped by `file`.
struct UnitRun {
  std::shared_ptr<MappedFile> file;
  const std::uint8_t* data = nullptr;
  std::int64_t first_offset = 0;
  std::int64_t count = 0;
  ConsumeQueueUnit at(std::int64_t i) const noexcept { return decode_unit(data + i * kUnitSize); }
};

class ConsumeQueue {
 public:
  ConsumeQueue(Env& env, Logger log, std::string topic, std::int32_t queue_id, std::string dir,
               std::int64_t file_size);

  const std::string& topic() const noexcept { return topic_; }
  std::int32_t queue_id() const noexcept { return queue_id_; }
  const std::string& dir() const noexcept { return files_.dir(); }

  // What recover() found.
  struct Recovered {
    std::int64_t max_offset = 0;
    // >= 0 when damaged units were dropped: re-dispatch from this commit offset rebuilds them.
    std::int64_t rebuild_from = -1;
    std::string problem;
  };
  // Opens the files and finds the end of the written units: the last file is searched for its
  // first unwritten unit and the units before it are checked (valid, commit offsets rising).
  v1::Result<Recovered> recover();
  // Drops units whose record starts at or past `commit_log_max` (a truncated commit log tail).
  v1::Status truncate_dirty(std::int64_t commit_log_max);

  // Writes the unit for queue offset `queue_offset`; idempotent for a unit already there. One
  // thread at a time (the dispatch thread, or recovery before it starts).
  v1::Status put(std::int64_t queue_offset, const ConsumeQueueUnit& unit);

  std::int64_t min_offset() const noexcept { return min_offset_.load(std::memory_order_acquire); }
  std::int64_t max_offset() const noexcept { return max_offset_.load(std::memory_order_acquire); }
  // Commit offset just past the last unit's record (0 when empty).
  std::int64_t last_commit_end() const;

  v1::Result<ConsumeQueueUnit> unit(std::int64_t queue_offset) const;
  // Up to `max_units` readable units from `from` within one file; count 0 when none.
  UnitRun units(std::int64_t from, std::int64_t max_units) const;

  // The first queue offset of the file after the one holding `queue_offset`.
  std::int64_t roll_next_file(std::int64_t queue_offset) const noexcept {
    const std::int64_t per_file = files_.file_size() / kUnitSize;
    return queue_offset + per_file - queue_offset % per_file;
  }

  // Moves min_offset to the first unit whose record is still in the commit log.
  void correct_min_offset(std::int64_t commit_log_min);
  // Deletes files (never the last) whose every unit points below `commit_log_min`.
  v1::Result<int> delete_expired_files(std::int64_t commit_log_min);

  v1::Status flush(std::int64_t least_pages);
  v1::Status destroy();

 private:
  std::int64_t first_unit_at_or_after(std::int64_t commit_offset, std::int64_t from, std::int64_t to) const;

  Env& env_;
  Logger log_;
  const std::string topic_;
  const std::int32_t queue_id_;
  MappedFileQueue files_;
  // The file put() wrote last, kept for the next unit: with thousands of queues every put lands
  // on a cold page, and a lookup's lock or reference count (atomic read-modify-writes) would
  // wait for that store to complete. Only put()'s thread uses it; recover() and
  // truncate_dirty() (before dispatch starts) forget it.
  std::shared_ptr<MappedFile> writing_;
  std::atomic<std::int64_t> min_offset_{0};
  std::atomic<std::int64_t> max_offset_{0};
};

}  // namespace mqkit::plugins::stores::commitlog
