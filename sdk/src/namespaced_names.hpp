// A client's namespace applied to what crosses its API (ClientConfig::name_space): names and
// queues the application gives are wrapped before they go on the wire, and what comes back is
// unwrapped, as RocketMQ's clients do with withNamespace/queueWithNamespace/withoutNamespace.
// The name rules are protocol/namespace.hpp's. Pure functions; any thread.
#pragma once

#include <string_view>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/types.hpp"
#include "mqkit/protocol/namespace.hpp"

namespace mqkit::client {

inline MessageQueue queue_with_namespace(std::string_view name_space, MessageQueue queue) {
  if (!name_space.empty()) queue.topic = protocol::wrap_namespace(name_space, queue.topic);
  return queue;
}

inline MessageQueue queue_without_namespace(std::string_view name_space, MessageQueue queue) {
  if (!name_space.empty()) queue.topic = protocol::without_namespace(queue.topic, name_space);
  return queue;
}

// `queues` (any container of MessageQueue that takes insert at end) each through `convert`.
template <typename Queues, typename Convert>
Queues converted_queues(const Queues& queues, std::string_view name_space, Convert convert) {
  Queues out;
  for (const MessageQueue& queue : queues) out.insert(out.end(), convert(name_space, queue));
  return out;
}

// A message going out: its topic as the wire names it. Without a namespace the topic is left
// alone (no copy on the send path).
inline void apply_namespace(std::string_view name_space, Message& message) {
  if (!name_space.empty()) message.set_topic(protocol::wrap_namespace(name_space, message.topic()));
}

// A message handed to the application: its topic as the application named it.
inline void strip_namespace(std::string_view name_space, Message& message) {
  if (!name_space.empty()) message.set_topic(protocol::without_namespace(message.topic(), name_space));
}

}  // namespace mqkit::client
