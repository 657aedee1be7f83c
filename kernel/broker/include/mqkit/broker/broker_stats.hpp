// BrokerStats: messages stored and pulled, for GET_BROKER_RUNTIME_INFO with RocketMQ's key
// names (its BrokerStats and StoreStatsService):
//   msgPutTotalTodayNow / msgGetTotalTodayNow: messages stored / pulled since the broker started
//     (RocketMQ's name; "today" is TodayNow minus TodayMorning);
//   msgPutTotalTodayMorning / ...YesterdayMorning: those totals at the last local midnight and
//     the one before (0 until the broker has seen a midnight);
//   putTps / getTransferedTps: messages per second over the last 10 s, 60 s and 600 s, space
//     separated, a window left empty until the broker has run that long.
//
// Counting is two relaxed atomic adds on the send and pull paths (any thread); sample() runs
// once a second on the broker's periodic-task thread; figures() on any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

class BrokerStats {
 public:
  void count_put(std::int64_t messages) noexcept { put_.fetch_add(messages, std::memory_order_relaxed); }
  void count_get(std::int64_t messages) noexcept { get_.fetch_add(messages, std::memory_order_relaxed); }

  // Records a TPS sample at `now_ms`; the first sample of a new `local_day` rolls the morning
  // totals (RocketMQ's BrokerStats.record at midnight).
  void sample(std::int64_t now_ms, std::int64_t local_day);

  // Adds the keys above to a runtime info table.
  void add_to(protocol::KvTable& info) const;

  // Days since the epoch in local time (where midnight is) of a wall-clock time.
  static std::int64_t local_day(std::int64_t epoch_ms);

 private:
  struct Sample {
    std::int64_t time_ms;
    std::int64_t put;
    std::int64_t get;
  };
  static constexpr std::size_t kWindows[] = {10, 60, 600};
  std::string tps(std::int64_t Sample::*counter) const;  // caller holds mutex_

  std::atomic<std::int64_t> put_{0};
  std::atomic<std::int64_t> get_{0};
  mutable std::mutex mutex_;
  std::deque<Sample> samples_;  // one a second, the newest last, at most 601
  std::int64_t day_ = -1;       // local day of the last sample; -1 before the first
  std::int64_t put_today_morning_ = 0;
  std::int64_t put_yesterday_morning_ = 0;
  std::int64_t get_today_morning_ = 0;
  std::int64_t get_yesterday_morning_ = 0;
};

}  // namespace mqkit::broker
