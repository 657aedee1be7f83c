#include "mqkit/broker/broker_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace mqkit::broker {

void BrokerStats::count_put(std::string_view topic, std::int64_t messages, std::int64_t bytes) {
  TransferItems& items = topic_puts_.at({topic});
  items.nums.add(messages, 1);
  items.size.add(bytes, 1);
  broker_put_.add(messages, 0);  // RocketMQ counts no calls here: its avgpt reads 0
  broker_put_bytes_.fetch_add(bytes, std::memory_order_relaxed);
}

void BrokerStats::count_get(std::string_view topic, std::string_view group, std::int64_t messages,
                            std::int64_t bytes) {
  TransferItems& items = group_gets_.at({topic, group});
  items.nums.add(messages, 1);
  items.size.add(bytes, 1);
  broker_get_.add(messages, 0);
}

void BrokerStats::count_send_back(std::string_view topic, std::string_view group) {
  send_backs_.at({topic, group}).add(1, 1);
}

template <typename Fn>
void BrokerStats::for_each_item(Fn&& fn) {
  fn(broker_put_);
  fn(broker_get_);
  const auto both = [&fn](const auto& /*labels*/, TransferItems& items) {
    fn(items.nums);
    fn(items.size);
  };
  topic_puts_.for_each(both);
  group_gets_.for_each(both);
  send_backs_.for_each([&fn](const auto& /*labels*/, StatsItem& item) { fn(item); });
}

void BrokerStats::sample(std::int64_t now_ms, std::int64_t local_day) {
  for (const StatsWindow window : {StatsWindow::kMinute, StatsWindow::kHour, StatsWindow::kDay}) {
    std::int64_t& due = next_window_sample_ms_[static_cast<std::size_t>(window)];
    if (now_ms < due) continue;
    for_each_item([&](StatsItem& item) { item.sample(window, now_ms); });
    due = now_ms + kStatsWindowPeriodMs[static_cast<std::size_t>(window)];
  }
  const std::int64_t put = broker_put_.value();
  const std::int64_t get = broker_get_.value();
  std::lock_guard lock(mutex_);
  if (day_ >= 0 && local_day > day_) {
    put_yesterday_morning_ = put_today_morning_;
    get_yesterday_morning_ = get_today_morning_;
    put_today_morning_ = put;
    get_today_morning_ = get;
  }
  if (local_day > day_) day_ = local_day;
  samples_.push_back({now_ms, put, get});
  while (samples_.size() > kWindows[std::size(kWindows) - 1] + 1) samples_.pop_front();
}

std::string BrokerStats::tps(std::int64_t Sample::*counter) const {
  std::string text;
  for (const std::size_t window : kWindows) {
    if (!text.empty() || window != kWindows[0]) text += ' ';
    if (samples_.size() <= window) continue;
    const Sample& last = samples_.back();
    const Sample& first = samples_[samples_.size() - 1 - window];
    const std::int64_t elapsed = last.time_ms - first.time_ms;
    const double per_second = elapsed > 0 ? static_cast<double>(last.*counter - first.*counter) * 1000.0 / elapsed : 0.0;
    char number[32];
    std::snprintf(number, sizeof number, "%.2f", per_second);
    text += number;
  }
  return text;
}

void BrokerStats::add_to(protocol::KvTable& info) const {
  auto& t = info.table;
  t["msgPutTotalTodayNow"] = std::to_string(broker_put_.value());
  t["msgGetTotalTodayNow"] = std::to_string(broker_get_.value());
  std::lock_guard lock(mutex_);
  t["msgPutTotalTodayMorning"] = std::to_string(put_today_morning_);
  t["msgPutTotalYesterdayMorning"] = std::to_string(put_yesterday_morning_);
  t["msgGetTotalTodayMorning"] = std::to_string(get_today_morning_);
  t["msgGetTotalYesterdayMorning"] = std::to_string(get_yesterday_morning_);
  t["putTps"] = tps(&Sample::put);
  // RocketMQ 4's spelling, and RocketMQ 5's (which its exportMetrics reads).
  t["getTransferedTps"] = tps(&Sample::get);
  t["getTransferredTps"] = t["getTransferedTps"];
  // As RocketMQ's store: none stored reads as one, so the average is the total.
  const std::int64_t times = std::max<std::int64_t>(broker_put_.value(), 1);
  const std::int64_t bytes = broker_put_bytes_.load(std::memory_order_relaxed);
  t["putMessageTimesTotal"] = std::to_string(times);
  t["putMessageSizeTotal"] = std::to_string(bytes);
  char average[32];
  std::snprintf(average, sizeof average, "%.1f", static_cast<double>(bytes) / static_cast<double>(times));
  t["putMessageAverageSize"] = average;
}

std::optional<StatsWindows> BrokerStats::view(std::string_view name, std::string_view key,
                                              std::string_view cluster_name, std::int64_t now_ms) const {
  if (name == kBrokerPutNums || name == kBrokerGetNums) {
    if (key != cluster_name) return std::nullopt;
    return (name == kBrokerPutNums ? broker_put_ : broker_get_).windows(now_ms);
  }
  if (name == kTopicPutNums || name == kTopicPutSize) {
    const TransferItems* items = topic_puts_.find({key});
    if (!items) return std::nullopt;
    return (name == kTopicPutNums ? items->nums : items->size).windows(now_ms);
  }
  const auto at = key.find('@');
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view topic = key.substr(0, at);
  const std::string_view group = key.substr(at + 1);
  if (name == kGroupGetNums || name == kGroupGetSize) {
    const TransferItems* items = group_gets_.find({topic, group});
    if (!items) return std::nullopt;
    return (name == kGroupGetNums ? items->nums : items->size).windows(now_ms);
  }
  if (name == kSendBackPutNums) {
    const StatsItem* item = send_backs_.find({topic, group});
    if (!item) return std::nullopt;
    return item->windows(now_ms);
  }
  return std::nullopt;
}

double BrokerStats::group_get_tps(std::string_view topic, std::string_view group, std::int64_t now_ms) const {
  const TransferItems* items = group_gets_.find({topic, group});
  return items ? items->nums.windows(now_ms).stats_minute.tps : 0.0;
}

std::int64_t BrokerStats::local_day(std::int64_t epoch_ms) {
  const std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  const std::int64_t local_seconds = static_cast<std::int64_t>(seconds) + local.tm_gmtoff;
  return local_seconds >= 0 ? local_seconds / 86'400 : (local_seconds - 86'399) / 86'400;
}

}  // namespace mqkit::broker
