// LatencyHistogram: latencies in microseconds, log-bucketed (Boost.Histogram with a log axis),
// so memory is fixed whatever the number of samples and every percentile is within about 1% of
// the exact value (0 and the maximum are exact). Samples above an hour land in the overflow bin
// and count at the recorded maximum.
//
// A value type; not synchronized (recorders lock around it, or keep one per thread and merge).
#pragma once

#include <boost/histogram.hpp>

#include <cstdint>
#include <vector>

namespace mqkit::bench {

class LatencyHistogram {
 public:
  static constexpr double kMaxMicros = 3'600'000'000.0;  // one hour
  static constexpr unsigned kBins = 2048;                 // ≈1.1% wide each over 1 µs .. 1 h

  LatencyHistogram();

  void record(std::uint64_t micros);
  void merge(const LatencyHistogram& other);
  void reset();

  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t min() const noexcept { return count_ == 0 ? 0 : min_; }
  std::uint64_t max() const noexcept { return max_; }
  double mean() const noexcept { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_); }
  // The smallest recorded value v such that at least `percent`% of the samples are ≤ v, as the
  // upper edge of its bucket (never above max()). 0 when empty.
  std::uint64_t percentile(double percent) const;

 private:
  using Axis = boost::histogram::axis::regular<double, boost::histogram::axis::transform::log>;
  using Histogram = boost::histogram::histogram<std::tuple<Axis>, boost::histogram::dense_storage<std::uint64_t>>;

  Histogram histogram_;
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
};

}  // namespace mqkit::bench
