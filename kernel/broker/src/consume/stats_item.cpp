#include "mqkit/broker/stats_item.hpp"

#include <algorithm>

namespace mqkit::broker {

void StatsItem::sample(StatsWindow window, std::int64_t now_ms) {
  const auto w = static_cast<std::size_t>(window);
  const Snapshot now{now_ms, times_.load(std::memory_order_relaxed), value_.load(std::memory_order_relaxed)};
  std::lock_guard lock(mutex_);
  Ring& ring = rings_[w];
  if (ring.size == 0) ring.snapshots[ring.size++] = {now_ms - kStatsWindowPeriodMs[w], 0, 0};
  if (ring.size == kCapacity[w]) {
    std::shift_left(ring.snapshots.begin(), ring.snapshots.begin() + static_cast<std::ptrdiff_t>(ring.size), 1);
    --ring.size;
  }
  ring.snapshots[ring.size++] = now;
}

StatsSnapshot StatsItem::computed(const Ring& ring) {
  StatsSnapshot result;
  if (ring.size == 0) return result;
  const Snapshot& first = ring.snapshots[0];
  const Snapshot& last = ring.snapshots[ring.size - 1];
  result.sum = last.value - first.value;
  const std::int64_t elapsed = last.time_ms - first.time_ms;
  if (elapsed > 0) result.tps = static_cast<double>(result.sum) * 1000.0 / static_cast<double>(elapsed);
  const std::int64_t calls = last.times - first.times;
  if (calls > 0) result.avgpt = static_cast<double>(result.sum) / static_cast<double>(calls);
  return result;
}

StatsWindows StatsItem::windows() const {
  std::lock_guard lock(mutex_);
  return {computed(rings_[0]), computed(rings_[1]), computed(rings_[2])};
}

}  // namespace mqkit::broker
