#include "latency_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace mqkit::bench {
namespace {

// The exact percentile by sorting, to compare the histogram against.
std::uint64_t exact(std::vector<std::uint64_t> values, double percent) {
  std::sort(values.begin(), values.end());
  const auto rank = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(percent / 100.0 * values.size())));
  return values[rank - 1];
}

TEST(LatencyHistogramTest, EmptyReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
}

TEST(LatencyHistogramTest, OneValueIsExact) {
  LatencyHistogram h;
  h.record(1234);
  for (double p : {0.0, 50.0, 99.0, 99.9, 100.0}) EXPECT_EQ(h.percentile(p), 1234u) << p;
  EXPECT_EQ(h.min(), 1234u);
  EXPECT_EQ(h.max(), 1234u);
}

TEST(LatencyHistogramTest, PercentilesAreWithinOnePercentOfExact) {
  std::mt19937_64 random(42);
  std::lognormal_distribution<double> latency(5.0, 1.5);  // a long tail, median ≈ 150 µs
  LatencyHistogram h;
  std::vector<std::uint64_t> values;
  for (int i = 0; i < 200'000; ++i) {
    const auto v = static_cast<std::uint64_t>(latency(random)) + 1;
    values.push_back(v);
    h.record(v);
  }
  for (double p : {1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
    const double want = static_cast<double>(exact(values, p));
    const double got = static_cast<double>(h.percentile(p));
    EXPECT_NEAR(got, want, want * 0.012 + 1.0) << "p" << p;
    EXPECT_GE(got + 1.0, want) << "p" << p << " reports the bucket's upper edge";
  }
  EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(h.percentile(100), h.max());
  EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
}

TEST(LatencyHistogramTest, ZerosAndHugeValuesLandInTheEdgeBins) {
  LatencyHistogram h;
  for (int i = 0; i < 98; ++i) h.record(0);
  h.record(5);
  h.record(10'000'000'000ULL);  // beyond the axis (≈2.8 h)
  EXPECT_EQ(h.percentile(50), 0u);
  EXPECT_EQ(h.percentile(98), 0u);
  EXPECT_EQ(h.percentile(99), 5u);
  EXPECT_EQ(h.percentile(100), 10'000'000'000ULL);
  EXPECT_EQ(h.count(), 100u);
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (std::uint64_t v = 1; v <= 1000; ++v) {
    (v % 3 == 0 ? a : b).record(v * 7);
    all.record(v * 7);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (double p : {10.0, 50.0, 99.0, 99.9}) EXPECT_EQ(a.percentile(p), all.percentile(p)) << p;
}

TEST(LatencyHistogramTest, ResetForgetsEverything) {
  LatencyHistogram h;
  h.record(100);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  h.record(7);
  EXPECT_EQ(h.min(), 7u);
  EXPECT_EQ(h.percentile(50), 7u);
}

TEST(LatencyHistogramTest, MeanIsExact) {
  LatencyHistogram h;
  h.record(1);
  h.record(2);
  h.record(6);
  EXPECT_DOUBLE_EQ(h.mean(), 3.0);
}

}  // namespace
}  // namespace mqkit::bench
