// MemoryLog: the memory store's commit log. Records are encoded exactly as RocketMQ lays them out
// on disk, back to back in chunks of memory, and addressed by a commit log offset that grows like
// a real commit log's (without end-of-file blanks: a chunk simply ends where its last record
// ends and the next chunk starts at that offset). A batch never spans chunks.
//
// The log is bounded by a memory budget that counts chunk capacity plus an estimate of the
// per-record metadata (queue entries, index keys) the store keeps beside it. When an append would
// go over the budget, whole chunks are dropped oldest first; the log's min offset moves up. A
// StoredSlice handed out earlier stays valid: it holds the chunk alive.
//
// Threads: reserve()/commit() are called only under the store's put lock (one appender at a
// time). Every other method may be called from any thread concurrently with an append.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>

#include "mqkit/plugin/v1/buffer.hpp"
#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::plugins::stores::memory {

// The two int32 fields every record and every end-of-file blank starts with.
struct RecordHead {
  std::int32_t size = 0;
  bool blank = false;
};
// Corruption when `bytes` holds fewer than 8 bytes or the size is below 8. `offset` is for the
// message only. Whether the size fits what is available is the caller's check.
plugin::v1::Result<RecordHead> read_record_head(std::span<const std::uint8_t> bytes, std::int64_t offset);

class MemoryLog {
 public:
  // Where an append writes: `bytes` at commit offset `offset`, visible to readers after commit().
  struct Reservation {
    std::int64_t offset = 0;
    std::span<std::uint8_t> bytes{};
    std::int64_t metadata_bytes = 0;
  };

  // budget >= 4 * chunk_size is not required: chunks are capped at a quarter of the budget so
  // that eviction always has something older to drop.
  MemoryLog(std::int64_t budget_bytes, std::int64_t chunk_size);
  MemoryLog(const MemoryLog&) = delete;
  MemoryLog& operator=(const MemoryLog&) = delete;

  // Put lock held. Makes room for `bytes` contiguous bytes plus `metadata_bytes` of accounted
  // metadata, evicting oldest chunks as needed. ResourceExhausted when the two together exceed
  // the whole budget. Nothing becomes visible until commit().
  plugin::v1::Result<Reservation> reserve(std::int64_t bytes, std::int64_t metadata_bytes);
  // Put lock held. Publishes the reservation made last, after its bytes were written.
  void commit(const Reservation& reservation);
  // Put lock held. Stores a disk store's end-of-file blank of `size` bytes copied by replication:
  // only its 8-byte header is kept; the offsets it covers stay a gap and the next record starts
  // a new chunk after it.
  plugin::v1::Status append_blank(std::int32_t size);

  // Put lock held, log empty (nothing ever appended): the log starts at `offset` instead of 0 (a
  // replica whose master's transfer starts there).
  void start_at(std::int64_t offset);
  bool never_written() const noexcept { return chunks_.empty() && max_offset() == 0; }

  // Oldest offset still in memory, and the next offset to be written.
  std::int64_t min_offset() const noexcept { return min_offset_.load(std::memory_order_acquire); }
  std::int64_t max_offset() const noexcept { return max_offset_.load(std::memory_order_acquire); }
  // Chunk capacity plus metadata estimates of every chunk still in the log.
  std::int64_t accounted_bytes() const noexcept { return accounted_.load(std::memory_order_relaxed); }
  std::int64_t budget_bytes() const noexcept { return budget_; }

  // A read-locked view of the chunks, so that a reader looking up many records takes the lock
  // once. Short-lived: holding it delays chunk creation and eviction.
  class View {
   public:
    // The committed bytes [offset, offset + size) when they lie in one chunk still in memory.
    std::optional<plugin::v1::StoredSlice> slice(std::int64_t offset, std::int64_t size) const;
    // The whole record starting at `offset`: NotFound when nothing valid starts there.
    plugin::v1::Result<plugin::v1::StoredSlice> record_at(std::int64_t offset) const;

   private:
    friend class MemoryLog;
    explicit View(const MemoryLog& log) : log_(log), lock_(log.chunks_mutex_) {}
    const MemoryLog& log_;
    std::shared_lock<std::shared_mutex> lock_;
  };
  View view() const { return View(*this); }

  // Whole committed records from `from` (or from min_offset() when that has moved past it), all
  // within one chunk, at most max_bytes unless the first record alone is larger. Blanks (copied
  // from a disk store by replication) are skipped: a chunk may then start past `from` or, when
  // nothing follows the blank yet, be empty with next_offset past the blank.
  plugin::v1::Result<plugin::v1::DispatchChunk> read_for_dispatch(std::int64_t from,
                                                                  std::int64_t max_bytes) const;

 private:
  using Buffer = std::unique_ptr<std::uint8_t[]>;
  struct Chunk {
    // Allocates the buffer unless a recycled one of `capacity_bytes` is given.
    Chunk(std::int64_t start_offset, std::int64_t capacity_bytes, Buffer recycled);
    const std::int64_t start;
    const std::int64_t capacity;
    Buffer data;
    // Committed end (absolute offset). Written under the put lock, read by anyone.
    std::atomic<std::int64_t> end;
    // Put lock only.
    std::int64_t metadata_bytes = 0;
    bool sealed = false;

    std::int64_t free_bytes() const noexcept {
      return sealed ? 0 : start + capacity - end.load(std::memory_order_relaxed);
    }
    const std::uint8_t* at(std::int64_t offset) const noexcept { return data.get() + (offset - start); }
  };

  // Shared or exclusive lock on chunks_mutex_ held.
  const std::shared_ptr<Chunk>* find_chunk(std::int64_t offset) const;
  // Put lock held; take chunks_mutex_ exclusively. Eviction hands back the oldest chunk's buffer
  // for reuse when nobody holds a slice of it: at the budget, appends then write into memory
  // that is already mapped instead of faulting in fresh pages.
  Buffer evict_oldest();
  void add_chunk(std::int64_t capacity, Buffer recycled);

  const std::int64_t budget_;
  const std::int64_t chunk_size_;

  mutable std::shared_mutex chunks_mutex_;
  std::deque<std::shared_ptr<Chunk>> chunks_;  // ordered by start; contiguous

  std::atomic<std::int64_t> min_offset_{0};
  std::atomic<std::int64_t> max_offset_{0};
  std::atomic<std::int64_t> accounted_{0};
};

}  // namespace mqkit::plugins::stores::memory
