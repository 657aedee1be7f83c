// QueueReader: reads by (topic, queue, offset) through the consume queues into the commit log,
// with RocketMQ's GetMessageStatus semantics (DefaultMessageStore.getMessage), plus the
// per-queue lookups: min/max offsets, commit offset of an entry, offset by time, earliest
// message time. Returned records are StoredSlices into the mapped commit log (no copy).
//
// Threads: stateless; any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "commit_log.hpp"
#include "consume_queue_set.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::plugins::stores::commitlog {

// Units one read may scan past the tag filter (RocketMQ's maxFilterMessageCount).
inline constexpr std::int64_t kMaxScannedUnits = 16000;

class QueueReader {
 public:
  QueueReader(const CommitLog& commit_log, const ConsumeQueueSet& queues) : commit_log_(commit_log), queues_(queues) {}

  v1::Result<plugin::v1::ReadResult> read(const plugin::v1::ReadRequest& request) const;
  std::int64_t min_offset(std::string_view topic, std::int32_t queue_id) const;
  std::int64_t max_offset(std::string_view topic, std::int32_t queue_id) const;
  v1::Result<std::int64_t> commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                            std::int64_t queue_offset) const;
  // kLower: the first entry stored at or after `timestamp_ms` (max offset when none);
  // kUpper: the last entry stored at or before it (min offset when none). 0 for an unknown queue.
  v1::Result<std::int64_t> offset_by_time(std::string_view topic, std::int32_t queue_id, std::int64_t timestamp_ms,
                                          plugin::v1::TimeBoundary boundary) const;
  v1::Result<std::int64_t> earliest_message_time(std::string_view topic, std::int32_t queue_id) const;

 private:
  v1::Result<std::int64_t> entry_time(const ConsumeQueue& queue, std::int64_t queue_offset) const;

  const CommitLog& commit_log_;
  const ConsumeQueueSet& queues_;
};

}  // namespace mqkit::plugins::stores::commitlog
