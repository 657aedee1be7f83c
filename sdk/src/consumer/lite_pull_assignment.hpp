// LitePullAssignment: the lite pull consumer's queues and what it pulled for them but poll() has
// not returned yet (RocketMQ's AssignedMessageQueue plus the consume-request cache).
//
// Per queue: where the next pull starts, where poll() got to (the offset commit() writes),
// whether it is paused, and an epoch. Every pull loop carries the epoch it was started with; seek,
// resume and removal start a new epoch, so answers to pulls started before are recognized as
// stale and dropped, and the loop that sent them ends.
//
// Pulled batches wait in arrival order; take() hands out the oldest batch of a queue that is not
// paused, so one queue's messages come out in queue order. Paused queues keep their batches.
//
// Threads: thread-safe. Pull loops call position/accept, the application thread take/seek/
// pause/resume, the rebalance thread add/remove; take() waits on a condition variable, which
// accept() and close() signal.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/process_queue.hpp"

namespace mqkit::client {

class LitePullAssignment {
 public:
  // What a pull loop of epoch `epoch` needs to pull its queue.
  struct Position {
    std::shared_ptr<ProcessQueue> process_queue;
    std::int64_t pull_offset = -1;  // -1: not known yet (the loop computes where to start)
    bool paused = false;
  };
  // One pull's messages, as poll() returns them.
  struct Batch {
    MessageQueue queue;
    std::vector<MessageExt> messages;
    std::int64_t next_offset = 0;  // the offset after this batch
  };

  // A queue newly owned, pulled from `pull_offset` (-1: unknown yet). Returns its first epoch.
  // A queue owned already keeps its state and epoch.
  std::uint64_t add(const MessageQueue& queue, std::shared_ptr<ProcessQueue> process_queue,
                    std::int64_t pull_offset);
  // Forgets a queue and its waiting batches; its poll position (-1 when nothing was polled), or
  // nullopt when it was not owned.
  std::optional<std::int64_t> remove(const MessageQueue& queue);
  bool contains(const MessageQueue& queue) const;
  std::set<MessageQueue> queues() const;
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> process_queues() const;
  // The current epoch of an owned queue.
  std::optional<std::uint64_t> epoch(const MessageQueue& queue) const;

  // For the loop of `epoch`; nullopt when the loop is stale (or the queue gone).
  std::optional<Position> position(const MessageQueue& queue, std::uint64_t epoch) const;
  // Sets the start of a queue whose start was unknown; false when the loop is stale.
  bool set_pull_offset(const MessageQueue& queue, std::uint64_t epoch, std::int64_t offset);
  // The answer to a pull of `epoch` sent at `pulled_at`: the next pull starts at `next_offset`
  // and `messages` (possibly none) wait for poll(). With no messages and nothing waiting, the poll
  // position moves to `next_offset` too (nothing before it is left to return). False when stale.
  bool accept(const MessageQueue& queue, std::uint64_t epoch, std::int64_t pulled_at, std::int64_t next_offset,
              std::vector<MessageExt> messages);

  // Waits until `deadline` for a batch of an unpaused queue; moves that queue's poll position
  // past it. nullopt on timeout or once closed.
  std::optional<Batch> take(std::chrono::steady_clock::time_point deadline);
  // Both positions of an owned queue move to `offset`; its waiting batches are dropped. Returns
  // the new epoch (nullopt when not owned).
  std::optional<std::uint64_t> seek(const MessageQueue& queue, std::int64_t offset);

  // Paused queues are remembered whether owned or not (a queue may be given later). resume()
  // returns the new epochs of the owned queues it resumed: their loops must be started again.
  void pause(const std::vector<MessageQueue>& queues);
  std::map<MessageQueue, std::uint64_t> resume(const std::vector<MessageQueue>& queues);
  bool paused(const MessageQueue& queue) const;

  // Poll positions of owned queues that have one.
  std::map<MessageQueue, std::int64_t> poll_positions() const;
  // Messages waiting for poll(), all queues.
  std::size_t waiting_messages() const;

  // take() returns at once from now on (shutdown).
  void close();

 private:
  struct QueueState {
    std::shared_ptr<ProcessQueue> process_queue;
    std::int64_t pull_offset = -1;
    std::int64_t poll_position = -1;
    std::uint64_t epoch = 0;
    std::size_t waiting_batches = 0;
  };
  QueueState* current(const MessageQueue& queue, std::uint64_t epoch);
  // Drops the waiting batches of a queue.
  void discard_batches(const MessageQueue& queue, QueueState& state);

  mutable std::mutex mutex_;
  std::condition_variable batch_ready_;
  std::map<MessageQueue, QueueState> queues_;
  std::set<MessageQueue> paused_;
  std::deque<Batch> batches_;
  std::size_t waiting_messages_ = 0;
  std::uint64_t next_epoch_ = 1;
  bool closed_ = false;
};

}  // namespace mqkit::client
