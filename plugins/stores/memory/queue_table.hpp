// The memory store's consume queues: for every (topic, queue id) the entries RocketMQ keeps in a
// ConsumeQueue file (commit offset, size, tags code) plus the store timestamp, so that reads by
// queue offset, tag filtering and searches by time need no commit log access. A queue also
// carries the next queue offset to hand out on append.
//
// Threads: entries are added and pruned only by the kernel's reput thread (through the store's
// dispatcher and on_dispatched), next offsets are handed out only under the store's put lock, and
// any thread may read. Each queue has its own reader/writer lock; the table has one for its map.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "mqkit/plugin/v1/store_admin.hpp"
#include "string_map.hpp"

namespace mqkit::plugins::stores::memory {

struct QueueEntry {
  std::int64_t commit_offset = 0;
  std::int64_t tags_code = 0;
  std::int64_t store_timestamp = 0;
  std::int32_t size = 0;
};

// What a read picked from a queue under its lock; the records are fetched from the log after.
struct QueueSelection {
  plugin::v1::ReadStatus status = plugin::v1::ReadStatus::kNoMessageInQueue;
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;
  std::int64_t next_begin_offset = 0;
  std::vector<std::int64_t> queue_offsets{};
  std::vector<QueueEntry> entries{};
};

class ConsumeQueue {
 public:
  // Put lock held: the queue offset the next appended message gets, and handing out `count`.
  std::int64_t next_append_offset() const noexcept { return next_append_offset_; }
  void advance_append_offset(std::int64_t count) noexcept { next_append_offset_ += count; }
  // Put lock held: replication copied a record with this queue offset.
  void note_replicated_offset(std::int64_t queue_offset) noexcept;

  // Reput thread. A record whose queue offset was already added is ignored (a dispatch retried
  // after another dispatcher failed); a jump forward means the records in between were evicted
  // before they were dispatched, and so were all older entries.
  void add(std::int64_t queue_offset, const QueueEntry& entry);
  // Reput thread: drops entries whose records are older than the log's min offset.
  void prune(std::int64_t log_min_offset);

  // Any thread. `log_min_offset` hides entries already evicted from the log but not yet pruned,
  // so min offsets move up as soon as the log drops a chunk.
  std::int64_t min_offset(std::int64_t log_min_offset) const;
  std::int64_t max_offset() const;
  // RocketMQ's DefaultMessageStore.getMessage over this queue, without touching the log.
  QueueSelection select(const plugin::v1::ReadRequest& request, std::int64_t log_min_offset) const;
  plugin::v1::Result<QueueEntry> entry_at(std::int64_t queue_offset, std::int64_t log_min_offset) const;
  plugin::v1::Result<QueueEntry> first_entry(std::int64_t log_min_offset) const;
  // Up to `count` live units from `from` (QUERY_CONSUME_QUEUE).
  plugin::v1::QueueUnits units(std::int64_t from, std::int32_t count, std::int64_t log_min_offset) const;
  std::int64_t offset_by_time(std::int64_t timestamp_ms, plugin::v1::TimeBoundary boundary,
                              std::int64_t log_min_offset) const;

 private:
  // Lock held. Queue offset of the first entry whose record is still in the log.
  std::int64_t live_begin(std::int64_t log_min_offset) const;
  std::int64_t end() const noexcept { return base_ + static_cast<std::int64_t>(entries_.size()); }
  const QueueEntry& at(std::int64_t queue_offset) const { return entries_[static_cast<std::size_t>(queue_offset - base_)]; }

  mutable std::shared_mutex mutex_;
  std::deque<QueueEntry> entries_;
  std::int64_t base_ = 0;  // queue offset of entries_.front()

  std::int64_t next_append_offset_ = 0;  // put lock only
};

class QueueTable {
 public:
  std::shared_ptr<ConsumeQueue> find(std::string_view topic, std::int32_t queue_id) const;
  std::shared_ptr<ConsumeQueue> find_or_create(std::string_view topic, std::int32_t queue_id);
  // Reput thread: the queue a dispatched record belongs to, or nullptr when its topic was deleted
  // after the record was written (the record must not bring the topic back).
  std::shared_ptr<ConsumeQueue> queue_for_dispatch(std::string_view topic, std::int32_t queue_id,
                                                   std::int64_t commit_offset);
  bool deleted_before(std::string_view topic, std::int64_t commit_offset) const;

  // Put lock held, so no append races with it: forgets every queue of `topic`. Records of the
  // topic below `log_max_offset` that are dispatched later are ignored.
  void erase_topic(std::string_view topic, std::int64_t log_max_offset);

  void for_each(const std::function<void(ConsumeQueue&)>& visit) const;
  std::vector<plugin::v1::QueueRef> refs() const;
  // Put lock held: forgets `queue` if the table still holds it there; its next message starts
  // a new queue at offset 0.
  void erase_queue(std::string_view topic, std::int32_t queue_id, const std::shared_ptr<ConsumeQueue>& queue);

 private:
  using Queues = std::unordered_map<std::int32_t, std::shared_ptr<ConsumeQueue>>;
  std::shared_ptr<ConsumeQueue> find_locked(std::string_view topic, std::int32_t queue_id) const;
  bool deleted_before_locked(std::string_view topic, std::int64_t commit_offset) const;
  std::shared_ptr<ConsumeQueue> create_locked(std::string_view topic, std::int32_t queue_id);

  mutable std::shared_mutex mutex_;
  StringMap<Queues> topics_;
  // topic -> log offset at deletion; records below it are no longer the topic's.
  StringMap<std::int64_t> deleted_below_;
};

}  // namespace mqkit::plugins::stores::memory
