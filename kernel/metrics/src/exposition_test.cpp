#include "mqkit/metrics/exposition.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mqkit::metrics {
namespace {

TEST(ExpositionWriter, WritesHelpTypeAndSamplesWithCommonLabelsFirst) {
  ExpositionWriter out({{"cluster", "c1"}, {"node_type", "broker"}});
  out.family("rocketmq_messages_in_total", MetricType::kCounter, "Messages stored");
  out.sample({{"topic", "T"}}, std::int64_t{12});
  out.family("rocketmq_broker_permission", MetricType::kGauge, "Permission bits");
  out.sample({}, std::int64_t{6});
  EXPECT_EQ(out.text(),
            "# HELP rocketmq_messages_in_total Messages stored\n"
            "# TYPE rocketmq_messages_in_total counter\n"
            "rocketmq_messages_in_total{cluster=\"c1\",node_type=\"broker\",topic=\"T\"} 12\n"
            "# HELP rocketmq_broker_permission Permission bits\n"
            "# TYPE rocketmq_broker_permission gauge\n"
            "rocketmq_broker_permission{cluster=\"c1\",node_type=\"broker\"} 6\n");
}

TEST(ExpositionWriter, SampleWithoutAnyLabelHasNoBraces) {
  ExpositionWriter out;
  out.family("up", MetricType::kGauge, "Up");
  out.sample({}, std::int64_t{1});
  EXPECT_EQ(out.text(), "# HELP up Up\n# TYPE up gauge\nup 1\n");
}

TEST(ExpositionWriter, EscapesLabelValuesAndHelp) {
  ExpositionWriter out;
  out.family("m", MetricType::kGauge, "a \\ back\"slash\nand newline");
  out.sample({{"topic", "a\"b\\c\nd"}}, std::int64_t{-3});
  EXPECT_EQ(out.text(),
            "# HELP m a \\\\ back\"slash\\nand newline\n"
            "# TYPE m gauge\n"
            "m{topic=\"a\\\"b\\\\c\\nd\"} -3\n");
  EXPECT_EQ(escape_label_value("plain"), "plain");
  EXPECT_EQ(escape_label_value("\"\\\n"), "\\\"\\\\\\n");
  // Help keeps quotes as they are.
  EXPECT_EQ(escape_help("say \"hi\"\\\n"), "say \"hi\"\\\\\\n");
}

TEST(ExpositionWriter, FormatsDoublesAsPrometheusSpellsThem) {
  EXPECT_EQ(format_value(1.5), "1.5");
  EXPECT_EQ(format_value(2.0), "2");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
  ExpositionWriter out;
  out.family("ratio", MetricType::kGauge, "r");
  out.sample({}, 0.25);
  EXPECT_EQ(out.text(), "# HELP ratio r\n# TYPE ratio gauge\nratio 0.25\n");
}

TEST(ExpositionWriter, HistogramHasCumulativeBucketsInfSumAndCount) {
  static constexpr std::int64_t kBounds[] = {1024, 4096};
  ExpositionWriter out({{"cluster", "c"}});
  out.family("rocketmq_message_size", MetricType::kHistogram, "Sizes");
  out.histogram({{"topic", "T"}}, HistogramSnapshot{kBounds, {2, 0, 3}, 20000});
  EXPECT_EQ(out.text(),
            "# HELP rocketmq_message_size Sizes\n"
            "# TYPE rocketmq_message_size histogram\n"
            "rocketmq_message_size_bucket{cluster=\"c\",topic=\"T\",le=\"1024\"} 2\n"
            "rocketmq_message_size_bucket{cluster=\"c\",topic=\"T\",le=\"4096\"} 2\n"
            "rocketmq_message_size_bucket{cluster=\"c\",topic=\"T\",le=\"+Inf\"} 5\n"
            "rocketmq_message_size_sum{cluster=\"c\",topic=\"T\"} 20000\n"
            "rocketmq_message_size_count{cluster=\"c\",topic=\"T\"} 5\n");
}

TEST(ExpositionWriter, TakeEmptiesTheWriter) {
  ExpositionWriter out;
  out.family("m", MetricType::kCounter, "h");
  const std::string page = out.take();
  EXPECT_EQ(page, "# HELP m h\n# TYPE m counter\n");
}

}  // namespace
}  // namespace mqkit::metrics
