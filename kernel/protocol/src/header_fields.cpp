#include "mqkit/protocol/header_fields.hpp"

#include <algorithm>
#include <limits>

namespace mqkit::protocol {

using plugin::v1::Result;
using plugin::v1::Status;

Result<std::string> require(const plugin::v1::ExtFields& fields, std::string_view name) {
  auto v = fields.get(name);
  if (!v) return Status::invalid_argument("the custom field <" + std::string(name) + "> is null");
  return std::string(*v);
}

Result<std::int64_t> require_int(const plugin::v1::ExtFields& fields, std::string_view name) {
  if (!fields.get(name)) return Status::invalid_argument("the custom field <" + std::string(name) + "> is null");
  return fields.get_int(name);
}

Result<std::int64_t> optional_int(const plugin::v1::ExtFields& fields, std::string_view name, std::int64_t fallback) {
  if (!fields.get(name)) return fallback;
  return fields.get_int(name);
}

namespace {

Result<std::int32_t> to_int32(Result<std::int64_t> value, std::string_view name) {
  if (!value) return value.status();
  if (*value < std::numeric_limits<std::int32_t>::min() || *value > std::numeric_limits<std::int32_t>::max()) {
    return Status::invalid_argument("header field '" + std::string(name) +
                                    "' is out of the int range: " + std::to_string(*value));
  }
  return static_cast<std::int32_t>(*value);
}

}  // namespace

Result<std::int32_t> require_int32(const plugin::v1::ExtFields& fields, std::string_view name) {
  return to_int32(require_int(fields, name), name);
}

Result<std::optional<std::int32_t>> optional_int32(const plugin::v1::ExtFields& fields, std::string_view name) {
  if (!fields.get(name)) return std::optional<std::int32_t>();
  MQKIT_ASSIGN_OR_RETURN(std::int32_t value, to_int32(fields.get_int(name), name));
  return std::optional<std::int32_t>(value);
}

std::vector<std::string> comma_list(std::string_view text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (end > start) items.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::string comma_joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ",") + item;
  return text;
}

}  // namespace mqkit::protocol
