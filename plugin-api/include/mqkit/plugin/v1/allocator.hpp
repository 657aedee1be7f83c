// QueueAllocator: at each rebalance, decides which of a topic's queues the current consumer
// owns (RocketMQ's AllocateMessageQueueStrategy). Every member of a group runs the same
// allocator on the same sorted inputs, so together they cover every queue exactly once.
//
// Also carries the ideas of Kafka's assignor contract: a version for evolving behaviour, the
// protocol it supports (eager: a rebalance revokes everything not re-assigned), and optional
// per-member user data (e.g. a machine room) that a later protocol may exchange.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

enum class RebalanceProtocol : std::uint8_t { kEager };

struct AllocateContext {
  std::string_view consumer_group{};
  std::string_view current_client_id{};
  std::span<const MessageQueue> all_queues{};       // sorted by MessageQueue ordering
  std::span<const std::string> all_client_ids{};    // sorted
};

// allocate() may be called from several threads at once (one rebalance per topic).
class QueueAllocator {
 public:
  virtual ~QueueAllocator() = default;

  // The queues the current client owns. An empty result when the current client is not in
  // all_client_ids (RocketMQ logs and returns nothing). InvalidArgument for empty
  // current_client_id or empty all_client_ids.
  virtual Result<std::vector<MessageQueue>> allocate(const AllocateContext& context) noexcept = 0;

  virtual std::uint32_t version() const noexcept { return 1; }
  virtual RebalanceProtocol protocol() const noexcept { return RebalanceProtocol::kEager; }
  // Bytes this member would share with the group (none in v1's built-ins).
  virtual std::string member_user_data() const noexcept { return {}; }

  virtual void* extension(std::string_view /*id*/) noexcept { return nullptr; }
};

}  // namespace mqkit::plugin::v1
