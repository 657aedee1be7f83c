// The machine-readable summary every benchmark driver prints as its last stdout line:
//   RESULT {"system":"mqkit","variant":"async","size":1024,"n":200000,"prod_msgs_s":...,...}
// bench/compare.sh reads these lines from mqbench and from the Redis baseline alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "latency_histogram.hpp"

namespace mqkit::bench {

class ResultLine {
 public:
  ResultLine(std::string system, std::string variant, std::uint64_t size, std::uint64_t n);

  void add(std::string key, double value);
  void add(std::string key, std::uint64_t value);
  void add(std::string key, std::string value);
  // <prefix>_p50_us, _p99_us, _p999_us, _max_us (nothing when the histogram is empty).
  void add_latency(const std::string& prefix, const LatencyHistogram& histogram);

  // "RESULT {...}" without a newline.
  std::string to_string() const;

 private:
  struct Field {
    std::string key;
    enum class Kind { kNumber, kInteger, kString } kind;
    double number = 0;
    std::uint64_t integer = 0;
    std::string text{};
  };
  std::vector<Field> fields_;
};

}  // namespace mqkit::bench
