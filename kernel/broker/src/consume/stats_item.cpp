#include "mqkit/broker/stats_item.hpp"

#include <algorithm>

namespace mqkit::broker {

void StatsItem::sample(StatsWindow window, std::int64_t now_ms) {
  const auto w = static_cast<std::size_t>(window);
  const Snapshot now{now_ms, times_.load(std::memory_order_relaxed), value_.load(std::memory_order_relaxed)};
  std::lock_guard lock(mutex_);
  // An item's first sample, in whichever window, starts every window: an item created after the
  // hour's or the day's last tick still counts in them from then on.
  for (std::size_t r = 0; r < rings_.size(); ++r) {
    Ring& ring = rings_[r];
    if (ring.size > 0) continue;
    ring.snapshots[ring.size++] = {now_ms - kStatsWindowPeriodMs[r], 0, 0};
    if (r != w) ring.snapshots[ring.size++] = now;
  }
  Ring& ring = rings_[w];
  if (ring.size == kCapacity[w]) {
    std::shift_left(ring.snapshots.begin(), ring.snapshots.begin() + static_cast<std::ptrdiff_t>(ring.size), 1);
    --ring.size;
  }
  ring.snapshots[ring.size++] = now;
}

StatsSnapshot StatsItem::computed(const Ring& ring, const Snapshot& now) {
  StatsSnapshot result;
  if (ring.size == 0) return result;
  const Snapshot& first = ring.snapshots[0];
  result.sum = now.value - first.value;
  const std::int64_t elapsed = now.time_ms - first.time_ms;
  if (elapsed > 0) result.tps = static_cast<double>(result.sum) * 1000.0 / static_cast<double>(elapsed);
  const std::int64_t calls = now.times - first.times;
  if (calls > 0) result.avgpt = static_cast<double>(result.sum) / static_cast<double>(calls);
  return result;
}

StatsWindows StatsItem::windows(std::int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  const auto now_of = [&](const Ring& ring) {
    // Read under the lock, after the ring: never older than the newest snapshot.
    Snapshot now{now_ms, times_.load(std::memory_order_relaxed), value_.load(std::memory_order_relaxed)};
    if (ring.size > 0) now.time_ms = std::max(now.time_ms, ring.snapshots[ring.size - 1].time_ms);
    return now;
  };
  return {computed(rings_[0], now_of(rings_[0])), computed(rings_[1], now_of(rings_[1])),
          computed(rings_[2], now_of(rings_[2]))};
}

}  // namespace mqkit::broker
