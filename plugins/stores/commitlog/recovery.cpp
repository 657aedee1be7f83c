#include "recovery.hpp"

#include <algorithm>
#include <limits>

#include "big_endian.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {

using plugin::v1::kBlankMagic;

// RocketMQ's abnormal recovery starts from a file whose first record is this much older than
// the checkpoint's timestamps.
constexpr std::int64_t kTimestampMargin = 3000;

}  // namespace

ScanStep inspect_scan_position(std::span<const std::uint8_t> rest_of_file, std::int64_t position,
                               plugin::v1::CrcCheck crc) {
  ScanStep step;
  const auto problem = [&](std::string why) {
    step.kind = ScanStep::Kind::kProblem;
    step.problem = std::move(why);
    return step;
  };
  const auto room = static_cast<std::int64_t>(rest_of_file.size());
  if (room < plugin::v1::kBlankHeaderSize) {
    return problem("only " + std::to_string(room) + " bytes left before the end of the file");
  }
  const std::int32_t size = load_i32(rest_of_file.data());
  const std::int32_t magic = load_i32(rest_of_file.data() + 4);
  if (magic == kBlankMagic) {
    if (size != room) {
      return problem("end-of-file blank says " + std::to_string(size) + " bytes but " + std::to_string(room) +
                     " remain");
    }
    step.kind = ScanStep::Kind::kBlank;
    step.length = room;
    return step;
  }
  if (size == 0 && magic == 0) return step;  // never written: the end of the log
  auto record = plugin::v1::decode_record(rest_of_file, crc);
  if (!record.is_ok()) {
    return problem(size == 0 ? "record was not completely written (its size field is still 0)"
                             : record.status().message());
  }
  if (record->commit_offset != position) {
    return problem("record says it is at commit offset " + std::to_string(record->commit_offset));
  }
  step.kind = ScanStep::Kind::kRecord;
  step.length = record->total_size;
  step.record = *record;
  return step;
}

std::int64_t Recovery::aligned_scan_start(std::int64_t offset) const {
  auto file = commit_log_.files().find(offset);
  if (!file || offset == file->start_offset()) return offset;
  const std::int64_t position = offset - file->start_offset();
  const std::span<const std::uint8_t> rest(file->data() + position, static_cast<std::size_t>(file->size() - position));
  if (inspect_scan_position(rest, offset, plugin::v1::CrcCheck::kSkip).kind != ScanStep::Kind::kProblem) return offset;
  log_.warn("recovery: checkpoint offset " + std::to_string(offset) + " is not a record boundary in " + file->path() +
            "; scanning from the start of that file");
  return file->start_offset();
}

std::int64_t Recovery::rocketmq_abnormal_start(std::int64_t timestamp_limit) const {
  const auto files = commit_log_.files().snapshot();
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    auto record = plugin::v1::decode_record({(*it)->data(), static_cast<std::size_t>((*it)->size())});
    if (record.is_ok() && record->store_timestamp != 0 && record->store_timestamp <= timestamp_limit) {
      return (*it)->start_offset();
    }
  }
  return files.empty() ? 0 : files.front()->start_offset();
}

Recovery::SafePoint Recovery::choose_safe_point(bool clean, const std::optional<CheckpointData>& checkpoint,
                                                bool queues_lost) const {
  const auto files = commit_log_.files().snapshot();
  const std::int64_t first = files.empty() ? 0 : files.front()->start_offset();
  const std::int64_t last_end = files.empty() ? 0 : files.back()->end_offset();
  SafePoint safe{first, first, ""};
  if (files.empty()) {
    safe.why = "new store";
  } else if (!checkpoint) {
    safe.why = "no usable checkpoint: full scan and rebuild";
  } else if (queues_lost) {
    safe.why = "the consumequeue directory is missing: full rebuild";
  } else if (checkpoint->has_offsets && std::max({checkpoint->physic_offset, checkpoint->logics_offset,
                                                   checkpoint->index_offset}) > last_end) {
    safe.why = "the checkpoint names offsets past the last commit log file: full scan and rebuild";
  } else if (checkpoint->has_offsets) {
    safe.dispatch_from =
        index_ != nullptr ? std::min(checkpoint->logics_offset, checkpoint->index_offset) : checkpoint->logics_offset;
    safe.scan_from = std::min(checkpoint->physic_offset, safe.dispatch_from);
    safe.why = clean ? "clean shutdown" : "crash (abort marker present)";
  } else if (clean) {
    // A checkpoint RocketMQ wrote: its normal recovery checks the last three files.
    safe.scan_from = safe.dispatch_from = files.size() > 3 ? files[files.size() - 3]->start_offset() : first;
    safe.why = "clean shutdown, RocketMQ checkpoint";
  } else {
    std::int64_t limit = std::min(checkpoint->physic_msg_timestamp, checkpoint->logics_msg_timestamp);
    if (index_ != nullptr && checkpoint->index_msg_timestamp > 0) limit = std::min(limit, checkpoint->index_msg_timestamp);
    safe.scan_from = safe.dispatch_from = rocketmq_abnormal_start(limit - kTimestampMargin);
    safe.why = "crash, RocketMQ checkpoint";
  }
  safe.scan_from = aligned_scan_start(std::clamp(safe.scan_from, first, std::max(first, last_end)));
  safe.dispatch_from = std::max(safe.dispatch_from, first);
  return safe;
}

