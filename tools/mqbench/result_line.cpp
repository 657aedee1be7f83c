#include "result_line.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

namespace mqkit::bench {

ResultLine::ResultLine(std::string system, std::string variant, std::uint64_t size, std::uint64_t n) {
  add("system", std::move(system));
  add("variant", std::move(variant));
  add("size", size);
  add("n", n);
}

void ResultLine::add(std::string key, double value) {
  fields_.push_back(Field{std::move(key), Field::Kind::kNumber, value});
}

void ResultLine::add(std::string key, std::uint64_t value) {
  fields_.push_back(Field{std::move(key), Field::Kind::kInteger, 0, value});
}

void ResultLine::add(std::string key, std::string value) {
  fields_.push_back(Field{std::move(key), Field::Kind::kString, 0, 0, std::move(value)});
}

void ResultLine::add_latency(const std::string& prefix, const LatencyHistogram& histogram) {
  if (histogram.count() == 0) return;
  add(prefix + "_p50_us", histogram.percentile(50));
  add(prefix + "_p99_us", histogram.percentile(99));
  add(prefix + "_p999_us", histogram.percentile(99.9));
  add(prefix + "_max_us", histogram.max());
}

std::string ResultLine::to_string() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (const Field& field : fields_) {
    writer.Key(field.key.c_str(), static_cast<rapidjson::SizeType>(field.key.size()));
    switch (field.kind) {
      case Field::Kind::kNumber:
        // Two decimals are plenty for rates; JSON has no NaN/inf.
        writer.Double(std::isfinite(field.number) ? std::round(field.number * 100.0) / 100.0 : 0.0);
        break;
      case Field::Kind::kInteger:
        writer.Uint64(field.integer);
        break;
      case Field::Kind::kString:
        writer.String(field.text.c_str(), static_cast<rapidjson::SizeType>(field.text.size()));
        break;
    }
  }
  writer.EndObject();
  return std::string("RESULT ") + buffer.GetString();
}

}  // namespace mqkit::bench
