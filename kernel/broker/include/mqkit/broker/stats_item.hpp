// StatsItem: one counter of RocketMQ's BrokerStatsManager (messages stored for a topic, pulled by
// a group, ...) with the three windows its VIEW_BROKER_STATS_DATA answers: the last minute, hour
// and day. Operators read them through mqadmin statsAll and consumerProgress (consumeTps).
//
// A window keeps snapshots (time, times, value) taken every `period`, as RocketMQ's StatsItem
// does: its sum is the value now minus the oldest snapshot's, its tps that sum over the time
// between them, its avgpt (average per call) that sum over the calls between them. An item's
// first sample, in any window, starts all three with a zero snapshot dated one period earlier
// and the current one, so what was counted before shows up at once instead of after a period.
//
// Unlike RocketMQ's, a window ends now, not at its newest snapshot, and an item's hour and day
// windows start with its first minute sample, not at the next hourly tick: RocketMQ's day window
// lags by up to an hour and ignores a new topic for up to an hour, so its statsAll "24 hour" count
// misses what came after the last tick. The span is the kept snapshots' plus the time since the
// newest: up to 70 s for the minute, 70 min for the hour, 25 h for the day.
//
// add() is two relaxed atomic adds (any thread); sample() and windows() lock the item's own
// mutex, taken by the broker's periodic-task thread and by admin requests, never by a send or pull.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "mqkit/protocol/broker_stats_data.hpp"

namespace mqkit::broker {

// A window's figures and the three windows are the body types of VIEW_BROKER_STATS_DATA.
using StatsSnapshot = protocol::BrokerStatsItem;
using StatsWindows = protocol::BrokerStatsData;

// The three windows: how often each is sampled and how many snapshots it keeps (RocketMQ's 10 s
// × 7, 10 min × 7 and 1 h × 25).
enum class StatsWindow : std::size_t { kMinute = 0, kHour = 1, kDay = 2 };
inline constexpr std::int64_t kStatsWindowPeriodMs[] = {10'000, 600'000, 3'600'000};

class StatsItem {
 public:
  void add(std::int64_t value, std::int64_t times) noexcept {
    value_.fetch_add(value, std::memory_order_relaxed);
    times_.fetch_add(times, std::memory_order_relaxed);
  }
  std::int64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

  void sample(StatsWindow window, std::int64_t now_ms);
  // The windows as of `now_ms` (not before the newest sample).
  StatsWindows windows(std::int64_t now_ms) const;

 private:
  struct Snapshot {
    std::int64_t time_ms = 0;
    std::int64_t times = 0;
    std::int64_t value = 0;
  };
  // The newest `kCapacity[w]` snapshots of window w, oldest first, in a fixed array: an item costs
  // the same from its first sample on, however long the broker runs.
  static constexpr std::size_t kCapacity[] = {7, 7, 25};
  struct Ring {
    std::array<Snapshot, 25> snapshots;
    std::size_t size = 0;
  };
  static StatsSnapshot computed(const Ring& ring, const Snapshot& now);

  std::atomic<std::int64_t> value_{0};
  std::atomic<std::int64_t> times_{0};
  mutable std::mutex mutex_;
  std::array<Ring, 3> rings_;
};

}  // namespace mqkit::broker
