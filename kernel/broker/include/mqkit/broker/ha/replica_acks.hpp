// ReplicaAcks: a master's bookkeeping of what its slaves have acknowledged, and the sends that
// wait for it (SYNC_MASTER). RocketMQ 4.x rules (HAService, GroupTransferService):
// - the acknowledged offset is the highest any slave ever reported (it never goes back, even when
//   that slave leaves);
// - a slave is available when at least one is connected and the acknowledged offset is less than
//   `max_gap` bytes behind the send's end offset; otherwise the send gets SLAVE_NOT_AVAILABLE at
//   once;
// - an available send waits until the acknowledged offset reaches its end offset, or gets
//   FLUSH_SLAVE_TIMEOUT at its deadline.
// Thread-safe: connections report from the HA thread, sends wait from store callbacks. Callbacks
// run outside the lock, on the thread that completed them (an ack, expire(), or the caller).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace mqkit::broker {

enum class ReplicaOutcome : std::uint8_t { kOk, kSlaveNotAvailable, kFlushSlaveTimeout };

class ReplicaAcks {
 public:
  using Done = std::function<void(ReplicaOutcome)>;

  // The clock of deadlines (steady, milliseconds).
  static std::int64_t steady_ms();

  struct Slave {
    std::uint64_t id = 0;
    std::int64_t acked_offset = -1;  // -1 until its first report
  };

  void connected(std::uint64_t id);
  void disconnected(std::uint64_t id);
  // A report from slave `id`: completes every waiting send the new offset covers.
  void acked(std::uint64_t id, std::int64_t offset);

  std::int64_t acked_offset() const;
  std::size_t slave_count() const;
  std::vector<Slave> slaves() const;
  // RocketMQ's isSlaveOK for a send ending at `end_offset`.
  bool slave_ok(std::int64_t end_offset, std::int64_t max_gap) const;

  // Answers `done` once: kSlaveNotAvailable now when !slave_ok, kOk once a slave acknowledged
  // `end_offset` (now, if it already has), kFlushSlaveTimeout from expire() at `deadline_ms`.
  void wait(std::int64_t end_offset, std::int64_t max_gap, std::int64_t deadline_ms, Done done);
  // Times out the sends whose deadline passed; returns how many still wait.
  std::size_t expire(std::int64_t now_ms);
  // Answers every waiting send FLUSH_SLAVE_TIMEOUT (shutdown).
  void fail_all();

 private:
  struct Waiter {
    std::int64_t deadline_ms;
    Done done;
  };
  using Completed = std::vector<std::pair<Done, ReplicaOutcome>>;
  void take_covered(Completed& out);  // under mutex_
  static void run(Completed& completed);

  mutable std::mutex mutex_;
  std::vector<Slave> slaves_;
  std::int64_t acked_offset_ = 0;
  std::multimap<std::int64_t, Waiter> waiters_;  // by end offset
};

}  // namespace mqkit::broker
