// GET_CONSUMER_RUNNING_INFO: what a consumer reports of itself (RocketMQ's ConsumerRunningInfo),
// built from its config, subscriptions and process queues. The ClientInstance adds what only it
// knows (name servers, consume type, client version) and answers the broker.
//
// Properties carry RocketMQ's field names (consumerGroup, messageModel, pullBatchSize, ...) with
// RocketMQ's units (pullThresholdSizeForQueue in MiB, consumeTimeout in minutes). Commit offsets
// come from the offset store's memory only (-1 when not cached): the request is served on a
// transport thread, which must not wait for a broker. statusTable is left empty (mqkit keeps no
// per-topic pull/consume rates).
//
// Pure functions of their arguments; the process queues are read under their own locks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/offset_store.hpp"
#include "mqkit/client/process_queue.hpp"
#include "mqkit/client/subscription.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client {

// The part every consumer shares: client and consumer settings, PROP_CONSUMER_START_TIMESTAMP,
// subscriptionSet and mqTable.
protocol::ConsumerRunningInfo consumer_running_info(const ConsumerConfig& config, std::int64_t start_timestamp_ms,
                                                    const std::map<std::string, SubscriptionData>& subscriptions,
                                                    const std::map<MessageQueue, std::shared_ptr<ProcessQueue>>& queues,
                                                    OffsetStore& offsets);

}  // namespace mqkit::client
