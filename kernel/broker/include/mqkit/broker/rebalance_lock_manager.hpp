// RebalanceLockManager: which client holds each queue of a consumer group for ordered
// consumption (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ). A lock not renewed within the maximum live
// time expires, so a dead consumer's queues are freed (rocketmq-facts §5.7). Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "mqkit/plugin/v1/message_queue.hpp"

namespace mqkit::broker {

using plugin::v1::MessageQueue;

class RebalanceLockManager {
 public:
  explicit RebalanceLockManager(std::int64_t max_live_ms) : max_live_ms_(max_live_ms) {}

  // Locks what it can for `client_id` (free, expired, or already its own) and returns those.
  std::set<MessageQueue> try_lock(const std::string& group, const std::set<MessageQueue>& queues,
                                  const std::string& client_id, std::int64_t now_ms);
  // Releases the queues `client_id` holds among `queues`.
  void unlock(const std::string& group, const std::set<MessageQueue>& queues, const std::string& client_id);
  bool is_locked_by(const std::string& group, const MessageQueue& queue, const std::string& client_id,
                    std::int64_t now_ms) const;

 private:
  struct Lock {
    std::string client_id;
    std::int64_t last_update_ms = 0;
  };
  std::int64_t max_live_ms_;
  mutable std::mutex mutex_;
  std::map<std::string, std::map<MessageQueue, Lock>> locks_;
};

}  // namespace mqkit::broker
