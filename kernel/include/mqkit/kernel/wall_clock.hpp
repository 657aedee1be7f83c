// wall_clock_ms: milliseconds since the Unix epoch by the system clock — what RocketMQ's
// System.currentTimeMillis() is on the wire (timestamps, data versions, id times). Durations and
// deadlines use steady_clock instead.
#pragma once

#include <chrono>
#include <cstdint>

namespace mqkit::kernel {

inline std::int64_t wall_clock_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace mqkit::kernel
