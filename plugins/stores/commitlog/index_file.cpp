#include "index_file.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <ctime>

#include "big_endian.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {

constexpr std::int64_t kBeginTimestampAt = 0;
constexpr std::int64_t kEndTimestampAt = 8;
constexpr std::int64_t kBeginPhyOffsetAt = 16;
constexpr std::int64_t kEndPhyOffsetAt = 24;
constexpr std::int64_t kHashSlotCountAt = 32;
constexpr std::int64_t kIndexCountAt = 36;
// 9999-12-31T23:59:59.999Z: no stored time is later.
constexpr std::int64_t kLatestTimestampMs = 253'402'300'799'999;
// Header and slots are reserved at creation; items in 1 MiB steps. Slots are hit at random.
constexpr MappedFile::Policy kIndexPolicy{1 << 20, 1 << 20, /*random_access=*/true};

}  // namespace

IndexFile::IndexFile(std::shared_ptr<MappedFile> file, std::int64_t slot_count, std::int64_t item_count)
    : file_(std::move(file)), slot_count_(slot_count), item_count_(item_count) {}

v1::Result<std::unique_ptr<IndexFile>> IndexFile::create(Env& env, const std::string& path, std::int64_t slot_count,
                                                         std::int64_t item_count, std::int64_t end_phy_offset,
                                                         std::int64_t end_timestamp) {
  MQKIT_ASSIGN_OR_RETURN(auto mapped, MappedFile::create(env, path, 0, file_size(slot_count, item_count),
                                                         kIndexPolicy));
  std::unique_ptr<IndexFile> index(new IndexFile(std::move(mapped), slot_count, item_count));
  v1::Status reserved = index->file_->reserve_through(index->item_position(0));
  if (!reserved.is_ok()) {
    (void)index->destroy(env);
    return reserved;
  }
  std::uint8_t* header = index->file_->data();
  store_i64(header + kBeginTimestampAt, end_timestamp > 0 ? end_timestamp : 0);
  store_i64(header + kEndTimestampAt, end_timestamp > 0 ? end_timestamp : 0);
  store_i64(header + kBeginPhyOffsetAt, end_phy_offset > 0 ? end_phy_offset : 0);
  store_i64(header + kEndPhyOffsetAt, end_phy_offset > 0 ? end_phy_offset : 0);
  store_i32(header + kIndexCountAt, 1);
  return index;
}

v1::Result<std::unique_ptr<IndexFile>> IndexFile::open(Env& env, const std::string& path, std::int64_t slot_count,
                                                       std::int64_t item_count) {
  const std::int64_t size = file_size(slot_count, item_count);
  {
    // Files are made at their full size; an empty one was never written (a crash right after
    // creation). Any other size was laid out with other slot and item counts, which read
    // through this layout would give wrong answers rather than errors.
    MQKIT_ASSIGN_OR_RETURN(auto file, env.open(path, OpenMode::kOpenExisting));
    MQKIT_ASSIGN_OR_RETURN(const std::int64_t actual, file->size());
    if (actual != 0 && actual != size) {
      return v1::Status::corruption(
          "index file " + path + " is " + std::to_string(actual) + " bytes, but max_hash_slot_num = " +
          std::to_string(slot_count) + " and max_index_num = " + std::to_string(item_count) + " make index files of " +
          std::to_string(size) + " bytes: were they changed? Set them back, or move the index directory away "
          "(lookups by key then miss the messages it indexed)");
    }
  }
  MQKIT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(env, path, 0, size, kIndexPolicy));
  std::unique_ptr<IndexFile> index(new IndexFile(std::move(mapped), slot_count, item_count));
  // Header and slots may be written again (a lost page after a power failure is a hole).
  MQKIT_RETURN_IF_ERROR(index->file_->reserve_through(index->item_position(0)));
  // A header never written (crash right after creation) still counts from 1.
  if (index->index_count() <= 0) store_i32(index->file_->data() + kIndexCountAt, 1);
  return index;
}

std::int64_t IndexFile::begin_timestamp() const noexcept { return load_i64(file_->data() + kBeginTimestampAt); }
std::int64_t IndexFile::end_timestamp() const noexcept { return load_i64(file_->data() + kEndTimestampAt); }
std::int64_t IndexFile::begin_phy_offset() const noexcept { return load_i64(file_->data() + kBeginPhyOffsetAt); }
std::int64_t IndexFile::end_phy_offset() const noexcept { return load_i64(file_->data() + kEndPhyOffsetAt); }
std::int32_t IndexFile::index_count() const noexcept { return load_i32(file_->data() + kIndexCountAt); }

