#include "mqkit/kernel/config_value.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <span>
#include <vector>

namespace mqkit::kernel {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct Unit {
  std::string_view suffix;
  std::int64_t factor;
};

// Splits "64KiB" into 64 and "kib" and multiplies by the unit's factor.
Result<std::int64_t> parse_with_units(std::string_view text, std::span<const Unit> units,
                                      std::string_view what) {
  const std::string_view t = trim(text);
  std::int64_t number = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), number);
  if (ec != std::errc() || ptr == t.data()) {
    return Status::invalid_argument("expected a " + std::string(what) + ", got \"" + std::string(text) + "\"");
  }
  const std::string suffix = lower(trim(std::string_view(ptr, t.data() + t.size() - ptr)));
  for (const auto& unit : units) {
    if (suffix == unit.suffix) {
      if (number != 0 && std::abs(number) > INT64_MAX / unit.factor) {
        return Status::invalid_argument(std::string(what) + " \"" + std::string(text) + "\" is too large");
      }
      return number * unit.factor;
    }
  }
  std::string known;
  for (const auto& unit : units) {
    if (!unit.suffix.empty()) known += (known.empty() ? "" : ", ") + std::string(unit.suffix);
  }
  return Status::invalid_argument("unknown unit \"" + suffix + "\" in " + std::string(what) + " \"" +
                                  std::string(text) + "\" (units: " + known + ")");
}

constexpr std::int64_t kKi = 1024;
constexpr Unit kSizeUnits[] = {
    {"", 1},           {"b", 1},
    {"k", kKi},        {"kb", kKi},        {"kib", kKi},
    {"m", kKi * kKi},  {"mb", kKi * kKi},  {"mib", kKi * kKi},
    {"g", kKi * kKi * kKi}, {"gb", kKi * kKi * kKi}, {"gib", kKi * kKi * kKi},
    {"t", kKi * kKi * kKi * kKi}, {"tb", kKi * kKi * kKi * kKi}, {"tib", kKi * kKi * kKi * kKi},
};
constexpr Unit kDurationUnits[] = {
    {"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"min", 60'000}, {"h", 3'600'000}, {"d", 86'400'000},
};

std::string describe_expected(const ConfigField& field) {
  switch (field.type) {
    case ValueType::kBool: return "true or false";
    case ValueType::kInt: return "an integer";
    case ValueType::kDouble: return "a number";
    case ValueType::kString: return "a string";
    case ValueType::kStringList: return "a list of strings";
    case ValueType::kSize: return "a size (bytes, or e.g. \"64KiB\", \"1GiB\")";
    case ValueType::kDuration: return "a duration (ms, or e.g. \"500ms\", \"30s\", \"72h\")";
  }
  return "a value";
}

std::string format_bound(double v) {
  if (std::floor(v) == v && std::abs(v) < 9e15) return std::to_string(static_cast<std::int64_t>(v));
  return std::to_string(v);
}

}  // namespace

Result<std::int64_t> parse_size(std::string_view text) { return parse_with_units(text, kSizeUnits, "size"); }

Result<std::int64_t> parse_duration_ms(std::string_view text) {
  return parse_with_units(text, kDurationUnits, "duration");
}

