// Counter, Gauge and Histogram: the values request threads update and the exporter reads.
//
// Updates are relaxed atomic adds: no ordering is needed between a counter and anything else,
// and a scrape that sees an add a moment late reports it on the next scrape. A histogram keeps
// no separate count: the scrape derives it from the buckets, so count and +Inf bucket agree.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>

#include "mqkit/metrics/exposition.hpp"

namespace mqkit::metrics {

class Counter {
 public:
  void add(std::int64_t amount) noexcept { value_.fetch_add(amount, std::memory_order_relaxed); }
  std::int64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

// The latest value one of several threads set (last writer wins).
class Gauge {
 public:
  void set(std::int64_t value) noexcept { value_.store(value, std::memory_order_relaxed); }
  std::int64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

// `Bounds` is a static array of ascending upper bounds (the le labels).
template <const auto& Bounds>
class Histogram {
 public:
  static constexpr std::size_t kBuckets = std::size(Bounds) + 1;  // the last one is +Inf

  // `times` observations of `value` (a batch of messages of one size).
  void observe(std::int64_t value, std::uint64_t times = 1) noexcept {
    // A handful of bounds: a linear scan is as quick as a binary search. A value equal to a
    // bound belongs to that bound's bucket (le is "less or equal").
    std::size_t bucket = 0;
    while (bucket < std::size(Bounds) && value > Bounds[bucket]) ++bucket;
    buckets_[bucket].fetch_add(times, std::memory_order_relaxed);
    sum_.fetch_add(value * static_cast<std::int64_t>(times), std::memory_order_relaxed);
  }

  HistogramSnapshot snapshot() const {
    HistogramSnapshot s{std::span<const std::int64_t>(Bounds), {}, sum_.load(std::memory_order_relaxed)};
    s.buckets.reserve(kBuckets);
    for (const auto& b : buckets_) s.buckets.push_back(b.load(std::memory_order_relaxed));
    return s;
  }

 private:
  std::array<std::atomic<std::uint64_t>, kBuckets> buckets_{};
  std::atomic<std::int64_t> sum_{0};
};

}  // namespace mqkit::metrics
