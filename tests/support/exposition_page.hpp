// Reading a Prometheus /metrics page in tests: one GET over HTTP/1.0 to 127.0.0.1, and the
// value of the samples of a metric whose labels include given ones.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::testing {

struct HttpAnswer {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;
};

// GET `path` from 127.0.0.1:port (5 s at most).
plugin::v1::Result<HttpAnswer> http_get(std::uint16_t port, std::string_view path = "/metrics");

using LabelPairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// The value of the first sample of `name` (the whole sample name: "x_total", "x_bucket") whose
// labels include every one of `labels`; nullopt when there is none.
std::optional<double> sample_value(std::string_view page, std::string_view name, LabelPairs labels = {});
// The sum of every such sample (0 when there is none).
double sum_of_samples(std::string_view page, std::string_view name, LabelPairs labels = {});

}  // namespace mqkit::testing
