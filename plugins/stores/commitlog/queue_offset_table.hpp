// QueueOffsetTable: the next queue offset of every (topic, queue), which the commit log stamps
// into each record it appends (RocketMQ's topicQueueTable). Rebuilt at recovery from the consume
// queues and the records recovery scanned past them.
//
// Threads: not synchronized; the commit log touches it only under its put lock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace mqkit::plugins::stores::commitlog {

class QueueOffsetTable {
 public:
  std::int64_t next(std::string_view topic, std::int32_t queue_id) const {
    const auto it = table_.find(key(topic, queue_id));
    return it == table_.end() ? 0 : it->second;
  }
  void set(std::string_view topic, std::int32_t queue_id, std::int64_t next_offset) {
    table_[key(topic, queue_id)] = next_offset;
  }
  // Raises the next offset to at least `next_offset`.
  void raise(std::string_view topic, std::int32_t queue_id, std::int64_t next_offset) {
    auto& value = table_[key(topic, queue_id)];
    if (value < next_offset) value = next_offset;
  }
  void raise_all(const QueueOffsetTable& other) {
    for (const auto& [k, next_offset] : other.table_) {
      auto& value = table_[k];
      if (value < next_offset) value = next_offset;
    }
  }
  void remove_topic(std::string_view topic) {
    const std::string prefix = std::string(topic) + '\0';
    std::erase_if(table_, [&](const auto& entry) { return entry.first.starts_with(prefix); });
  }
  std::size_t size() const noexcept { return table_.size(); }

 private:
  // The NUL cannot occur in a topic name, so "topic\0queue" is unambiguous.
  static std::string key(std::string_view topic, std::int32_t queue_id) {
    std::string k(topic);
    k += '\0';
    k += std::to_string(queue_id);
    return k;
  }
  std::unordered_map<std::string, std::int64_t> table_;
};

}  // namespace mqkit::plugins::stores::commitlog
