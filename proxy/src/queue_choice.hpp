// Which queue a message sent through the proxy goes to: the proxy chooses, as RocketMQ's
// cluster-mode proxy does (the client's queue id is not used). A message group always maps to
// the same queue while the topic's writable queues stay the same (Guava's consistent hash of
// the group's Java hash code, so a RocketMQ proxy beside mqproxy picks the same queue); other
// messages take the writable queues in turn.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "mqkit/client/types.hpp"

namespace mqkit::proxy {

// Guava's Hashing.consistentHash(long input, int buckets), bit for bit; buckets > 0.
std::int32_t guava_consistent_hash(std::int64_t input, std::int32_t buckets) noexcept;

class QueueChooser {
 public:
  // nullopt when `queues` is empty.
  std::optional<client::MessageQueue> choose(std::span<const client::MessageQueue> queues,
                                             std::string_view message_group) noexcept;

 private:
  std::atomic<std::uint64_t> next_{0};
};

}  // namespace mqkit::proxy
