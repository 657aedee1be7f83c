// Byte views that keep their backing storage alive: how stored records travel from a store to
// the wire without copying. A StoredSlice may point into a memory-mapped file; as long as the
// slice (or a copy of its keep_alive) exists, the store does not unmap that file.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace mqkit::plugin::v1 {

struct StoredSlice {
  std::span<const std::uint8_t> bytes{};
  std::shared_ptr<const void> keep_alive{};
};

}  // namespace mqkit::plugin::v1
