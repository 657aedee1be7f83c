// MessageQueue: one queue of a topic on one broker, the unit that producers write to and
// consumers own. Ordering (topic, broker name, queue id) is RocketMQ's, which allocators rely on.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace mqkit::plugin::v1 {

struct MessageQueue {
  std::string topic{};
  std::string broker_name{};
  std::int32_t queue_id = 0;

  auto operator<=>(const MessageQueue&) const = default;
  bool operator==(const MessageQueue&) const = default;

  // RocketMQ's MessageQueue.toString(): "MessageQueue [topic=T, brokerName=B, queueId=0]".
  // Consistent-hash allocation hashes this exact text, so it must not change.
  std::string to_string() const {
    return "MessageQueue [topic=" + topic + ", brokerName=" + broker_name +
           ", queueId=" + std::to_string(queue_id) + "]";
  }
};

}  // namespace mqkit::plugin::v1
