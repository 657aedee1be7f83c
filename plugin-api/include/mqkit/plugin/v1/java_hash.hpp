// Java's String.hashCode and Math.abs(hashCode % n): RocketMQ derives tag codes, hash-selector
// queues and index slots from them, so mqkit must compute the same numbers bit for bit.
#pragma once

#include <cstdint>
#include <string_view>

namespace mqkit::plugin::v1 {

// String.hashCode() of the Java string decoded from UTF-8 `text` (UTF-16 code units, 32-bit
// wrap-around). Invalid UTF-8 bytes count as U+FFFD, as Java's decoder would make them.
std::int32_t java_string_hash(std::string_view text) noexcept;

// Long.hashCode(): (int)(v ^ (v >>> 32)).
constexpr std::int32_t java_long_hash(std::int64_t v) noexcept {
  const auto u = static_cast<std::uint64_t>(v);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(u ^ (u >> 32)));
}

}  // namespace mqkit::plugin::v1
