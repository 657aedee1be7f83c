#include "mqkit/broker/rebalance_lock_manager.hpp"

namespace mqkit::broker {

std::set<MessageQueue> RebalanceLockManager::try_lock(const std::string& group, const std::set<MessageQueue>& queues,
                                                      const std::string& client_id, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  auto& table = locks_[group];
  std::set<MessageQueue> locked;
  for (const auto& q : queues) {
    auto it = table.find(q);
    const bool free = it == table.end() || it->second.last_update_ms + max_live_ms_ < now_ms;
    if (free || it->second.client_id == client_id) {
      table[q] = {client_id, now_ms};
      locked.insert(q);
    }
  }
  return locked;
}

void RebalanceLockManager::unlock(const std::string& group, const std::set<MessageQueue>& queues,
                                  const std::string& client_id) {
  std::lock_guard lock(mutex_);
  auto g = locks_.find(group);
  if (g == locks_.end()) return;
  for (const auto& q : queues) {
    auto it = g->second.find(q);
    if (it != g->second.end() && it->second.client_id == client_id) g->second.erase(it);
  }
}

bool RebalanceLockManager::is_locked_by(const std::string& group, const MessageQueue& queue,
                                        const std::string& client_id, std::int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  auto g = locks_.find(group);
  if (g == locks_.end()) return false;
  auto it = g->second.find(queue);
  return it != g->second.end() && it->second.client_id == client_id && it->second.last_update_ms + max_live_ms_ >= now_ms;
}

}  // namespace mqkit::broker
