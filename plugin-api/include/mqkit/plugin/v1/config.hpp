// Config schema and validated values.
//
// Every component and every plugin declares its configuration once, as an array of ConfigField.
// The kernel validates the TOML table against it (unknown keys, types, bounds, allowed values),
// fills defaults and hands the component a ConfigValues in which every declared key is present
// with the declared type. The same declaration drives --print-config and --list-plugins.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mqkit::plugin::v1 {

enum class ValueType : std::uint8_t {
  kBool,
  kInt,         // int64
  kDouble,
  kString,
  kStringList,  // TOML array of strings; on the command line, comma-separated
  kSize,        // bytes as int64; accepts an integer or "64KiB", "1GiB", "512MB", "4k"
  kDuration,    // milliseconds as int64; accepts an integer (ms) or "500ms", "30s", "2m", "72h"
};

std::string_view to_string(ValueType type) noexcept;

inline constexpr double kNoLowerBound = -std::numeric_limits<double>::infinity();
inline constexpr double kNoUpperBound = std::numeric_limits<double>::infinity();

struct ConfigField {
  const char* key;            // snake_case; the RocketMQ camelCase spelling is accepted too
  ValueType type;
  const char* default_value;  // value text as on the command line ("4", "1GiB", "a,b", "true");
                              // nullptr = required (no default)
  const char* description;
  double min = kNoLowerBound;  // inclusive, for kInt/kDouble/kSize/kDuration
  double max = kNoUpperBound;  // inclusive
  const char* const* allowed = nullptr;  // nullptr-terminated list of allowed kString values
  bool needs_restart = true;   // false: may be changed on a running component
};

struct ConfigSchema {
  const ConfigField* fields = nullptr;
  std::size_t count = 0;

  const ConfigField* begin() const noexcept { return fields; }
  const ConfigField* end() const noexcept { return fields + count; }
  const ConfigField* find(std::string_view key) const noexcept {
    for (const auto& f : *this) {
      if (key == f.key) return &f;
    }
    return nullptr;
  }
};

using ConfigValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>>;

// Validated configuration: every key of the schema is present with its declared type.
// Asking for an undeclared key or the wrong type is a programming error and aborts loudly.
class ConfigValues {
 public:
  void set(std::string key, ConfigValue value) { values_[std::move(key)] = std::move(value); }
  bool contains(std::string_view key) const { return values_.find(key) != values_.end(); }

  bool get_bool(std::string_view key) const { return get<bool>(key); }
  std::int64_t get_int(std::string_view key) const { return get<std::int64_t>(key); }
  double get_double(std::string_view key) const { return get<double>(key); }
  const std::string& get_string(std::string_view key) const { return get<std::string>(key); }
  const std::vector<std::string>& get_list(std::string_view key) const {
    return get<std::vector<std::string>>(key);
  }
  // kSize and kDuration are stored as int64 (bytes, milliseconds).
  std::int64_t get_size(std::string_view key) const { return get<std::int64_t>(key); }
  std::int64_t get_duration_ms(std::string_view key) const { return get<std::int64_t>(key); }

  const std::map<std::string, ConfigValue, std::less<>>& all() const noexcept { return values_; }

 private:
  template <typename T>
  const T& get(std::string_view key) const;
  std::map<std::string, ConfigValue, std::less<>> values_;
};

[[noreturn]] void config_lookup_failed(std::string_view key, std::string_view why) noexcept;

template <typename T>
const T& ConfigValues::get(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) config_lookup_failed(key, "not declared in the schema");
  const T* value = std::get_if<T>(&it->second);
  if (value == nullptr) config_lookup_failed(key, "read with a type other than its declared one");
  return *value;
}

// Renders a value the way the command line and --print-config write it.
std::string format_value(const ConfigValue& value);

}  // namespace mqkit::plugin::v1
