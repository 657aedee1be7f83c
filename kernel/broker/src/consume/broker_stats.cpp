#include "mqkit/broker/broker_stats.hpp"

#include <cstdio>
#include <ctime>

namespace mqkit::broker {

void BrokerStats::sample(std::int64_t now_ms, std::int64_t local_day) {
  const std::int64_t put = put_.load(std::memory_order_relaxed);
  const std::int64_t get = get_.load(std::memory_order_relaxed);
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
  t["msgPutTotalTodayNow"] = std::to_string(put_.load(std::memory_order_relaxed));
  t["msgGetTotalTodayNow"] = std::to_string(get_.load(std::memory_order_relaxed));
  std::lock_guard lock(mutex_);
  t["msgPutTotalTodayMorning"] = std::to_string(put_today_morning_);
  t["msgPutTotalYesterdayMorning"] = std::to_string(put_yesterday_morning_);
  t["msgGetTotalTodayMorning"] = std::to_string(get_today_morning_);
  t["msgGetTotalYesterdayMorning"] = std::to_string(get_yesterday_morning_);
  t["putTps"] = tps(&Sample::put);
  t["getTransferedTps"] = tps(&Sample::get);
}

std::int64_t BrokerStats::local_day(std::int64_t epoch_ms) {
  const std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  const std::int64_t local_seconds = static_cast<std::int64_t>(seconds) + local.tm_gmtoff;
  return local_seconds >= 0 ? local_seconds / 86'400 : (local_seconds - 86'399) / 86'400;
}

}  // namespace mqkit::broker
