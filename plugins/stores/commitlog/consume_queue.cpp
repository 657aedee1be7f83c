#include "consume_queue.hpp"

#include <algorithm>
#include <cstring>

#include "big_endian.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {
// Units before the end of the last file that recovery checks one by one (rising commit offsets,
// all valid); the end itself is found by binary search, so startup stays fast with many queues.
constexpr std::int64_t kCheckedTail = 1024;
// A new queue takes one page of disk; a busy one reserves up to 64 KiB (3,276 units) at a time.
// (Reserving the whole 6 MB file up front made 8,000 queues fill 46 GB of disk.) No read-ahead:
// with thousands of queues, each first touch would otherwise zero a large folio of holes.
constexpr MappedFile::Policy kConsumeQueuePolicy{4096, 64 * 1024, /*random_access=*/true};
}  // namespace

ConsumeQueueUnit decode_unit(const std::uint8_t* bytes) noexcept {
  return {load_i64(bytes), load_i32(bytes + 8), load_i64(bytes + 12)};
}

void encode_unit(const ConsumeQueueUnit& unit, std::uint8_t* bytes) noexcept {
  store_i64(bytes, unit.commit_offset);
  store_i32(bytes + 8, unit.size);
  store_i64(bytes + 12, unit.tags_code);
}

ConsumeQueue::ConsumeQueue(Env& env, Logger log, std::string topic, std::int32_t queue_id, std::string dir,
                           std::int64_t file_size)
    : env_(env),
      log_(log),
      topic_(std::move(topic)),
      queue_id_(queue_id),
      files_(env, log, std::move(dir), file_size, kConsumeQueuePolicy) {}

