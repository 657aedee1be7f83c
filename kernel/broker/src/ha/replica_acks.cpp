#include "mqkit/broker/ha/replica_acks.hpp"

#include <algorithm>

namespace mqkit::broker {

std::int64_t ReplicaAcks::steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void ReplicaAcks::connected(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  slaves_.push_back({id, -1});
}

void ReplicaAcks::disconnected(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  std::erase_if(slaves_, [id](const Slave& s) { return s.id == id; });
}

void ReplicaAcks::acked(std::uint64_t id, std::int64_t offset) {
  Completed completed;
  {
    std::lock_guard lock(mutex_);
    for (Slave& s : slaves_) {
      if (s.id == id) s.acked_offset = offset;
    }
    if (offset <= acked_offset_) return;
    acked_offset_ = offset;
    take_covered(completed);
  }
  run(completed);
}

std::int64_t ReplicaAcks::acked_offset() const {
  std::lock_guard lock(mutex_);
  return acked_offset_;
}

std::size_t ReplicaAcks::slave_count() const {
  std::lock_guard lock(mutex_);
  return slaves_.size();
}

std::vector<ReplicaAcks::Slave> ReplicaAcks::slaves() const {
  std::lock_guard lock(mutex_);
  return slaves_;
}

bool ReplicaAcks::slave_ok(std::int64_t end_offset, std::int64_t max_gap) const {
  std::lock_guard lock(mutex_);
  return !slaves_.empty() && end_offset - acked_offset_ < max_gap;
}

void ReplicaAcks::wait(std::int64_t end_offset, std::int64_t max_gap, std::int64_t deadline_ms, Done done) {
  ReplicaOutcome now;
  {
    std::lock_guard lock(mutex_);
    if (slaves_.empty() || end_offset - acked_offset_ >= max_gap) {
      now = ReplicaOutcome::kSlaveNotAvailable;
    } else if (acked_offset_ >= end_offset) {
      now = ReplicaOutcome::kOk;
    } else {
      waiters_.emplace(end_offset, Waiter{deadline_ms, std::move(done)});
      return;
    }
  }
  done(now);
}

std::size_t ReplicaAcks::expire(std::int64_t now_ms) {
  Completed completed;
  std::size_t left = 0;
  {
    std::lock_guard lock(mutex_);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->second.deadline_ms <= now_ms) {
        completed.emplace_back(std::move(it->second.done), ReplicaOutcome::kFlushSlaveTimeout);
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    left = waiters_.size();
  }
  run(completed);
  return left;
}

void ReplicaAcks::fail_all() {
  Completed completed;
  {
    std::lock_guard lock(mutex_);
    for (auto& [end, waiter] : waiters_) completed.emplace_back(std::move(waiter.done), ReplicaOutcome::kFlushSlaveTimeout);
    waiters_.clear();
  }
  run(completed);
}

void ReplicaAcks::take_covered(Completed& out) {
  const auto covered = waiters_.upper_bound(acked_offset_);
  for (auto it = waiters_.begin(); it != covered; ++it) out.emplace_back(std::move(it->second.done), ReplicaOutcome::kOk);
  waiters_.erase(waiters_.begin(), covered);
}

void ReplicaAcks::run(Completed& completed) {
  for (auto& [done, outcome] : completed) done(outcome);
}

}  // namespace mqkit::broker
