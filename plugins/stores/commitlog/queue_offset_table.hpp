// QueueOffsetTable: the next queue offset of every (topic, queue), which the commit log stamps
// into each record it appends (RocketMQ's topicQueueTable). Rebuilt at recovery from the consume
// queues and the records recovery scanned past them.
//
// Threads: not synchronized; the commit log touches it only under its put lock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "queue_key.hpp"

namespace mqkit::plugins::stores::commitlog {

class QueueOffsetTable {
 public:
  std::int64_t next(std::string_view topic, std::int32_t queue_id) const {
    const auto it = table_.find(QueueKeyView{topic, queue_id});
    return it == table_.end() ? 0 : it->second;
  }
  void set(std::string_view topic, std::int32_t queue_id, std::int64_t next_offset) {
    slot(topic, queue_id) = next_offset;
  }
  // Raises the next offset to at least `next_offset`.
  void raise(std::string_view topic, std::int32_t queue_id, std::int64_t next_offset) {
    auto& value = slot(topic, queue_id);
    if (value < next_offset) value = next_offset;
  }
  void raise_all(const QueueOffsetTable& other) {
    for (const auto& [k, next_offset] : other.table_) raise(k.topic, k.queue_id, next_offset);
  }
  void remove_topic(std::string_view topic) {
    std::erase_if(table_, [&](const auto& entry) { return entry.first.topic == topic; });
  }
  void remove(std::string_view topic, std::int32_t queue_id) {
    if (const auto it = table_.find(QueueKeyView{topic, queue_id}); it != table_.end()) table_.erase(it);
  }
  std::size_t size() const noexcept { return table_.size(); }

 private:
  std::int64_t& slot(std::string_view topic, std::int32_t queue_id) {
    const auto it = table_.find(QueueKeyView{topic, queue_id});
    if (it != table_.end()) return it->second;
    return table_.emplace(QueueKey{std::string(topic), queue_id}, 0).first->second;
  }

  QueueMap<std::int64_t> table_;
};

}  // namespace mqkit::plugins::stores::commitlog
