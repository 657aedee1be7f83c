// Hash maps keyed by std::string that can be searched with a std::string_view (no allocation on
// lookup: topics arrive as views into requests and records).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mqkit::plugins::stores::memory {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

}  // namespace mqkit::plugins::stores::memory
