// IndexFile: one hash index file (RocketMQ's IndexFile), named index/<yyyyMMddHHmmssSSS>.
//
//   header (40 B): beginTimestamp i64 | endTimestamp i64 | beginPhyOffset i64 | endPhyOffset i64 |
//                  hashSlotCount i32 | indexCount i32
//   slots:  slot_count x i32, each the item number of the newest item in that slot (0 = empty)
//   items:  item_count x 20 B: keyHash i32 | phyOffset i64 | timeDiff i32 (s since begin) | prev i32
//
// Item numbers start at 1 (indexCount starts at 1), so 0 can mean "none". Items of one slot form
// a chain newest-first through `prev`. The file is sparse: header and slots are reserved at
// creation, the item area in 1 MiB steps as items are appended, so a 420 MB default file costs
// about 20 MB of disk until it fills.
//
// Threads: none of its own; IndexService serializes writers against readers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "env.hpp"
#include "mapped_file.hpp"

namespace mqkit::plugins::stores::commitlog {

class IndexFile {
 public:
  static constexpr std::int64_t kHeaderSize = 40;
  static constexpr std::int64_t kSlotSize = 4;
  static constexpr std::int64_t kItemSize = 20;

  static std::int64_t file_size(std::int64_t slot_count, std::int64_t item_count) {
    return kHeaderSize + slot_count * kSlotSize + item_count * kItemSize;
  }
  // A new file continuing after one whose last entry was at (end_phy_offset, end_timestamp).
  static v1::Result<std::unique_ptr<IndexFile>> create(Env& env, const std::string& path, std::int64_t slot_count,
                                                       std::int64_t item_count, std::int64_t end_phy_offset,
                                                       std::int64_t end_timestamp);
  static v1::Result<std::unique_ptr<IndexFile>> open(Env& env, const std::string& path, std::int64_t slot_count,
                                                     std::int64_t item_count);

  const std::string& path() const noexcept { return file_->path(); }
  std::int64_t begin_timestamp() const noexcept;
  std::int64_t end_timestamp() const noexcept;
  std::int64_t begin_phy_offset() const noexcept;
  std::int64_t end_phy_offset() const noexcept;
  std::int32_t index_count() const noexcept;
  bool is_full() const noexcept { return index_count() >= item_count_; }
  // RocketMQ's overlap test between the file's time span and [begin, end].
  bool time_matched(std::int64_t begin, std::int64_t end) const noexcept;

  // Adds `key` (already "topic#key") for the record at `phy_offset`. false when the file is full.
  v1::Result<bool> put(std::string_view key, std::int64_t phy_offset, std::int64_t store_timestamp);
  // Appends to `out` the offsets of items with the key's hash stored within [begin, end], newest
  // first, until `out` holds `max` offsets.
  void select(std::string_view key, std::size_t max, std::int64_t begin, std::int64_t end,
              std::vector<std::int64_t>& out) const;

  v1::Status flush() { return file_->sync_all(); }
  v1::Status destroy(Env& env) { return file_->destroy(env); }

  // Java's abs(String.hashCode()) of the key, 0 for Integer.MIN_VALUE.
  static std::int32_t key_hash(std::string_view key) noexcept;

 private:
  IndexFile(std::shared_ptr<MappedFile> file, std::int64_t slot_count, std::int64_t item_count);
  std::int64_t item_position(std::int64_t item) const noexcept {
    return kHeaderSize + slot_count_ * kSlotSize + item * kItemSize;
  }

  std::shared_ptr<MappedFile> file_;
  const std::int64_t slot_count_;
  const std::int64_t item_count_;
};

// The name RocketMQ gives an index file: its creation time as yyyyMMddHHmmssSSS (local time).
std::string index_file_name(std::int64_t time_ms);

}  // namespace mqkit::plugins::stores::commitlog
