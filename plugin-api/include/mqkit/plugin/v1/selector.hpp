// QueueSelector: picks the queue a message is sent to (RocketMQ's MessageQueueSelector and the
// producer's default round-robin choice). Called on every send from many threads: thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/fault_strategy.hpp"
#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

// The user's selector argument (Java `Object arg`). Its hash follows Java's hashCode so that an
// order id maps to the same queue as with a Java producer: Integer/Long/String semantics.
struct SelectArgument {
  enum class Kind : std::uint8_t { kNone, kInt32, kInt64, kString };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;
  std::string text{};

  static SelectArgument none() { return {}; }
  static SelectArgument int32(std::int32_t v) { return {Kind::kInt32, v, {}}; }
  static SelectArgument int64(std::int64_t v) { return {Kind::kInt64, v, {}}; }
  static SelectArgument string(std::string v) { return {Kind::kString, 0, std::move(v)}; }
};

struct SelectContext {
  std::string_view topic{};
  std::string_view tags{};
  std::string_view keys{};
  SelectArgument argument{};
  // The broker the previous attempt of this send failed on (retry), empty on a first attempt.
  std::string_view last_failed_broker{};
  // Availability from the producer's fault strategy; nullptr when fault tolerance is off.
  const BrokerAvailability* availability = nullptr;
};

class QueueSelector {
 public:
  virtual ~QueueSelector() = default;

  // Returns an index into `queues` (non-empty, in route order). InvalidArgument when the
  // selector needs an argument it was not given.
  virtual Result<std::size_t> select(std::span<const MessageQueue> queues,
                                     const SelectContext& context) noexcept = 0;

  virtual void* extension(std::string_view /*id*/) noexcept { return nullptr; }
};

}  // namespace mqkit::plugin::v1
