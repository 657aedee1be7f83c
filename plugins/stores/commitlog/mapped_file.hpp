// MappedFile: one fixed-size data file of the store (a commit log segment, a consume queue
// segment, an index file), memory-mapped whole. `start_offset` is the logical offset of its
// first byte, which is also its 20-digit file name.
//
// Disk blocks: a file is created sparse at its full size (RocketMQ's tools expect every file
// at its nominal size) and its blocks are reserved (fallocate) in chunks as the writer gets
// near the end of what is reserved — reserve_through() before every write. A write through the
// mapping into a hole on a full disk would kill the process with SIGBUS; a reservation that
// fails is an ordinary error instead. How far ahead it reserves is the file's Policy.
//
// Lifetime: always held by shared_ptr. Readers get StoredSlices whose keep_alive is that
// shared_ptr, so a file deleted by retention (destroy(): the name is unlinked at once) stays
// mapped until the last reader lets go; the mapping and the descriptor go with the last
// reference.
//
// Threads: one writer at a time (the put lock for the commit log, the reput thread for consume
// queues and indexes) advances wrote_position with release semantics after the bytes are in
// place; any thread may read bytes below wrote_position (acquire). flush_to() may run on any
// thread and is serialized internally.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "env.hpp"
#include "mqkit/plugin/v1/buffer.hpp"

namespace mqkit::plugins::stores::commitlog {

// The page size RocketMQ counts dirty pages in (flush "least pages" settings).
inline constexpr std::int64_t kFlushPageSize = 4096;

class MappedFile : public std::enable_shared_from_this<MappedFile> {
 public:
  // How a kind of file is used.
  struct Policy {
    // How far ahead of the writer blocks are reserved: the first reservation is `min_step`
    // bytes, each later one the larger of what the write needs and the reserved size so far,
    // clamped to [min_step, max_step] (a busy file reserves in big chunks, an idle one stays
    // small).
    std::int64_t min_step = 0;
    std::int64_t max_step = 0;
    // No read-ahead when a page is first touched (MADV_RANDOM). For files touched a few bytes
    // at a time in many places — thousands of consume queues, index slots — where read-ahead
    // would zero (holes read as zeros) a large folio around every first touch.
    bool random_access = false;
    // Zeros kept written ahead of the writer (0 = none), refilled by the writer in steps of half
    // this with their writeback started at once. Blocks reserved with fallocate are "unwritten"
    // extents: a flush that is the first to write one converts it and commits the journal, on
    // every group commit of a sync-flush log. Zeros written ahead pay that once per step, and the
    // flushes then overwrite blocks that are already written (about half the fdatasync time).
    std::int64_t zero_ahead = 0;
    // Everything at creation (tests; files written all over at once).
    static Policy whole(std::int64_t size) noexcept { return {size, size}; }
  };

  // Creates a new zero-filled file with its first `policy.min_step` bytes reserved;
  // AlreadyExists when the name is taken.
  static v1::Result<std::shared_ptr<MappedFile>> create(Env& env, const std::string& path, std::int64_t start_offset,
                                                        std::int64_t size, Policy policy);
  // Opens an existing file. A file shorter than `size` (a crash while it was being created) is
  // extended (sparse); a longer one is refused (the configured size changed). Nothing counts as
  // reserved yet: the first reserve_through() covers everything from the file's start.
  static v1::Result<std::shared_ptr<MappedFile>> open(Env& env, const std::string& path, std::int64_t start_offset,
                                                      std::int64_t size, Policy policy);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::string& path() const noexcept { return path_; }
  std::int64_t start_offset() const noexcept { return start_offset_; }
  std::int64_t size() const noexcept { return size_; }
  std::int64_t end_offset() const noexcept { return start_offset_ + size_; }
  std::uint8_t* data() noexcept { return data_; }
  const std::uint8_t* data() const noexcept { return data_; }

  std::int64_t wrote_position() const noexcept { return wrote_.load(std::memory_order_acquire); }
  void set_wrote_position(std::int64_t position) noexcept { wrote_.store(position, std::memory_order_release); }
  std::int64_t flushed_position() const noexcept { return flushed_.load(std::memory_order_acquire); }
  // Recovery only: everything below `position` is known to be on disk.
  void set_flushed_position(std::int64_t position) noexcept { flushed_.store(position, std::memory_order_release); }
  bool is_full() const noexcept { return wrote_position() >= size_; }