Result<ConfigValue> parse_value_text(const ConfigField& field, std::string_view text) {
  const auto wrong = [&] {
    return Status::invalid_argument(std::string(field.key) + ": expected " + describe_expected(field) +
                                    ", got \"" + std::string(text) + "\"");
  };
  const std::string_view t = trim(text);
  switch (field.type) {
    case ValueType::kBool:
      if (t == "true") return ConfigValue(true);
      if (t == "false") return ConfigValue(false);
      return wrong();
    case ValueType::kInt: {
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc() || ptr != t.data() + t.size() || t.empty()) return wrong();
      return ConfigValue(v);
    }
    case ValueType::kDouble: {
      std::string copy(t);
      char* end = nullptr;
      const double v = std::strtod(copy.c_str(), &end);
      if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(v)) return wrong();
      return ConfigValue(v);
    }
    case ValueType::kString:
      return ConfigValue(std::string(text));
    case ValueType::kStringList: {
      std::vector<std::string> items;
      if (t.empty()) return ConfigValue(items);
      std::string_view rest = t;
      while (true) {
        const auto comma = rest.find(',');
        items.emplace_back(trim(rest.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      return ConfigValue(std::move(items));
    }
    case ValueType::kSize: {
      auto v = parse_size(t);
      if (!v) return Status::invalid_argument(std::string(field.key) + ": " + v.status().message());
      return ConfigValue(*v);
    }
    case ValueType::kDuration: {
      auto v = parse_duration_ms(t);
      if (!v) return Status::invalid_argument(std::string(field.key) + ": " + v.status().message());
      return ConfigValue(*v);
    }
  }
  return wrong();
}

Status check_value(const ConfigField& field, const ConfigValue& value) {
  double numeric = 0;
  bool is_numeric = false;
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    numeric = static_cast<double>(*i), is_numeric = true;
  } else if (const auto* d = std::get_if<double>(&value)) {
    numeric = *d, is_numeric = true;
  }
  if (is_numeric && (numeric < field.min || numeric > field.max)) {
    std::string range;
    if (field.min != plugin::v1::kNoLowerBound && field.max != plugin::v1::kNoUpperBound) {
      range = "between " + format_bound(field.min) + " and " + format_bound(field.max);
    } else if (field.min != plugin::v1::kNoLowerBound) {
      range = "at least " + format_bound(field.min);
    } else {
      range = "at most " + format_bound(field.max);
    }
    return Status::invalid_argument(std::string(field.key) + ": value " + plugin::v1::format_value(value) +
                                    " is out of range (expected " + range + ")");
  }
  if (field.allowed != nullptr) {
    const auto* s = std::get_if<std::string>(&value);
    if (s == nullptr) return Status::internal(std::string(field.key) + ": allowed values on a non-string field");
    std::string choices;
    for (const char* const* a = field.allowed; *a != nullptr; ++a) {
      if (*s == *a) return Status::ok();
      choices += (choices.empty() ? "" : ", ") + std::string(*a);
    }
    return Status::invalid_argument(std::string(field.key) + ": \"" + *s + "\" is not one of " + choices);
  }
  return Status::ok();
}

Status check_schema(const plugin::v1::ConfigSchema& schema) {
  std::set<std::string, std::less<>> seen;
  for (const auto& field : schema) {
    if (field.key == nullptr || *field.key == '\0') return Status::invalid_argument("schema has a field with no key");
    if (to_snake_case(field.key) != field.key) {
      return Status::invalid_argument(std::string("schema key '") + field.key + "' is not snake_case");
    }
    if (!seen.insert(field.key).second) {
      return Status::invalid_argument(std::string("schema declares key '") + field.key + "' twice");
    }
    if (field.default_value == nullptr) continue;
    auto value = parse_value_text(field, field.default_value);
    if (!value) return value.status().with_context("schema default is invalid");
    MQKIT_RETURN_IF_ERROR(check_value(field, *value).with_context("schema default is invalid"));
  }
  return Status::ok();
}

std::string to_snake_case(std::string_view key) {
  std::string out;
  out.reserve(key.size() + 4);
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      const bool prev_lower_or_digit =
          i > 0 && (std::islower(static_cast<unsigned char>(key[i - 1])) ||
                    std::isdigit(static_cast<unsigned char>(key[i - 1])));
      const bool next_lower = i + 1 < key.size() && std::islower(static_cast<unsigned char>(key[i + 1]));
      const bool prev_upper = i > 0 && std::isupper(static_cast<unsigned char>(key[i - 1]));
      if (prev_lower_or_digit || (prev_upper && next_lower)) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

std::string to_camel_case(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t end = std::min(key.find('_', start), key.size());
    const std::string_view word = key.substr(start, end - start);
    const bool first = start == 0;
    start = end + 1;
    if (word.empty()) continue;
    // RocketMQ writes the IP of brokerIP1 / brokerIP2 in capitals.
    if (!first && word.starts_with("ip") && word.find_first_not_of("0123456789", 2) == std::string_view::npos) {
      out += "IP";
      out += word.substr(2);
      continue;
    }
    out += first ? word[0] : static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    out += word.substr(1);
  }
  return out;
}

std::string closest_key(const plugin::v1::ConfigSchema& schema, std::string_view key) {
  std::string best;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& field : schema) {
    const std::string_view candidate = field.key;
    std::vector<std::size_t> row(candidate.size() + 1);
    for (std::size_t j = 0; j <= candidate.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= key.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= candidate.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (key[i - 1] == candidate[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    if (row[candidate.size()] < best_distance) {
      best_distance = row[candidate.size()];
      best = candidate;
    }
  }
  return best_distance <= std::max<std::size_t>(2, key.size() / 3) ? best : std::string();
}

}  // namespace mqkit::kernel
