#include "mqkit/plugin/v1/config.hpp"

#include <cstdio>
#include <cstdlib>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

std::string_view to_string(ValueType type) noexcept {
  switch (type) {
    case ValueType::kBool: return "bool";
    case ValueType::kInt: return "integer";
    case ValueType::kDouble: return "float";
    case ValueType::kString: return "string";
    case ValueType::kStringList: return "list of strings";
    case ValueType::kSize: return "size";
    case ValueType::kDuration: return "duration";
  }
  return "unknown";
}

void config_lookup_failed(std::string_view key, std::string_view why) noexcept {
  std::string what = "config key '" + std::string(key) + "' " + std::string(why);
  on_internal_error(what);
}

std::string format_value(const ConfigValue& value) {
  struct Formatter {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", d);
      return buf;
    }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::string>& list) const {
      std::string out;
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) out += ',';
        out += list[i];
      }
      return out;
    }
  };
  return std::visit(Formatter{}, value);
}

}  // namespace mqkit::plugin::v1
