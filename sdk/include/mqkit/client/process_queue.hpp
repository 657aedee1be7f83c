// ProcessQueue: what a consumer holds of one queue it owns (RocketMQ's ProcessQueue) — the
// messages pulled and not yet consumed, keyed by queue offset, their count and body bytes (flow
// control), the offset that may be committed, whether the queue was taken away (dropped), and for
// orderly consumption the broker lock and the messages being consumed right now.
//
// Threads: thread-safe. Pull callbacks put, consume threads take and remove, the rebalance
// thread drops and locks. consume_mutex() serializes orderly listeners of this queue, and
// rebalance holds it while releasing an orderly queue.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client {

class ProcessQueue {
 public:
  using Clock = std::chrono::steady_clock;
  // A broker lock older than this is treated as lost (rocketmq.client.rebalance.lockMaxLiveTime).
  static constexpr std::chrono::milliseconds kLockMaxLive{30000};

  // Adds pulled messages (those already cached are ignored). True when an orderly consumer
  // should be dispatched: there are messages and none is being consumed.
  bool put(const std::vector<MessageExt>& messages);
  // Removes consumed (or handed back) messages; returns the offset to commit: the smallest
  // cached offset, or one past the largest offset ever cached when nothing is left; -1 when the
  // queue never held a message.
  std::int64_t remove(const std::vector<MessageExt>& messages);

  // ---- Concurrent consumption: consume timeout ------------------------------------------------
  // Records that a listener started on these cached messages now (RocketMQ's
  // CONSUME_START_TIME); they are then candidates for expired_head().
  void mark_consume_started(const std::vector<MessageExt>& messages);
  // The cached message with the smallest offset when its listener started more than `timeout`
  // ago (RocketMQ checks only the head: the head is what holds the queue's offset back).
  std::optional<MessageExt> expired_head(std::chrono::milliseconds timeout) const;

  std::size_t message_count() const;
  std::size_t message_bytes() const;
  // Largest minus smallest cached offset (0 when empty).
  std::int64_t max_span() const;

  // ---- Orderly consumption -----------------------------------------------------------------
  // Moves up to `count` messages (smallest offsets first) to the consuming set; empty when
  // nothing is cached (the queue's consumer then stops until the next put).
  std::vector<MessageExt> take_messages(std::size_t count);
  // The consuming set was consumed: forgets it and returns the offset to commit (as remove()).
  std::int64_t commit();
  // The consuming set goes back to the cache, to be taken again (after a suspension).
  void make_messages_to_consume_again(const std::vector<MessageExt>& messages);
  std::timed_mutex& consume_mutex() noexcept { return consume_mutex_; }

  // ---- State -------------------------------------------------------------------------------
  bool dropped() const noexcept { return dropped_.load(); }
  void set_dropped() noexcept { dropped_.store(true); }
  bool locked() const noexcept { return locked_.load(); }
  void set_locked(bool locked);
  // Locked, and the lock was renewed within kLockMaxLive.
  bool lock_valid() const;
  Clock::time_point last_lock_time() const;
  Clock::time_point last_pull_time() const;
  void mark_pulled();
  // Drops every cached message (queue taken away).
  void clear();
  // RocketMQ's ProcessQueueInfo of this queue (all but commit_offset, which the offset store
  // knows); times as ms since the epoch. try_unlock_times is not counted (always 0).
  protocol::ProcessQueueInfo info() const;

 private:
  std::int64_t commit_offset_locked() const;

  // A cached message and, in concurrent consumption, when a listener started on it (kept in the
  // entry: no second map to insert into and erase from per consumed message).
  struct Cached {
    MessageExt message;
    Clock::time_point consume_started{};
  };

  mutable std::mutex mutex_;
  std::map<std::int64_t, Cached> messages_;
  std::map<std::int64_t, Cached> consuming_;  // orderly: taken, not yet committed
  std::size_t bytes_ = 0;                         // bodies of messages_ and consuming_
  std::int64_t max_offset_ = -1;                  // largest offset ever put
  bool consuming_active_ = false;                 // orderly: a consumer runs or is dispatched
  Clock::time_point last_lock_time_{};
  Clock::time_point last_pull_time_ = Clock::now();
  Clock::time_point last_consume_time_ = Clock::now();
  std::atomic<bool> dropped_{false};
  std::atomic<bool> locked_{false};
  std::timed_mutex consume_mutex_;
};

}  // namespace mqkit::client
