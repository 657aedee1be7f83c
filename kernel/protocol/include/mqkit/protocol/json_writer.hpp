// The few helpers every JSON body encoder shares (protocol bodies, subscription groups, the
// broker's admin bodies): a RapidJSON writer into a string, keys and strings from string_views.
// Include only where RapidJSON's headers are on the include path.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace mqkit::protocol::json {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

inline void key(Writer& w, std::string_view k) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
inline void str(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

// Runs `body` on a fresh writer and returns what it wrote.
template <typename F>
std::string write_json(F&& body) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  body(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mqkit::protocol::json
