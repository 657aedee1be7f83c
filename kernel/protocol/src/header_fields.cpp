#include "mqkit/protocol/header_fields.hpp"

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

}  // namespace mqkit::protocol
