// The counters and latency histograms the producer and consumer sides of a run share. Only
// messages sent after begin_measurement() count (warm-up traffic is still checked for loss and
// order by the ReceiveSink, but not timed); the live progress line takes the per-second deltas.
//
// Thread-safe: counters are atomics, each LatencyRecorder has its own lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "latency_histogram.hpp"

namespace mqkit::bench {

class LatencyRecorder {
 public:
  void record(std::uint64_t micros);
  void record_all(std::span<const std::uint64_t> micros);
  // The samples recorded since the previous call.
  LatencyHistogram take_interval();
  LatencyHistogram total() const;
  void reset();

 private:
  mutable std::mutex mutex_;
  LatencyHistogram interval_;
  LatencyHistogram total_;
};

struct MessageCounter {
  std::atomic<std::uint64_t> messages{0};
  std::atomic<std::uint64_t> bytes{0};
  void add(std::uint64_t count, std::uint64_t size_each) {
    messages.fetch_add(count, std::memory_order_relaxed);
    bytes.fetch_add(count * size_each, std::memory_order_relaxed);
  }
  void reset() {
    messages.store(0, std::memory_order_relaxed);
    bytes.store(0, std::memory_order_relaxed);
  }
};

// Why sends failed: the first few distinct error texts, each with how many sends it ended.
class SendErrorTexts {
 public:
  void note(std::string text, std::uint64_t count);
  std::vector<std::pair<std::string, std::uint64_t>> snapshot() const;
  void reset();

 private:
  static constexpr std::size_t kDistinct = 4;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::uint64_t>> texts_;
};

class BenchStats {
 public:
  // From now on (wall clock) messages count; everything recorded so far is dropped.
  void begin_measurement();
  bool measuring() const noexcept { return measure_start_ns_.load(std::memory_order_acquire) != kNotYet; }
  // Whether a message stamped `send_time_ns` belongs to the measurement.
  bool measured(std::uint64_t send_time_ns) const noexcept {
    return send_time_ns >= measure_start_ns_.load(std::memory_order_acquire);
  }
  std::uint64_t measure_start_ns() const noexcept { return measure_start_ns_.load(std::memory_order_acquire); }
  void note_receive(std::uint64_t wall_ns) noexcept { last_receive_ns.store(wall_ns, std::memory_order_relaxed); }
  void note_ack(std::uint64_t wall_ns) noexcept { last_ack_ns.store(wall_ns, std::memory_order_relaxed); }

  MessageCounter sent;      // acknowledged (one-way: handed to the transport)
  MessageCounter received;  // first receipts of measured messages
  std::atomic<std::uint64_t> send_errors{0};
  SendErrorTexts send_error_texts;
  std::atomic<std::uint64_t> last_receive_ns{0};
  std::atomic<std::uint64_t> last_ack_ns{0};  // of a measured message
  LatencyRecorder publish;  // send stamp (wall clock, just before the send call) → acknowledgement
  LatencyRecorder e2e;      // stamp → delivery to the consumer

 private:
  static constexpr std::uint64_t kNotYet = std::numeric_limits<std::uint64_t>::max();
  std::atomic<std::uint64_t> measure_start_ns_{kNotYet};
};

}  // namespace mqkit::bench
