#include "latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace mqkit::bench {

namespace bh = boost::histogram;

LatencyHistogram::LatencyHistogram()
    : histogram_(bh::make_histogram_with(bh::dense_storage<std::uint64_t>(), Axis(kBins, 1.0, kMaxMicros))) {}

void LatencyHistogram::record(std::uint64_t micros) {
  // 0 µs falls in the underflow bin (the log axis starts at 1 µs).
  histogram_(static_cast<double>(micros));
  min_ = count_ == 0 ? micros : std::min(min_, micros);
  max_ = std::max(max_, micros);
  sum_ += micros;
  ++count_;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  histogram_ += other.histogram_;
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  count_ += other.count_;
}

void LatencyHistogram::reset() {
  histogram_.reset();
  count_ = sum_ = min_ = max_ = 0;
}

std::uint64_t LatencyHistogram::percentile(double percent) const {
  if (count_ == 0) return 0;
  const double clamped = std::clamp(percent, 0.0, 100.0);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(clamped / 100.0 * count_)));
  std::uint64_t seen = 0;
  for (auto&& bin : bh::indexed(histogram_, bh::coverage::all)) {
    seen += static_cast<std::uint64_t>(*bin);
    if (seen < rank) continue;
    const int index = bin.index();
    if (index < 0) return min_;                          // underflow: only zeros live there
    if (index >= static_cast<int>(kBins)) return max_;   // overflow
    const double upper = bin.bin().upper();
    return std::clamp(static_cast<std::uint64_t>(std::floor(upper)), min_, max_);
  }
  return max_;
}

}  // namespace mqkit::bench