  // RocketMQ's rule: a full file always flushes; otherwise at least `least_pages` dirty pages
  // (0 = any dirty byte).
  bool should_flush(std::int64_t least_pages) const noexcept;
  // Makes [flushed_position, position) durable and advances flushed_position.
  v1::Status flush_to(std::int64_t position) noexcept;

  // Makes the whole file durable (files written at random places, like index files).
  v1::Status sync_all() noexcept;
  // Evicts [begin, end) from the page cache and this mapping. Only for flushed bytes: the page
  // cache then holds nothing the file lacks; the next read comes from the disk.
  void drop_cached(std::int64_t begin, std::int64_t end) noexcept;

  // A view of [position, position + length) that keeps this file mapped while it lives.
  plugin::v1::StoredSlice slice(std::int64_t position, std::int64_t length);
  std::shared_ptr<const void> keep_alive() { return shared_from_this(); }

  File& file() noexcept { return *file_; }
  // Call before writing bytes that end at `end` (the writer's next position): makes sure [0, end)
  // has disk blocks, reserving a chunk ahead (see Policy) when it does not, and with
  // Policy::zero_ahead writes zeros past `end` (never below it: those bytes are written or are
  // being written). Cheap when nothing is due. An error (a full disk, a failed write) leaves
  // every byte below `end` as it was.
  v1::Status reserve_through(std::int64_t end) noexcept {
    if (end <= prepared_.load(std::memory_order_acquire)) return v1::Status::ok();
    return reserve_more(end);
  }
  std::int64_t reserved() const noexcept { return reserved_.load(std::memory_order_acquire); }
  // Reserves the blocks of [0, end) and faults the pages of [begin, end) in for writing, so the
  // writer's copies there take no page fault (the file allocator does this ahead of the writer).
  // A failed reservation is returned and nothing is faulted in.
  v1::Status populate(std::int64_t begin, std::int64_t end) noexcept;
  // Faulted in up to here by populate() (0: nothing yet).
  std::int64_t populated() const noexcept { return populated_.load(std::memory_order_acquire); }

  // Unlinks the file. Readers holding a slice keep reading the old bytes; the space is freed
  // when the last reference drops.
  v1::Status destroy(Env& env) noexcept;
  bool destroyed() const noexcept { return destroyed_.load(std::memory_order_acquire); }

 private:
  MappedFile(std::string path, std::int64_t start_offset, std::int64_t size, Policy policy, std::unique_ptr<File> file,
             std::unique_ptr<Mapping> mapping);
  static v1::Result<std::shared_ptr<MappedFile>> map_file(std::string path, std::int64_t start_offset,
                                                          std::int64_t size, Policy policy,
                                                          std::unique_ptr<File> file);
  v1::Status reserve_more(std::int64_t end) noexcept;
  // With reserve_mutex_ held.
  v1::Status reserve_blocks(std::int64_t end) noexcept;
  v1::Status write_zeros_ahead_of(std::int64_t end) noexcept;
  void publish_prepared() noexcept;

  const std::string path_;
  const std::int64_t start_offset_;
  const std::int64_t size_;
  const Policy policy_;
  std::unique_ptr<File> file_;
  std::unique_ptr<Mapping> mapping_;
  std::uint8_t* data_;
  std::atomic<std::int64_t> wrote_{0};
  std::atomic<std::int64_t> flushed_{0};
  std::atomic<bool> destroyed_{false};
  std::mutex flush_mutex_;
  std::atomic<std::int64_t> reserved_{0};
  // Writes ending at or below this need nothing from reserve_more().
  std::atomic<std::int64_t> prepared_{0};
  std::int64_t zeroed_ = 0;  // zeros written up to here (reserve_mutex_)
  std::atomic<std::int64_t> populated_{0};
  std::mutex reserve_mutex_;
};

// "00000000001073741824": the 20-digit, zero-padded offset RocketMQ names data files with.
std::string offset_file_name(std::int64_t offset);
// Parses such a name; false for anything else (temporary files, stray names).
bool parse_offset_file_name(std::string_view name, std::int64_t* offset) noexcept;
std::string join_path(std::string_view dir, std::string_view name);

}  // namespace mqkit::plugins::stores::commitlog
