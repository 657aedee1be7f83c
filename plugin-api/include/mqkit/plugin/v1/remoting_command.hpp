// RemotingCommand: one RocketMQ remoting request or response, decoded. The transport plugin
// turns frames into commands and back (both JSON and ROCKETMQ header serializations); the
// kernel's request processors and the SDK work only with this struct.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/buffer.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

enum class SerializeType : std::uint8_t { kJson = 0, kRocketMq = 1 };

// RocketMQ LanguageCode ordinals (the binary header stores the ordinal, JSON the name).
enum class LanguageCode : std::uint8_t {
  kJava = 0, kCpp = 1, kDotnet = 2, kPython = 3, kDelphi = 4, kErlang = 5, kRuby = 6,
  kOther = 7, kHttp = 8, kGo = 9, kPhp = 10, kOms = 11, kRust = 12,
};

std::string_view to_string(LanguageCode code) noexcept;
bool parse_language(std::string_view name, LanguageCode* out) noexcept;

// The per-request-code "custom header": string keys to string values, in arrival order.
class ExtFields {
 public:
  void set(std::string key, std::string value) {
    for (auto& [k, v] : fields_) {
      if (same_key(k, key)) {
        v = std::move(value);
        return;
      }
    }
    fields_.emplace_back(std::move(key), std::move(value));
  }
  // Without this, a string literal would pick the bool overload.
  void set(std::string key, const char* value) { set(std::move(key), std::string(value)); }
  void set(std::string key, std::int64_t value) { set(std::move(key), std::to_string(value)); }
  void set(std::string key, bool value) { set(std::move(key), std::string(value ? "true" : "false")); }

  std::optional<std::string_view> get(std::string_view key) const noexcept {
    for (const auto& [k, v] : fields_) {
      if (same_key(k, key)) return std::string_view(v);
    }
    return std::nullopt;
  }
  // The value as an integer: NotFound when missing, InvalidArgument when not a number.
  Result<std::int64_t> get_int(std::string_view key) const;
  // "true" (any case) is true; missing or anything else is `fallback`/false.
  bool get_bool(std::string_view key, bool fallback = false) const;

  bool empty() const noexcept { return fields_.empty(); }
  std::size_t size() const noexcept { return fields_.size(); }
  void reserve(std::size_t fields) { fields_.reserve(fields); }
  auto begin() const noexcept { return fields_.begin(); }
  auto end() const noexcept { return fields_.end(); }

 private:
  // Headers are read and written field by field (a send header: 13 one-letter keys, 13
  // lookups): the first byte rules out most keys without a call to memcmp.
  static bool same_key(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && (a.empty() || a.front() == b.front()) && a == b;
  }

  std::vector<std::pair<std::string, std::string>> fields_{};
};

// Our own version ordinal on the wire: V4_9_4 (401), so peers use the standard-JSON route form.
inline constexpr std::int32_t kWireVersion = 401;

struct RemotingCommand {
  static constexpr std::int32_t kResponseFlag = 0x1;
  static constexpr std::int32_t kOnewayFlag = 0x2;

  std::int32_t code = 0;
  LanguageCode language = LanguageCode::kCpp;
  std::int32_t version = kWireVersion;
  std::int32_t opaque = 0;
  std::int32_t flag = 0;
  std::optional<std::string> remark{};
  ExtFields ext_fields{};
  SerializeType serialize_type = SerializeType::kJson;
  std::vector<std::uint8_t> body{};
  // Sent after `body` without copying (stored records of a pull or query response).
  std::vector<StoredSlice> body_slices{};

  bool is_response() const noexcept { return (flag & kResponseFlag) != 0; }
  bool is_oneway() const noexcept { return (flag & kOnewayFlag) != 0; }
  std::size_t body_size() const noexcept {
    std::size_t n = body.size();
    for (const auto& s : body_slices) n += s.bytes.size();
    return n;
  }

  static RemotingCommand request(std::int32_t code) {
    RemotingCommand c;
    c.code = code;
    return c;
  }
  // A response to `req`: same opaque and serialization, response flag set.
  static RemotingCommand response_to(const RemotingCommand& req, std::int32_t code,
                                     std::optional<std::string> remark = std::nullopt) {
    RemotingCommand c;
    c.code = code;
    c.opaque = req.opaque;
    c.flag = kResponseFlag;
    c.serialize_type = req.serialize_type;
    c.remark = std::move(remark);
    return c;
  }
};

}  // namespace mqkit::plugin::v1
