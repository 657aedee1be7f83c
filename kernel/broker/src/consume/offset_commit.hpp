// Where consumer offsets reported by clients enter the broker (UPDATE_CONSUMER_OFFSET and the
// commitOffset piggybacked on PULL_MESSAGE), so both treat odd values alike.
#pragma once

#include <cstdint>
#include <string>

#include "mqkit/broker/consumer_offset_manager.hpp"

namespace mqkit::broker {

// Negative offsets mean "nothing consumed yet" (ali-ons persists offset 0 as -1): they are not
// stored, so a committed offset is never replaced by one and a group without offsets keeps
// getting the QUERY_CONSUMER_OFFSET answer of a new group, as with stock brokers.
inline void commit_client_offset(ConsumerOffsetManager& offsets, const std::string& group, const std::string& topic,
                                 std::int32_t queue_id, std::int64_t offset) {
  if (offset < 0) return;
  offsets.commit(group, topic, queue_id, offset);
}

}  // namespace mqkit::broker
