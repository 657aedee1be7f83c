// ExpositionWriter: Prometheus' text exposition format 0.0.4, which scrapers ask for with
// "Accept: text/plain;version=0.0.4" and which every Prometheus-compatible collector reads.
//
// A page is a sequence of metric families; each starts with "# HELP" and "# TYPE" lines and
// lists its samples, one per label set:
//
//   # HELP rocketmq_messages_in_total Messages stored for producers
//   # TYPE rocketmq_messages_in_total counter
//   rocketmq_messages_in_total{cluster="c",topic="T"} 12
//
// A histogram's samples are its cumulative buckets (name_bucket{le="..."}, ending with
// le="+Inf"), name_sum and name_count. Label values and help text are escaped here; metric and
// label names are the caller's constants and must match [a-zA-Z_:][a-zA-Z0-9_:]*.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mqkit::metrics {

// What the HTTP answer's Content-Type says about the page.
inline constexpr std::string_view kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType : std::uint8_t { kCounter, kGauge, kHistogram };

struct Label {
  std::string_view name;
  std::string_view value;
};

// A histogram as read at one moment: the count per bucket (not cumulative; bucket i holds the
// values in (upper_bounds[i-1], upper_bounds[i]], the last one those above every bound) and the
// sum of every value observed.
struct HistogramSnapshot {
  std::span<const std::int64_t> upper_bounds;  // ascending
  std::vector<std::uint64_t> buckets;          // upper_bounds.size() + 1 counts
  std::int64_t sum = 0;
};

class ExpositionWriter {
 public:
  // `common` labels come first in every sample (a server's cluster and node, say).
  explicit ExpositionWriter(std::initializer_list<Label> common = {});

  // Starts a family; the samples that follow belong to it. A counter's name ends in "_total".
  void family(std::string_view name, MetricType type, std::string_view help);
  // One sample of the current counter or gauge family.
  void sample(std::initializer_list<Label> labels, std::int64_t value);
  void sample(std::initializer_list<Label> labels, double value);
  // The samples of one label set of the current histogram family.
  void histogram(std::initializer_list<Label> labels, const HistogramSnapshot& histogram);

  const std::string& text() const noexcept { return out_; }
  std::string take() noexcept { return std::move(out_); }

 private:
  void sample_line(std::string_view suffix, std::initializer_list<Label> labels, const Label* extra,
                   std::string_view value);

  std::vector<std::pair<std::string, std::string>> common_;
  std::string family_;
  std::string out_;
};

// A label value as it appears between the quotes: \ → \\, " → \", newline → \n.
std::string escape_label_value(std::string_view value);
// Help text as it appears after the name: \ → \\, newline → \n.
std::string escape_help(std::string_view help);
// A sample value: integers in full, +Inf / -Inf / NaN spelled as Prometheus does.
std::string format_value(double value);

}  // namespace mqkit::metrics
