// --json output: a RapidJSON writer into a string, printed as one line when done.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace mqkit::admin {

class JsonOut {
 public:
  rapidjson::Writer<rapidjson::StringBuffer>& w() { return writer_; }
  void key(std::string_view k) { writer_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
  void str(std::string_view v) { writer_.String(v.data(), static_cast<rapidjson::SizeType>(v.size())); }
  void field(std::string_view k, std::string_view v) { key(k), str(v); }
  void field(std::string_view k, const char* v) { key(k), str(v); }
  void field(std::string_view k, std::int64_t v) { key(k), writer_.Int64(v); }
  void field(std::string_view k, std::int32_t v) { key(k), writer_.Int(v); }
  void field(std::string_view k, bool v) { key(k), writer_.Bool(v); }
  void field(std::string_view k, double v) { key(k), writer_.Double(v); }
  void print(std::ostream& out) const { out << buffer_.GetString() << "\n"; }
  std::string text() const { return {buffer_.GetString(), buffer_.GetSize()}; }

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_{buffer_};
};

}  // namespace mqkit::admin