Recovery::Scan Recovery::scan(std::int64_t from) const {
  Scan out;
  const auto crc = options_.check_crc_on_recover ? plugin::v1::CrcCheck::kVerify : plugin::v1::CrcCheck::kSkip;
  std::int64_t position = from;
  while (auto file = commit_log_.files().find(position)) {
    const std::int64_t within = position - file->start_offset();
    const std::span<const std::uint8_t> rest(file->data() + within, static_cast<std::size_t>(file->size() - within));
    const ScanStep step = inspect_scan_position(rest, position, crc);
    if (step.kind == ScanStep::Kind::kEnd) break;
    if (step.kind == ScanStep::Kind::kProblem) {
      out.problem = step.problem;
      break;
    }
    if (step.kind == ScanStep::Kind::kRecord) {
      const plugin::v1::RecordView& record = step.record;
      if (takes_queue_offset(record.sys_flag)) {
        out.next_offsets.raise(record.topic, record.queue_id, record.queue_offset + 1);
        out.first_offsets.try_emplace({std::string(record.topic), record.queue_id}, record.queue_offset);
      }
      out.last_store_timestamp = record.store_timestamp;
      ++out.records;
    }
    position += step.length;
  }
  out.end = position;
  return out;
}

v1::Result<RecoveryOutcome> Recovery::run() {
  MQKIT_RETURN_IF_ERROR(commit_log_.load().with_context("opening the commit log"));
  MQKIT_ASSIGN_OR_RETURN(auto loaded, queues_.load());
  if (index_ != nullptr) MQKIT_RETURN_IF_ERROR(index_->load().with_context("opening the index"));

  const bool clean = !env_.exists(options_.abort_path());
  std::optional<CheckpointData> checkpoint;
  if (auto read = read_checkpoint(env_, options_.checkpoint_path()); read.is_ok()) {
    checkpoint = *read;
  } else {
    log_.warn("recovery: " + read.status().message() + "; rebuilding from the first commit log file");
  }
  const std::int64_t first = commit_log_.files().empty() ? 0 : commit_log_.files().first()->start_offset();
  const bool queues_lost = checkpoint && checkpoint->has_offsets && checkpoint->logics_offset > first &&
                           !env_.exists(options_.consume_queue_dir());
  const SafePoint safe = choose_safe_point(clean, checkpoint, queues_lost);

  Scan scanned = scan(safe.scan_from);
  const std::int64_t max = scanned.end;
  if (!scanned.problem.empty()) {
    auto file = commit_log_.files().find(max);
    const std::string where = file ? file->path() + " at byte " + std::to_string(max - file->start_offset())
                                   : "the end of the commit log";
    log_.error("recovery: cutting the commit log at " + where + " (commit offset " + std::to_string(max) +
               "): " + scanned.problem);
  }
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t truncated,
                         commit_log_.files().truncate_from(max, !scanned.problem.empty()));
  if (truncated > 0) log_.warn("recovery: dropped " + std::to_string(truncated) + " bytes after commit offset " + std::to_string(max));

  std::int64_t rebuild_from = std::numeric_limits<std::int64_t>::max();
  for (auto& queue : loaded) {
    if (queue.recovered.rebuild_from >= 0) rebuild_from = std::min(rebuild_from, queue.recovered.rebuild_from);
    MQKIT_RETURN_IF_ERROR(queue.queue->truncate_dirty(max));
  }
  for (const auto& [key, first_offset] : scanned.first_offsets) {
    const auto queue = queues_.find(key.first, key.second);
    if (queue && queue->max_offset() < first_offset) {
      const std::int64_t from = queue->last_commit_end();
      log_.warn("recovery: consume queue " + key.first + "/" + std::to_string(key.second) + " ends at queue offset " +
                std::to_string(queue->max_offset()) + " but the commit log continues at " +
                std::to_string(first_offset) + "; re-dispatching from commit offset " + std::to_string(from));
      rebuild_from = std::min(rebuild_from, from);
    } else if (!queue && first_offset > 0) {
      log_.warn("recovery: no consume queue for " + key.first + "/" + std::to_string(key.second) +
                " although the commit log holds its records from queue offset " + std::to_string(first_offset) +
                "; it will start there (remove the checkpoint to rebuild every queue from the commit log)");
    }
  }

  QueueOffsetTable next_offsets;
  for (const auto& queue : queues_.all()) next_offsets.set(queue->topic(), queue->queue_id(), queue->max_offset());
  next_offsets.raise_all(scanned.next_offsets);
  if (index_ != nullptr) {
    // Entries for records past the checkpoint's index offset may have been lost with the page
    // cache: index those records again (queries drop the duplicates a process crash leaves).
    index_->limit_to(checkpoint && checkpoint->has_offsets ? std::min(max, checkpoint->index_offset) : max);
  }

  RecoveryOutcome out;
  out.last_store_timestamp = scanned.records > 0 ? scanned.last_store_timestamp
                                                 : (checkpoint ? checkpoint->physic_msg_timestamp : 0);
  commit_log_.restore(max, clean ? max : safe.scan_from, out.last_store_timestamp, std::move(next_offsets));
  const std::int64_t min = commit_log_.min_offset();
  for (const auto& queue : queues_.all()) queue->correct_min_offset(min);

  out.report.clean_shutdown = clean;
  out.report.commit_log_min_offset = min;
  out.report.commit_log_max_offset = max;
  out.report.truncated_bytes = truncated;
  out.report.dispatch_from_offset = std::clamp(std::min(safe.dispatch_from, rebuild_from), min, max);
  log_.info("recovered " + options_.store_path + " (" + safe.why + "): commit log [" + std::to_string(min) + ", " +
            std::to_string(max) + "), scanned " + std::to_string(scanned.records) + " records from " +
            std::to_string(safe.scan_from) + ", " + std::to_string(queues_.size()) +
            " consume queues, dispatch resumes at " + std::to_string(out.report.dispatch_from_offset));
  return out;
}

}  // namespace mqkit::plugins::stores::commitlog
