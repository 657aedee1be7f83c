// CommitLogStore's StoreAdmin: the operator requests (mqkit/plugin/v1/store_admin.hpp).
#include <algorithm>

#include "store.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {
// RocketMQ's executeDeleteFilesManually lets its next 20 passes delete whatever has expired;
// each pass here deletes up to kDeleteFilesBatchMax files.
constexpr int kManualDeletePasses = 20;
}  // namespace

v1::Result<int> CommitLogStore::delete_expired_files() noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  int deleted = 0;
  for (int pass = 0; pass < kManualDeletePasses; ++pass) {
    const RetentionPass done = retention_.run(true);
    deleted += done.commit_log_files;
    if (done.commit_log_files == 0) break;
  }
  log_.info("deleted " + std::to_string(deleted) + " expired commit log file(s) on request");
  return deleted;
}

v1::Result<std::vector<plugin::v1::QueueRef>> CommitLogStore::queues() noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  std::vector<plugin::v1::QueueRef> out;
  for (const auto& queue : queues_.all()) out.push_back({queue->topic(), queue->queue_id()});
  return out;
}

v1::Result<plugin::v1::QueueUnits> CommitLogStore::queue_units(std::string_view topic, std::int32_t queue_id,
                                                               std::int64_t from, std::int32_t count) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  const auto queue = queues_.find(topic, queue_id);
  if (!queue) return v1::Status::not_found(std::to_string(queue_id) + "@" + std::string(topic) + " is not exist!");
  plugin::v1::QueueUnits out;
  out.min_offset = queue->min_offset();
  out.max_offset = queue->max_offset();
  std::int64_t next = std::max(from, out.min_offset);
  const std::int64_t end = plugin::v1::queue_units_end(from, count, out.max_offset);
  while (next < end) {
    const UnitRun run = queue->units(next, end - next);
    if (run.count == 0) break;  // its file went with retention meanwhile
    for (std::int64_t i = 0; i < run.count; ++i) {
      const ConsumeQueueUnit unit = run.at(i);
      out.units.push_back({next + i, unit.commit_offset, unit.size, unit.tags_code});
    }
    next += run.count;
  }
  return out;
}

v1::Result<bool> CommitLogStore::drop_expired_queue(std::string_view topic, std::int32_t queue_id) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  const auto queue = queues_.find(topic, queue_id);
  if (!queue) return false;
  v1::Status removed;
  // Runs under the put lock, so no message for this queue can be appended (and dispatched into a
  // new queue with the same files) before the old files are gone.
  const auto remove_if_expired = [&](std::int64_t next_queue_offset) {
    const std::int64_t max = queue->max_offset();
    // Appended but not yet dispatched messages are on their way into the queue.
    if (max == 0 || next_queue_offset != max) return false;
    const bool all_gone = queue->min_offset() == max || queue->last_commit_end() <= commit_log_.min_offset();
    if (!all_gone) return false;
    removed = queues_.remove_queue(queue);
    return removed.is_ok();
  };
  // Between retention passes: a pass must not be cleaning the files of the queue going away.
  const bool dropped =
      retention_.between_passes([&] { return commit_log_.remove_queue_if(topic, queue_id, remove_if_expired); });
  MQKIT_RETURN_IF_ERROR(removed);
  if (dropped) {
    log_.info("dropped consume queue " + std::string(topic) + "/" + std::to_string(queue_id) +
              ": every message it indexed has left the commit log");
  }
  return dropped;
}

}  // namespace mqkit::plugins::stores::commitlog
