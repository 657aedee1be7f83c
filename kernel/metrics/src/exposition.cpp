#include "mqkit/metrics/exposition.hpp"

#include <charconv>
#include <cmath>

namespace mqkit::metrics {

namespace {

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kGauge:
      break;
  }
  return "gauge";
}

void append_escaped(std::string& out, std::string_view text, bool quotes) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void append_label(std::string& out, bool& first, std::string_view name, std::string_view value) {
  out += first ? '{' : ',';
  first = false;
  out += name;
  out += "=\"";
  append_escaped(out, value, true);
  out += '"';
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  append_escaped(out, value, true);
  return out;
}

std::string escape_help(std::string_view help) {
  std::string out;
  append_escaped(out, help, false);
  return out;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : "NaN";
}

ExpositionWriter::ExpositionWriter(std::initializer_list<Label> common) {
  for (const Label& label : common) common_.emplace_back(label.name, label.value);
}

void ExpositionWriter::family(std::string_view name, MetricType type, std::string_view help) {
  family_ = name;
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  append_escaped(out_, help, false);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type_name(type);
  out_ += '\n';
}

void ExpositionWriter::sample_line(std::string_view suffix, std::initializer_list<Label> labels, const Label* extra,
                                   std::string_view value) {
  out_ += family_;
  out_ += suffix;
  bool first = true;
  for (const auto& [name, text] : common_) append_label(out_, first, name, text);
  for (const Label& label : labels) append_label(out_, first, label.name, label.value);
  if (extra != nullptr) append_label(out_, first, extra->name, extra->value);
  if (!first) out_ += '}';
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

void ExpositionWriter::sample(std::initializer_list<Label> labels, std::int64_t value) {
  sample_line("", labels, nullptr, std::to_string(value));
}

void ExpositionWriter::sample(std::initializer_list<Label> labels, double value) {
  sample_line("", labels, nullptr, format_value(value));
}

void ExpositionWriter::histogram(std::initializer_list<Label> labels, const HistogramSnapshot& histogram) {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < histogram.buckets.size(); ++i) {
    cumulative += histogram.buckets[i];
    const std::string bound = i < histogram.upper_bounds.size() ? std::to_string(histogram.upper_bounds[i]) : "+Inf";
    const Label le{"le", bound};
    sample_line("_bucket", labels, &le, std::to_string(cumulative));
  }
  sample_line("_sum", labels, nullptr, std::to_string(histogram.sum));
  // The +Inf bucket and the count are one number, so they never disagree.
  sample_line("_count", labels, nullptr, std::to_string(cumulative));
}

}  // namespace mqkit::metrics
