#include "memory_log.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string>
#include <utility>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::plugins::stores::memory {

using plugin::v1::DispatchChunk;
using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::StoredSlice;

namespace {

std::int32_t load_be32(const std::uint8_t* p) noexcept {
  return static_cast<std::int32_t>((std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                                   (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]});
}

void store_be32(std::uint8_t* p, std::int32_t value) noexcept {
  const auto v = static_cast<std::uint32_t>(value);
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

}  // namespace

Result<RecordHead> read_record_head(std::span<const std::uint8_t> bytes, std::int64_t offset) {
  if (bytes.size() < static_cast<std::size_t>(plugin::v1::kBlankHeaderSize)) {
    return Status::corruption("truncated record header at commit offset " + std::to_string(offset));
  }
  const RecordHead head{load_be32(bytes.data()), load_be32(bytes.data() + 4) == plugin::v1::kBlankMagic};
  if (head.size < plugin::v1::kBlankHeaderSize) {
    return Status::corruption("record at commit offset " + std::to_string(offset) + " claims " +
                              std::to_string(head.size) + " bytes");
  }
  return head;
}

MemoryLog::Chunk::Chunk(std::int64_t start_offset, std::int64_t capacity_bytes, Buffer recycled)
    : start(start_offset),
      capacity(capacity_bytes),
      data(recycled ? std::move(recycled)
                    : std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(capacity_bytes))),
      end(start_offset) {}

MemoryLog::MemoryLog(std::int64_t budget_bytes, std::int64_t chunk_size)
    : budget_(budget_bytes),
      chunk_size_(std::max<std::int64_t>(1, std::min(chunk_size, budget_bytes / 4))) {}

Result<MemoryLog::Reservation> MemoryLog::reserve(std::int64_t bytes, std::int64_t metadata_bytes) {
  if (bytes + metadata_bytes > budget_) {
    return Status::resource_exhausted(
        "append of " + std::to_string(bytes) + " bytes (plus " + std::to_string(metadata_bytes) +
        " bytes of queue and index metadata) exceeds the whole memory_budget of " +
        std::to_string(budget_) + " bytes");
  }
  // chunks_ changes only under the put lock, which the caller holds, so reading it here needs no
  // chunks_mutex_.
  bool need_new = chunks_.empty() || chunks_.back()->free_bytes() < bytes;
  const std::int64_t new_capacity = std::max(bytes, std::min(chunk_size_, budget_ - metadata_bytes));
  Buffer recycled;
  while (!chunks_.empty()) {
    const std::int64_t need = metadata_bytes + (need_new ? new_capacity : 0);
    if (accounted_.load(std::memory_order_relaxed) + need <= budget_) break;
    if (!need_new && chunks_.size() == 1) {
      // Only the chunk being written is left and what it already holds fills the budget: move on
      // to a new chunk so that this one can be dropped too.
      need_new = true;
      continue;
    }
    const std::int64_t freed_capacity = chunks_.front()->capacity;
    Buffer freed = evict_oldest();
    if (freed && freed_capacity == new_capacity) recycled = std::move(freed);
  }
  if (need_new) add_chunk(new_capacity, std::move(recycled));
  Chunk& chunk = *chunks_.back();
  const std::int64_t offset = chunk.end.load(std::memory_order_relaxed);
  return Reservation{offset,
                     {chunk.data.get() + (offset - chunk.start), static_cast<std::size_t>(bytes)},
                     metadata_bytes};
}

void MemoryLog::commit(const Reservation& reservation) {
  Chunk& chunk = *chunks_.back();
  chunk.metadata_bytes += reservation.metadata_bytes;
  accounted_.fetch_add(reservation.metadata_bytes, std::memory_order_relaxed);
  const std::int64_t end = reservation.offset + static_cast<std::int64_t>(reservation.bytes.size());
  chunk.end.store(end, std::memory_order_release);
  max_offset_.store(end, std::memory_order_release);
}

void MemoryLog::start_at(std::int64_t offset) {
  std::unique_lock lock(chunks_mutex_);
  max_offset_.store(offset, std::memory_order_release);
  min_offset_.store(offset, std::memory_order_release);
}

Status MemoryLog::append_blank(std::int32_t size) {
  MQKIT_ASSIGN_OR_RETURN(const Reservation header, reserve(plugin::v1::kBlankHeaderSize, 0));
  store_be32(header.bytes.data(), size);
  store_be32(header.bytes.data() + 4, plugin::v1::kBlankMagic);
  commit(header);
  // What follows the blank lives in another chunk, after the gap.
  chunks_.back()->sealed = true;
  max_offset_.store(header.offset + size, std::memory_order_release);
  return Status::ok();
}

