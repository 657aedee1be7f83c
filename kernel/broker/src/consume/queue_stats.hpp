// What the admin statistics requests report, computed from the store and the offset table:
// a group's progress per queue (GET_CONSUME_STATS), every group's (GET_BROKER_CONSUME_STATS),
// a topic's queue ranges
// (GET_TOPIC_STATS_INFO) and broker-wide figures (GET_BROKER_RUNTIME_INFO).
//
// Read-only; any thread.
#pragma once

#include <cstdint>
#include <string>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

// Store time of the message at `queue_offset`, 0 when it is not there (RocketMQ's
// getMessageStoreTimeStamp).
std::int64_t message_store_time(plugin::v1::MessageStore& store, const std::string& topic, std::int32_t queue_id,
                                std::int64_t queue_offset);

// Per read queue: max offset, the group's committed offset and the store time of the last
// message it consumed. `topic` empty = every topic the group has offsets for; a topic the group
// does not subscribe to while it subscribes to others is skipped (RocketMQ).
protocol::ConsumeStats consume_stats(const BrokerContext& context, const std::string& group, const std::string& topic);

// consume_stats of every subscription group for each topic it has offsets for (only ordered
// topics with `only_ordered`), and the total of broker offset minus consumer offset.
protocol::ConsumeStatsList broker_consume_stats(const BrokerContext& context, bool only_ordered);

// Per write queue: min and max offsets and the store time of the newest message.
protocol::TopicStatsTable topic_stats(const BrokerContext& context, const protocol::TopicConfig& topic);

// What the commit log holds that is not yet flushed / not yet in the queues, in bytes.
std::int64_t flush_behind_bytes(const plugin::v1::StoreStats& store);
std::int64_t dispatch_behind_bytes(const plugin::v1::StoreStats& store);
// Store time of the oldest record in the commit log, 0 when it is empty.
std::int64_t earliest_message_time(plugin::v1::MessageStore& store, const plugin::v1::StoreStats& stats);

// Broker-wide figures as a KvTable (store offsets and health, version, messages stored and
// pulled: BrokerStats).
protocol::KvTable runtime_info(const BrokerContext& context);

}  // namespace mqkit::broker