v1::Result<ConsumeQueue::Recovered> ConsumeQueue::recover() {
  writing_.reset();
  MQKIT_RETURN_IF_ERROR(files_.load());
  Recovered out;
  const auto files = files_.snapshot();
  if (files.empty()) {
    min_offset_.store(0, std::memory_order_release);
    max_offset_.store(0, std::memory_order_release);
    return out;
  }
  const std::int64_t units_per_file = files_.file_size() / kUnitSize;
  // A queue whose first unit was not 0 (a replica that started at its master's last commit log
  // file, or a queue recreated after its directory was removed) begins with never-written units
  // in its first file: the queue starts at the first valid one.
  const std::uint8_t* first_data = files.front()->data();
  std::int64_t first_valid = 0;
  while (first_valid < units_per_file && !decode_unit(first_data + first_valid * kUnitSize).valid()) ++first_valid;
  if (first_valid == units_per_file) first_valid = 0;  // nothing valid at all: as before
  const auto& last = files.back();
  const std::uint8_t* data = last->data();
  const std::int64_t first_in_last = files.size() == 1 ? first_valid : 0;
  std::int64_t low = first_in_last;
  std::int64_t high = units_per_file;
  while (low < high) {
    const std::int64_t middle = low + (high - low) / 2;
    if (decode_unit(data + middle * kUnitSize).valid()) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  std::int64_t end = low;
  std::int64_t previous = -1;
  const std::int64_t checked_from = std::max<std::int64_t>(first_in_last, end - kCheckedTail);
  if (checked_from > first_in_last) previous = decode_unit(data + (checked_from - 1) * kUnitSize).commit_offset;
  for (std::int64_t i = checked_from; i < end; ++i) {
    const ConsumeQueueUnit unit = decode_unit(data + i * kUnitSize);
    if (!unit.valid() || unit.commit_offset <= previous) {
      out.problem = "unit " + std::to_string(last->start_offset() / kUnitSize + i) + " in " + last->path() +
                    (unit.valid() ? " does not point past the unit before it" : " is not a valid unit");
      end = i;
      break;
    }
    previous = unit.commit_offset;
  }
  for (const auto& file : files) {
    const std::int64_t wrote = file == last ? end * kUnitSize : file->size();
    file->set_wrote_position(wrote);
    file->set_flushed_position(wrote);
  }
  const std::int64_t max = last->start_offset() / kUnitSize + end;
  max_offset_.store(max, std::memory_order_release);
  min_offset_.store(std::min(files.front()->start_offset() / kUnitSize + first_valid, max), std::memory_order_release);
  if (!out.problem.empty()) {
    MQKIT_RETURN_IF_ERROR(files_.truncate_from(max * kUnitSize).status());
    out.rebuild_from = last_commit_end();
    log_.warn("consume queue " + topic_ + "/" + std::to_string(queue_id_) + ": " + out.problem +
              "; dropping the units from queue offset " + std::to_string(max) +
              " on, they are rebuilt from commit offset " + std::to_string(out.rebuild_from));
  }
  out.max_offset = max;
  return out;
}

std::int64_t ConsumeQueue::first_unit_at_or_after(std::int64_t commit_offset, std::int64_t from,
                                                  std::int64_t to) const {
  while (from < to) {
    const std::int64_t middle = from + (to - from) / 2;
    auto file = files_.find(middle * kUnitSize);
    const bool below = file && decode_unit(file->data() + (middle * kUnitSize - file->start_offset())).commit_offset <
                                   commit_offset;
    if (below) {
      from = middle + 1;
    } else {
      to = middle;
    }
  }
  return from;
}

v1::Status ConsumeQueue::truncate_dirty(std::int64_t commit_log_max) {
  const std::int64_t max = max_offset();
  const auto first = files_.first();
  if (max == 0 || !first) return v1::Status::ok();
  // Walk back over units that point past the log or were never written (a page lost with the
  // power): commit offsets rise along the queue, so the first unit that is valid and below the
  // end marks where the queue now ends. Holes before it are filled again by re-dispatch.
  std::int64_t new_max = max;
  while (new_max > first->start_offset() / kUnitSize) {
    auto file = files_.find((new_max - 1) * kUnitSize);
    const ConsumeQueueUnit last = decode_unit(file->data() + ((new_max - 1) * kUnitSize - file->start_offset()));
    if (last.valid() && last.commit_offset < commit_log_max) break;
    --new_max;
  }
  if (new_max == max) return v1::Status::ok();
  writing_.reset();
  log_.warn("consume queue " + topic_ + "/" + std::to_string(queue_id_) + ": dropping units [" +
            std::to_string(new_max) + ", " + std::to_string(max) + ") that point past the commit log end " +
            std::to_string(commit_log_max));
  MQKIT_RETURN_IF_ERROR(files_.truncate_from(new_max * kUnitSize).status());
  max_offset_.store(new_max, std::memory_order_release);
  if (min_offset() > new_max) min_offset_.store(new_max, std::memory_order_release);
  return v1::Status::ok();
}

v1::Status ConsumeQueue::put(std::int64_t queue_offset, const ConsumeQueueUnit& unit) {
  std::uint8_t bytes[kUnitSize];
  encode_unit(unit, bytes);
  const std::int64_t current = max_offset();
  const std::int64_t position = queue_offset * kUnitSize;
  if (queue_offset < current) {
    auto file = queue_offset >= min_offset() ? files_.find(position) : nullptr;
    if (!file) return v1::Status::ok();
    std::uint8_t* at = file->data() + (position - file->start_offset());
    if (std::memcmp(at, bytes, kUnitSize) == 0) return v1::Status::ok();
    MQKIT_RETURN_IF_ERROR(file->reserve_through(position - file->start_offset() + kUnitSize));
    static constexpr std::uint8_t kUnwritten[kUnitSize] = {};
    // A unit of zeros was lost with the page cache (power loss): re-dispatch fills it in quietly.
    if (std::memcmp(at, kUnwritten, kUnitSize) != 0) {
      log_.warn("consume queue " + topic_ + "/" + std::to_string(queue_id_) + ": unit " +
                std::to_string(queue_offset) + " pointed at commit offset " +
                std::to_string(decode_unit(at).commit_offset) + ", rewriting it to " +
                std::to_string(unit.commit_offset));
    }
    std::memcpy(at, bytes, kUnitSize);
    return v1::Status::ok();
  }
  if (queue_offset > current) {
    if (files_.empty()) {
      // A queue whose first unit is not 0 (recreated after its directory was removed).
      min_offset_.store(queue_offset, std::memory_order_release);
    } else {
      log_.warn("consume queue " + topic_ + "/" + std::to_string(queue_id_) + ": expected queue offset " +
                std::to_string(current) + ", got " + std::to_string(queue_offset) +
                "; the units in between stay empty");
    }
  }
  if (!writing_ || writing_->destroyed() || position < writing_->start_offset() || position >= writing_->end_offset()) {
    writing_ = files_.find(position);
    while (!writing_) {
      auto last = files_.last();
      const std::int64_t start = last ? last->end_offset() : position / files_.file_size() * files_.file_size();
      MQKIT_ASSIGN_OR_RETURN(writing_, files_.create_file(start));
      if (writing_->end_offset() <= position) {
        writing_->set_wrote_position(writing_->size());
        writing_ = nullptr;
      }
    }
  }
  MappedFile* file = writing_.get();
  const std::int64_t within = position - file->start_offset();
  MQKIT_RETURN_IF_ERROR(file->reserve_through(within + kUnitSize));
  std::memcpy(file->data() + within, bytes, kUnitSize);
  if (file->wrote_position() < within + kUnitSize) file->set_wrote_position(within + kUnitSize);
  max_offset_.store(queue_offset + 1, std::memory_order_release);
  return v1::Status::ok();
}

std::int64_t ConsumeQueue::last_commit_end() const {
  const std::int64_t max = max_offset();
  if (max == 0) return 0;
  auto last = unit(max - 1);
  return last.is_ok() && last->valid() ? last->commit_offset + last->size : 0;
}

v1::Result<ConsumeQueueUnit> ConsumeQueue::unit(std::int64_t queue_offset) const {
  if (queue_offset < min_offset() || queue_offset >= max_offset()) {
    return v1::Status::not_found("queue offset " + std::to_string(queue_offset) + " is outside [" +
                                 std::to_string(min_offset()) + ", " + std::to_string(max_offset()) + ") of " +
                                 topic_ + "/" + std::to_string(queue_id_));
  }
  auto file = files_.find(queue_offset * kUnitSize);
  if (!file) return v1::Status::not_found("consume queue file for queue offset " + std::to_string(queue_offset) + " is gone");
  return decode_unit(file->data() + (queue_offset * kUnitSize - file->start_offset()));
}

UnitRun ConsumeQueue::units(std::int64_t from, std::int64_t max_units) const {
  UnitRun run;
  const std::int64_t max = max_offset();
  auto file = from < max ? files_.find(from * kUnitSize) : nullptr;
  if (!file) return run;
  const std::int64_t position = from * kUnitSize - file->start_offset();
  const std::int64_t end = std::min(max * kUnitSize - file->start_offset(), file->size());
  run.data = file->data() + position;
  run.first_offset = from;
  run.count = std::min(max_units, (end - position) / kUnitSize);
  run.file = std::move(file);
  return run;
}

void ConsumeQueue::correct_min_offset(std::int64_t commit_log_min) {
  const auto first = files_.first();
  if (!first) return;
  const std::int64_t from = std::max(min_offset(), first->start_offset() / kUnitSize);
  min_offset_.store(first_unit_at_or_after(commit_log_min, from, max_offset()), std::memory_order_release);
}

v1::Result<int> ConsumeQueue::delete_expired_files(std::int64_t commit_log_min) {
  int deleted = 0;
  const auto files = files_.snapshot();
  for (std::size_t i = 0; i + 1 < files.size(); ++i) {
    const ConsumeQueueUnit last_unit = decode_unit(files[i]->data() + files[i]->size() - kUnitSize);
    if (!last_unit.valid() || last_unit.commit_offset >= commit_log_min) break;
    MQKIT_RETURN_IF_ERROR(files_.remove_first(files[i]));
    ++deleted;
  }
  correct_min_offset(commit_log_min);
  return deleted;
}

v1::Status ConsumeQueue::flush(std::int64_t least_pages) { return files_.flush(least_pages).status(); }

v1::Status ConsumeQueue::destroy() { return files_.destroy_all(); }

}  // namespace mqkit::plugins::stores::commitlog
