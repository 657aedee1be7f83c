#include "queue_reader.hpp"

#include <algorithm>

namespace mqkit::plugins::stores::commitlog {

namespace {

using plugin::v1::ReadStatus;

bool tag_matches(std::span<const std::int32_t> codes, std::int64_t tags_code) {
  // RocketMQ compares the int value of the stored long code.
  return codes.empty() || std::find(codes.begin(), codes.end(), static_cast<std::int32_t>(tags_code)) != codes.end();
}

}  // namespace

v1::Result<plugin::v1::ReadResult> QueueReader::read(const plugin::v1::ReadRequest& request) const {
  plugin::v1::ReadResult result;
  const auto queue = queues_.find(request.topic, request.queue_id);
  if (!queue) {
    result.status = ReadStatus::kNoMatchedLogicQueue;
    return result;
  }
  const std::int64_t offset = request.offset;
  result.min_offset = queue->min_offset();
  result.max_offset = queue->max_offset();
  if (result.max_offset == 0) {
    result.status = ReadStatus::kNoMessageInQueue;
    return result;
  }
  if (offset < result.min_offset) {
    result.status = ReadStatus::kOffsetTooSmall;
    result.next_begin_offset = result.min_offset;
    return result;
  }
  if (offset == result.max_offset) {
    result.status = ReadStatus::kOffsetOverflowOne;
    result.next_begin_offset = offset;
    return result;
  }
  if (offset > result.max_offset) {
    result.status = ReadStatus::kOffsetOverflowBadly;
    result.next_begin_offset = result.min_offset == 0 ? result.min_offset : result.max_offset;
    return result;
  }
  const UnitRun run = queue->units(offset, kMaxScannedUnits);
  if (run.count == 0) {
    // The unit's file is gone: continue at the next file.
    result.status = ReadStatus::kOffsetFoundNull;
    result.next_begin_offset = queue->roll_next_file(offset);
    return result;
  }
  result.status = ReadStatus::kNoMatchedMessage;
  const std::int64_t commit_log_min = commit_log_.min_offset();
  const auto max_count = static_cast<std::size_t>(std::max(1, request.max_count));
  std::int64_t i = 0;
  for (; i < run.count; ++i) {
    if (result.records.size() >= max_count) break;
    const ConsumeQueueUnit unit = run.at(i);
    if (!unit.valid()) continue;
    if (result.total_bytes > 0 && result.total_bytes + unit.size > request.max_bytes) break;
    if (!tag_matches(request.tag_codes, unit.tags_code)) continue;
    auto slice = unit.commit_offset >= commit_log_min ? commit_log_.read(unit.commit_offset, unit.size)
                                                      : v1::Result<plugin::v1::StoredSlice>(v1::Status::not_found(""));
    if (!slice.is_ok()) {
      if (result.records.empty()) result.status = ReadStatus::kMessageWasRemoving;
      continue;
    }
    result.records.push_back(std::move(slice).value());
    result.queue_offsets.push_back(offset + i);
    result.total_bytes += unit.size;
  }
  result.next_begin_offset = offset + i;
  if (!result.records.empty()) result.status = ReadStatus::kFound;
  return result;
}

std::int64_t QueueReader::min_offset(std::string_view topic, std::int32_t queue_id) const {
  const auto queue = queues_.find(topic, queue_id);
  return queue ? queue->min_offset() : 0;
}

std::int64_t QueueReader::max_offset(std::string_view topic, std::int32_t queue_id) const {
  const auto queue = queues_.find(topic, queue_id);
  return queue ? queue->max_offset() : 0;
}

v1::Result<std::int64_t> QueueReader::commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                                       std::int64_t queue_offset) const {
  const auto queue = queues_.find(topic, queue_id);
  if (!queue) return v1::Status::not_found("no queue " + std::string(topic) + "/" + std::to_string(queue_id));
  MQKIT_ASSIGN_OR_RETURN(const auto unit, queue->unit(queue_offset));
  return unit.commit_offset;
}

v1::Result<std::int64_t> QueueReader::entry_time(const ConsumeQueue& queue, std::int64_t queue_offset) const {
  MQKIT_ASSIGN_OR_RETURN(const auto unit, queue.unit(queue_offset));
  return commit_log_.store_timestamp_at(unit.commit_offset);
}

v1::Result<std::int64_t> QueueReader::offset_by_time(std::string_view topic, std::int32_t queue_id,
                                                     std::int64_t timestamp_ms,
                                                     plugin::v1::TimeBoundary boundary) const {
  const auto queue = queues_.find(topic, queue_id);
  if (!queue) return std::int64_t{0};
  std::int64_t low = queue->min_offset();
  std::int64_t high = queue->max_offset();
  const std::int64_t first = low;
  // Store timestamps never decrease along a queue: the first entry failing the predicate splits it.
  const bool lower = boundary == plugin::v1::TimeBoundary::kLower;
  while (low < high) {
    const std::int64_t middle = low + (high - low) / 2;
    MQKIT_ASSIGN_OR_RETURN(const std::int64_t time, entry_time(*queue, middle));
    if (lower ? time < timestamp_ms : time <= timestamp_ms) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  // Lower: `low` is the first entry at or after the time. Upper: the entry before the first one
  // after the time.
  if (lower) return low;
  return low > first ? low - 1 : first;
}

v1::Result<std::int64_t> QueueReader::earliest_message_time(std::string_view topic, std::int32_t queue_id) const {
  const auto queue = queues_.find(topic, queue_id);
  if (!queue || queue->max_offset() <= queue->min_offset()) {
    return v1::Status::not_found("queue " + std::string(topic) + "/" + std::to_string(queue_id) + " holds no message");
  }
  return entry_time(*queue, queue->min_offset());
}

}  // namespace mqkit::plugins::stores::commitlog
