// BrokerStats: messages stored and pulled, for GET_BROKER_RUNTIME_INFO with RocketMQ's key
// names (its BrokerStats and StoreStatsService):
//   msgPutTotalTodayNow / msgGetTotalTodayNow: messages stored / pulled since the broker started
//     (RocketMQ's name; "today" is TodayNow minus TodayMorning);
//   msgPutTotalTodayMorning / ...YesterdayMorning: those totals at the last local midnight and
//     the one before (0 until the broker has seen a midnight);
//   putTps / getTransferedTps: messages per second over the last 10 s, 60 s and 600 s, space
//     separated, a window left empty until the broker has run that long.
// and RocketMQ's BrokerStatsManager tables, which VIEW_BROKER_STATS_DATA reads by name and key
// (mqadmin statsAll, and the consumeTps of GET_CONSUME_STATS):
//   TOPIC_PUT_NUMS / TOPIC_PUT_SIZE   key topic:        messages / bytes stored;
//   GROUP_GET_NUMS / GROUP_GET_SIZE   key topic@group:  messages / bytes pulled;
//   SNDBCK_PUT_NUMS                   key topic@group:  messages a consumer sent back;
//   BROKER_PUT_NUMS / BROKER_GET_NUMS key cluster name: every message stored / pulled.
// A key exists once something was counted under it, as in RocketMQ. Unlike RocketMQ's, a
// deleted topic's or group's stats stay until the broker restarts (their windows empty out):
// counters are never freed under a concurrent send or pull.
//
// Counting is a sharded-map lookup and relaxed atomic adds on the send and pull paths (any
// thread); sample() runs once a second on the broker's periodic-task thread; figures on any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "mqkit/broker/stats_item.hpp"
#include "mqkit/metrics/labeled_cells.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

class BrokerStats {
 public:
  static constexpr std::string_view kTopicPutNums = "TOPIC_PUT_NUMS";
  static constexpr std::string_view kTopicPutSize = "TOPIC_PUT_SIZE";
  static constexpr std::string_view kGroupGetNums = "GROUP_GET_NUMS";
  static constexpr std::string_view kGroupGetSize = "GROUP_GET_SIZE";
  static constexpr std::string_view kSendBackPutNums = "SNDBCK_PUT_NUMS";
  static constexpr std::string_view kBrokerPutNums = "BROKER_PUT_NUMS";
  static constexpr std::string_view kBrokerGetNums = "BROKER_GET_NUMS";

  // One store call that stored `messages` messages of `topic` in `bytes` bytes.
  void count_put(std::string_view topic, std::int64_t messages, std::int64_t bytes);
  // One pull by `group` that returned `messages` messages of `topic` in `bytes` bytes.
  void count_get(std::string_view topic, std::string_view group, std::int64_t messages, std::int64_t bytes);
  // A message of `topic` that `group` sent back for redelivery.
  void count_send_back(std::string_view topic, std::string_view group);

  // Records a TPS sample at `now_ms`, and samples the stats windows whose period has passed; the
  // first sample of a new `local_day` rolls the morning totals (RocketMQ's BrokerStats.record at
  // midnight).
  void sample(std::int64_t now_ms, std::int64_t local_day);

  // Adds the runtime info keys above to a table.
  void add_to(protocol::KvTable& info) const;

  // The windows as of `now_ms` of stats `name` under `key` (BROKER_* are kept under `cluster_name`), or nothing
  // when that name is unknown or nothing was counted under the key.
  std::optional<StatsWindows> view(std::string_view name, std::string_view key, std::string_view cluster_name,
                                   std::int64_t now_ms) const;
  // Messages per second `group` pulled from `topic` over the last minute (RocketMQ's
  // tpsGroupGetNums, the consumeTps of GET_CONSUME_STATS).
  double group_get_tps(std::string_view topic, std::string_view group, std::int64_t now_ms) const;

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

  struct TransferItems {  // stored for a topic, or pulled by a group from a topic
    StatsItem nums;
    StatsItem size;
  };
  template <typename Fn>
  void for_each_item(Fn&& fn);

  StatsItem broker_put_;
  StatsItem broker_get_;
  std::atomic<std::int64_t> broker_put_bytes_{0};  // putMessageSizeTotal
  metrics::LabeledCells<TransferItems, 1> topic_puts_;
  metrics::LabeledCells<TransferItems, 2> group_gets_;
  metrics::LabeledCells<StatsItem, 2> send_backs_;
  std::int64_t next_window_sample_ms_[3] = {0, 0, 0};  // periodic-task thread only

  mutable std::mutex mutex_;
  std::deque<Sample> samples_;  // one a second, the newest last, at most 601
  std::int64_t day_ = -1;       // local day of the last sample; -1 before the first
  std::int64_t put_today_morning_ = 0;
  std::int64_t put_yesterday_morning_ = 0;
  std::int64_t get_today_morning_ = 0;
  std::int64_t get_yesterday_morning_ = 0;
};

}  // namespace mqkit::broker
