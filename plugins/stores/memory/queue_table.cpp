#include "queue_table.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

namespace mqkit::plugins::stores::memory {

using plugin::v1::ReadRequest;
using plugin::v1::ReadStatus;
using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::TimeBoundary;

namespace {

// RocketMQ examines at least this many entries per read when a tag filter skips them
// (maxFilterMessageCount = 16000 bytes of 20-byte units), so a pull over a long run of
// unmatched messages still moves forward.
constexpr std::int64_t kMinEntriesScanned = 800;

bool tag_matches(std::span<const std::int32_t> codes, std::int64_t tags_code) {
  // The broker compares the int value, as RocketMQ's codeSet.contains(tagsCode.intValue()).
  return codes.empty() ||
         std::find(codes.begin(), codes.end(), static_cast<std::int32_t>(tags_code)) != codes.end();
}

}  // namespace

void ConsumeQueue::note_replicated_offset(std::int64_t queue_offset) noexcept {
  next_append_offset_ = std::max(next_append_offset_, queue_offset + 1);
}

void ConsumeQueue::add(std::int64_t queue_offset, const QueueEntry& entry) {
  std::unique_lock lock(mutex_);
  if (queue_offset < end()) return;
  if (queue_offset > end()) {
    entries_.clear();
    base_ = queue_offset;
  }
  entries_.push_back(entry);
}

void ConsumeQueue::prune(std::int64_t log_min_offset) {
  std::unique_lock lock(mutex_);
  const std::int64_t dead = live_begin(log_min_offset) - base_;
  if (dead == 0) return;
  entries_.erase(entries_.begin(), entries_.begin() + dead);
  base_ += dead;
}

std::int64_t ConsumeQueue::live_begin(std::int64_t log_min_offset) const {
  // Entries are in commit offset order: the evicted ones form a prefix.
  const auto first_live = std::partition_point(
      entries_.begin(), entries_.end(),
      [&](const QueueEntry& entry) { return entry.commit_offset < log_min_offset; });
  return base_ + (first_live - entries_.begin());
}

std::int64_t ConsumeQueue::min_offset(std::int64_t log_min_offset) const {
  std::shared_lock lock(mutex_);
  return live_begin(log_min_offset);
}

std::int64_t ConsumeQueue::max_offset() const {
  std::shared_lock lock(mutex_);
  return end();
}

QueueSelection ConsumeQueue::select(const ReadRequest& request, std::int64_t log_min_offset) const {
  std::shared_lock lock(mutex_);
  QueueSelection out;
  out.min_offset = live_begin(log_min_offset);
  out.max_offset = end();
  const std::int64_t offset = request.offset;
  // The order of these checks and the offsets suggested next are RocketMQ's getMessage.
  if (out.max_offset == 0) {
    out.status = ReadStatus::kNoMessageInQueue;
    out.next_begin_offset = 0;
  } else if (offset < out.min_offset) {
    out.status = ReadStatus::kOffsetTooSmall;
    out.next_begin_offset = out.min_offset;
  } else if (offset == out.max_offset) {
    out.status = ReadStatus::kOffsetOverflowOne;
    out.next_begin_offset = offset;
  } else if (offset > out.max_offset) {
    // A queue still starting at 0 was probably recreated: send the consumer back to its start.
    out.status = ReadStatus::kOffsetOverflowBadly;
    out.next_begin_offset = out.min_offset == 0 ? 0 : out.max_offset;
  } else {
    out.status = ReadStatus::kNoMatchedMessage;
    const std::int64_t scan_end =
        std::min(out.max_offset, offset + std::max<std::int64_t>(kMinEntriesScanned, request.max_count));
    std::int64_t bytes = 0;
    std::int64_t position = offset;
    for (; position < scan_end; ++position) {
      const QueueEntry& entry = at(position);
      // The first record always goes out, however large, so a consumer never gets stuck.
      if (!out.entries.empty() && (static_cast<std::int64_t>(out.entries.size()) >= request.max_count ||
                                   bytes + entry.size > request.max_bytes)) {
        break;
      }
      if (!tag_matches(request.tag_codes, entry.tags_code)) continue;
      out.entries.push_back(entry);
      out.queue_offsets.push_back(position);
      bytes += entry.size;
      out.status = ReadStatus::kFound;
    }
    out.next_begin_offset = position;
  }
  return out;
}

plugin::v1::QueueUnits ConsumeQueue::units(std::int64_t from, std::int32_t count, std::int64_t log_min_offset) const {
  std::shared_lock lock(mutex_);
  plugin::v1::QueueUnits out;
  out.min_offset = live_begin(log_min_offset);
  out.max_offset = end();
  const std::int64_t stop = plugin::v1::queue_units_end(from, count, out.max_offset);
  for (std::int64_t offset = std::max(from, out.min_offset); offset < stop; ++offset) {
    const QueueEntry& entry = at(offset);
    out.units.push_back({offset, entry.commit_offset, entry.size, entry.tags_code});
  }
  return out;
}

Result<QueueEntry> ConsumeQueue::entry_at(std::int64_t queue_offset, std::int64_t log_min_offset) const {
  std::shared_lock lock(mutex_);
  const std::int64_t begin = live_begin(log_min_offset);
  if (queue_offset < begin || queue_offset >= end()) {
    return Status::not_found("queue offset " + std::to_string(queue_offset) + " is outside [" +
                             std::to_string(begin) + ", " + std::to_string(end()) + ")");
  }
  return at(queue_offset);
}

Result<QueueEntry> ConsumeQueue::first_entry(std::int64_t log_min_offset) const {
  std::shared_lock lock(mutex_);
  const std::int64_t begin = live_begin(log_min_offset);
  if (begin == end()) return Status::not_found("the queue holds no message");
  return at(begin);
}

std::int64_t ConsumeQueue::offset_by_time(std::int64_t timestamp_ms, TimeBoundary boundary,
                                          std::int64_t log_min_offset) const {
  std::shared_lock lock(mutex_);
  const std::int64_t begin = live_begin(log_min_offset);
  const auto first = entries_.begin() + (begin - base_);
  // Store timestamps never decrease along a queue (the store assigns them under its put lock).
  if (boundary == TimeBoundary::kLower) {
    // The first message stored at or after the time; max offset when there is none.
    const auto it = std::partition_point(
        first, entries_.end(), [&](const QueueEntry& e) { return e.store_timestamp < timestamp_ms; });
    return base_ + (it - entries_.begin());
  }
  // The last message stored at or before the time; min offset when there is none (RocketMQ).
  const auto it = std::partition_point(
      first, entries_.end(), [&](const QueueEntry& e) { return e.store_timestamp <= timestamp_ms; });
  return it == first ? begin : base_ + (it - entries_.begin()) - 1;
}

std::shared_ptr<ConsumeQueue> QueueTable::find_locked(std::string_view topic, std::int32_t queue_id) const {
  const auto queues = topics_.find(topic);
  if (queues == topics_.end()) return nullptr;
  const auto queue = queues->second.find(queue_id);
  return queue == queues->second.end() ? nullptr : queue->second;
}

bool QueueTable::deleted_before_locked(std::string_view topic, std::int64_t commit_offset) const {
  if (deleted_below_.empty()) return false;
  const auto it = deleted_below_.find(topic);
  return it != deleted_below_.end() && commit_offset < it->second;
}

std::shared_ptr<ConsumeQueue> QueueTable::create_locked(std::string_view topic, std::int32_t queue_id) {
  auto topic_it = topics_.find(topic);
  if (topic_it == topics_.end()) topic_it = topics_.emplace(std::string(topic), Queues{}).first;
  auto& queue = topic_it->second[queue_id];
  if (!queue) queue = std::make_shared<ConsumeQueue>();
  return queue;
}

std::shared_ptr<ConsumeQueue> QueueTable::find(std::string_view topic, std::int32_t queue_id) const {
  std::shared_lock lock(mutex_);
  return find_locked(topic, queue_id);
}

std::shared_ptr<ConsumeQueue> QueueTable::find_or_create(std::string_view topic, std::int32_t queue_id) {
  if (auto queue = find(topic, queue_id)) return queue;
  std::unique_lock lock(mutex_);
  return create_locked(topic, queue_id);
}

std::shared_ptr<ConsumeQueue> QueueTable::queue_for_dispatch(std::string_view topic, std::int32_t queue_id,
                                                             std::int64_t commit_offset) {
  {
    std::shared_lock lock(mutex_);
    if (deleted_before_locked(topic, commit_offset)) return nullptr;
    if (auto queue = find_locked(topic, queue_id)) return queue;
  }
  // Checked again under the write lock: delete_topic may have run in between.
  std::unique_lock lock(mutex_);
  if (deleted_before_locked(topic, commit_offset)) return nullptr;
  return create_locked(topic, queue_id);
}

bool QueueTable::deleted_before(std::string_view topic, std::int64_t commit_offset) const {
  std::shared_lock lock(mutex_);
  return deleted_before_locked(topic, commit_offset);
}

void QueueTable::erase_topic(std::string_view topic, std::int64_t log_max_offset) {
  std::unique_lock lock(mutex_);
  if (const auto it = topics_.find(topic); it != topics_.end()) topics_.erase(it);
  deleted_below_.insert_or_assign(std::string(topic), log_max_offset);
}

std::vector<plugin::v1::QueueRef> QueueTable::refs() const {
  std::shared_lock lock(mutex_);
  std::vector<plugin::v1::QueueRef> out;
  for (const auto& [topic, queues] : topics_) {
    for (const auto& [id, queue] : queues) out.push_back({topic, id});
  }
  return out;
}

void QueueTable::erase_queue(std::string_view topic, std::int32_t queue_id, const std::shared_ptr<ConsumeQueue>& queue) {
  std::unique_lock lock(mutex_);
  const auto by_topic = topics_.find(topic);
  if (by_topic == topics_.end()) return;
  const auto it = by_topic->second.find(queue_id);
  if (it == by_topic->second.end() || it->second != queue) return;
  by_topic->second.erase(it);
  if (by_topic->second.empty()) topics_.erase(by_topic);
}

void QueueTable::for_each(const std::function<void(ConsumeQueue&)>& visit) const {
  std::shared_lock lock(mutex_);
  for (const auto& [topic, queues] : topics_) {
    for (const auto& [id, queue] : queues) visit(*queue);
  }
}

}  // namespace mqkit::plugins::stores::memory