void MemoryLog::add_chunk(std::int64_t capacity, Buffer recycled) {
  // Allocated outside the lock: readers keep going meanwhile.
  auto chunk = std::make_shared<Chunk>(max_offset(), capacity, std::move(recycled));
  std::unique_lock lock(chunks_mutex_);
  if (!chunks_.empty()) chunks_.back()->sealed = true;
  chunks_.push_back(std::move(chunk));
  accounted_.fetch_add(capacity, std::memory_order_relaxed);
}

MemoryLog::Buffer MemoryLog::evict_oldest() {
  std::shared_ptr<Chunk> oldest;  // released after the lock, unless a StoredSlice still holds it
  {
    std::unique_lock lock(chunks_mutex_);
    oldest = std::move(chunks_.front());
    chunks_.pop_front();
    min_offset_.store(chunks_.empty() ? max_offset() : chunks_.front()->start, std::memory_order_release);
  }
  accounted_.fetch_sub(oldest->capacity + oldest->metadata_bytes, std::memory_order_relaxed);
  // Out of chunks_, the chunk can gain no new holder: a count of one means nobody reads it.
  if (oldest.use_count() != 1) return nullptr;
  return std::move(oldest->data);
}

const std::shared_ptr<MemoryLog::Chunk>* MemoryLog::find_chunk(std::int64_t offset) const {
  if (chunks_.empty() || offset < chunks_.front()->start) return nullptr;
  const auto after = std::upper_bound(
      chunks_.begin(), chunks_.end(), offset,
      [](std::int64_t value, const std::shared_ptr<Chunk>& chunk) { return value < chunk->start; });
  return &*std::prev(after);
}

std::optional<StoredSlice> MemoryLog::View::slice(std::int64_t offset, std::int64_t size) const {
  const auto* chunk = log_.find_chunk(offset);
  if (chunk == nullptr || size <= 0 || offset + size > (*chunk)->end.load(std::memory_order_acquire)) {
    return std::nullopt;
  }
  return StoredSlice{{(*chunk)->at(offset), static_cast<std::size_t>(size)}, *chunk};
}

Result<StoredSlice> MemoryLog::View::record_at(std::int64_t offset) const {
  const auto not_found = [&] {
    return Status::not_found("no record starts at commit offset " + std::to_string(offset) +
                             " (the memory store holds [" + std::to_string(log_.min_offset()) + ", " +
                             std::to_string(log_.max_offset()) + "))");
  };
  const auto* chunk = log_.find_chunk(offset);
  if (chunk == nullptr) return not_found();
  const std::int64_t end = (*chunk)->end.load(std::memory_order_acquire);
  if (offset >= end) return not_found();
  const std::span<const std::uint8_t> available((*chunk)->at(offset), static_cast<std::size_t>(end - offset));
  auto record = plugin::v1::decode_record(available);
  // A record stores its own commit offset: an offset inside another record cannot pass this.
  if (!record || record->commit_offset != offset) return not_found();
  return StoredSlice{available.first(static_cast<std::size_t>(record->total_size)), *chunk};
}

Result<DispatchChunk> MemoryLog::read_for_dispatch(std::int64_t from, std::int64_t max_bytes) const {
  std::shared_lock lock(chunks_mutex_);
  // Records evicted before they were dispatched are gone; dispatch resumes at the oldest left.
  std::int64_t start = std::max(from, min_offset());
  const auto* chunk = find_chunk(start);
  if (chunk == nullptr) return DispatchChunk{{}, start, start};
  const Chunk& c = **chunk;
  const std::int64_t end = c.end.load(std::memory_order_acquire);
  std::int64_t position = start;
  while (position < end) {
    const std::span<const std::uint8_t> rest(c.at(position), static_cast<std::size_t>(end - position));
    MQKIT_ASSIGN_OR_RETURN(const RecordHead head, read_record_head(rest, position));
    if (head.blank) {
      if (position > start) break;  // the records so far go out first
      // Only the blank's header is kept (append_blank): what it covers is a gap.
      start = position + head.size;
      position = start;
      continue;
    }
    if (head.size > end - position) {
      return Status::corruption("record at commit offset " + std::to_string(position) + " claims " +
                                std::to_string(head.size) + " bytes, " + std::to_string(end - position) +
                                " are committed");
    }
    if (position > start && position + head.size - start > max_bytes) break;
    position += head.size;
  }
  if (start >= end) return DispatchChunk{{}, start, start};
  return DispatchChunk{StoredSlice{{c.at(start), static_cast<std::size_t>(position - start)}, *chunk}, start,
                       position};
}

}  // namespace mqkit::plugins::stores::memory
