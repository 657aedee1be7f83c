// RocketMQ's naming convention for brokers deployed per machine room (IDC): the broker name is
// "<room>@<name>", e.g. "hz1@broker-a". Shared by the machine-room-aware allocators.
#pragma once

#include <optional>
#include <string_view>

namespace mqkit::plugins::allocators {

struct RoomQualifiedName {
  std::string_view room;
  std::string_view name;  // everything after the first '@' (may itself contain '@')
};

// Splits a broker name at its first '@'; nullopt when it has none.
inline std::optional<RoomQualifiedName> split_room_qualified_name(
    std::string_view broker_name) noexcept {
  const auto at = broker_name.find('@');
  if (at == std::string_view::npos) return std::nullopt;
  return RoomQualifiedName{broker_name.substr(0, at), broker_name.substr(at + 1)};
}

}  // namespace mqkit::plugins::allocators
