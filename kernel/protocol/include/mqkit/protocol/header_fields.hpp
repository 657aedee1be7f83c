// Reading a request's custom header (extFields) the way a Java peer validates it: a missing
// required field is an error naming it, as RocketMQ's @CFNotNull check does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::protocol {

// "the custom field <name> is null" when absent.
plugin::v1::Result<std::string> require(const plugin::v1::ExtFields& fields, std::string_view name);
plugin::v1::Result<std::int64_t> require_int(const plugin::v1::ExtFields& fields, std::string_view name);
// Optional integer: `fallback` when absent, an error when present but not a number.
plugin::v1::Result<std::int64_t> optional_int(const plugin::v1::ExtFields& fields, std::string_view name,
                                              std::int64_t fallback);
// Java decodes these fields into an int: anything outside its range fails as a bad number.
plugin::v1::Result<std::int32_t> require_int32(const plugin::v1::ExtFields& fields, std::string_view name);
// Absent is nullopt (a nullable Integer).
plugin::v1::Result<std::optional<std::int32_t>> optional_int32(const plugin::v1::ExtFields& fields,
                                                               std::string_view name);

// A list in a header field, RocketMQ's way: "a,b,c" (empty items dropped; "" is no items).
std::vector<std::string> comma_list(std::string_view text);
std::string comma_joined(const std::vector<std::string>& items);

// The body of a command as text (JSON bodies).
inline std::string_view body_text(const plugin::v1::RemotingCommand& c) {
  return {reinterpret_cast<const char*>(c.body.data()), c.body.size()};
}
inline void set_body(plugin::v1::RemotingCommand& c, std::string_view text) { c.body.assign(text.begin(), text.end()); }

}  // namespace mqkit::protocol