bool IndexFile::time_matched(std::int64_t begin, std::int64_t end) const noexcept {
  const std::int64_t first = begin_timestamp();
  const std::int64_t last = end_timestamp();
  return (begin < first && end > last) || (begin >= first && begin <= last) || (end >= first && end <= last);
}

std::int32_t IndexFile::key_hash(std::string_view key) noexcept {
  const std::int32_t hash = plugin::v1::java_string_hash(key);
  return hash == INT_MIN ? 0 : (hash < 0 ? -hash : hash);
}

v1::Result<bool> IndexFile::put(std::string_view key, std::int64_t phy_offset, std::int64_t store_timestamp) {
  const std::int32_t count = index_count();
  if (count >= item_count_) return false;
  std::uint8_t* data = file_->data();
  const std::int32_t hash = key_hash(key);
  const std::int64_t slot_position = kHeaderSize + (hash % slot_count_) * kSlotSize;
  std::int32_t previous = load_i32(data + slot_position);
  if (previous <= 0 || previous >= count) previous = 0;

  const std::int64_t position = item_position(count);
  MQKIT_RETURN_IF_ERROR(file_->reserve_through(position + kItemSize));
  if (count <= 1) {
    store_i64(data + kBeginPhyOffsetAt, phy_offset);
    store_i64(data + kBeginTimestampAt, store_timestamp);
  }
  const std::int64_t begin = begin_timestamp();
  const std::int64_t diff = begin <= 0 ? 0 : std::clamp<std::int64_t>((store_timestamp - begin) / 1000, 0, INT_MAX);

  // Item first, then the slot and the header: a reader (or a crash) never follows a slot to an
  // item that is not written yet.
  store_i32(data + position, hash);
  store_i64(data + position + 4, phy_offset);
  store_i32(data + position + 12, static_cast<std::int32_t>(diff));
  store_i32(data + position + 16, previous);
  store_i32(data + slot_position, count);
  // Wraps as RocketMQ's Java int does, rather than overflowing on a corrupt count.
  store_i32(data + kHashSlotCountAt,
            static_cast<std::int32_t>(static_cast<std::uint32_t>(load_i32(data + kHashSlotCountAt)) + 1U));
  store_i64(data + kEndPhyOffsetAt, phy_offset);
  store_i64(data + kEndTimestampAt, store_timestamp);
  store_i32(data + kIndexCountAt, count + 1);
  return true;
}

void IndexFile::select(std::string_view key, std::size_t max, std::int64_t begin, std::int64_t end,
                       std::vector<std::int64_t>& out) const {
  // Only items written and inside the file are followed, each chain strictly backwards: a
  // corrupt count, slot or link ends the lookup rather than reading past the file or cycling.
  const std::int64_t count = std::min<std::int64_t>(index_count(), item_count_);
  const std::uint8_t* data = file_->data();
  const std::int32_t hash = key_hash(key);
  const std::int32_t slot = load_i32(data + kHeaderSize + (hash % slot_count_) * kSlotSize);
  if (slot <= 0 || slot >= count) return;
  // Clamped so that a corrupt header cannot overflow the time arithmetic below.
  const std::int64_t first_time = std::clamp<std::int64_t>(begin_timestamp(), 0, kLatestTimestampMs);
  for (std::int32_t item = slot; out.size() < max;) {
    const std::uint8_t* at = data + item_position(item);
    const std::int32_t item_hash = load_i32(at);
    const std::int64_t phy_offset = load_i64(at + 4);
    const std::int32_t diff = load_i32(at + 12);
    const std::int32_t previous = load_i32(at + 16);
    if (diff < 0) break;
    // An item only knows its second: it was stored somewhere in [time, time + 999]. Matching the
    // whole second (the caller checks the record's exact time) finds records RocketMQ's exact
    // comparison of the truncated time would miss.
    const std::int64_t time = first_time + static_cast<std::int64_t>(diff) * 1000;
    const bool in_range = time + 999 >= begin && time <= end;
    if (item_hash == hash && in_range) out.push_back(phy_offset);
    // Chains run newest first: once older than `begin`, nothing further can match.
    if (previous <= 0 || previous >= item || time + 999 < begin) break;
    item = previous;
  }
}

std::string index_file_name(std::int64_t time_ms) {
  const std::time_t seconds = static_cast<std::time_t>(time_ms / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char name[64];
  std::snprintf(name, sizeof name, "%04d%02d%02d%02d%02d%02d%03d", local.tm_year + 1900, local.tm_mon + 1,
                local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec, static_cast<int>(time_ms % 1000));
  return name;
}

}  // namespace mqkit::plugins::stores::commitlog
