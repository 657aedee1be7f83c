// Resetting a consumer group's offsets on a topic to a point in time
// (INVOKE_BROKER_TO_RESET_OFFSET, RocketMQ's Broker2Client.resetOffset).
//
// Unlike a 4.x broker, which only asks online consumers to reset themselves (and refuses when
// none is online), the new offsets are also committed here, so a group that is offline resumes
// from them. Online consumers are still told (RESET_CONSUMER_CLIENT_OFFSET, one-way): a consumer
// that ignores the request (ali-ons does) overwrites the reset with its next offset report.
//
// Any request thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "mqkit/broker/broker_context.hpp"

namespace mqkit::broker {

using QueueOffsets = std::map<plugin::v1::MessageQueue, std::int64_t>;

struct ResetRequest {
  std::string topic;
  std::string group;
  std::int64_t timestamp_ms = 0;  // -1 = the end of every queue
  bool force = true;              // false: only move offsets backwards
};

// The offset per write queue of `topic` for the request: the first message stored at or after
// the time; without `force` a committed offset that is already earlier is kept. Commits them.
QueueOffsets reset_offsets(BrokerContext& context, const protocol::TopicConfig& topic, const ResetRequest& request);

// Sends RESET_CONSUMER_CLIENT_OFFSET to every online member of the group; returns how many.
std::size_t notify_consumers_of_reset(const BrokerContext& context, const ResetRequest& request,
                                      const QueueOffsets& offsets);

}  // namespace mqkit::broker
