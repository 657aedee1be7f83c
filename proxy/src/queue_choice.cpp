#include "queue_choice.hpp"

#include <limits>

#include "mqkit/plugin/v1/java_hash.hpp"

namespace mqkit::proxy {

std::int32_t guava_consistent_hash(std::int64_t input, std::int32_t buckets) noexcept {
  // Guava's linear congruential generator, with Java's wrap-around integer arithmetic.
  auto state = static_cast<std::uint64_t>(input);
  const auto next_double = [&state] {
    state = 2862933555777941757ULL * state + 1;
    const auto high = static_cast<std::uint32_t>(state >> 33);
    const auto plus_one = static_cast<std::int32_t>(high + 1U);  // Java int: wraps to negative
    return static_cast<double>(plus_one) / 2147483648.0;
  };
  std::int32_t candidate = 0;
  while (true) {
    const double jump = static_cast<double>(candidate + 1) / next_double();
    // Java's (int) cast saturates (and a negative or too large jump ends the walk).
    if (!(jump >= 0) || jump >= static_cast<double>(buckets)) return candidate;
    candidate = static_cast<std::int32_t>(jump);
  }
}

std::optional<client::MessageQueue> QueueChooser::choose(std::span<const client::MessageQueue> queues,
                                                         std::string_view message_group) noexcept {
  if (queues.empty()) return std::nullopt;
  const auto buckets = static_cast<std::int32_t>(queues.size());
  if (!message_group.empty()) {
    return queues[static_cast<std::size_t>(guava_consistent_hash(plugin::v1::java_string_hash(message_group), buckets))];
  }
  return queues[next_.fetch_add(1, std::memory_order_relaxed) % queues.size()];
}

}  // namespace mqkit::proxy
