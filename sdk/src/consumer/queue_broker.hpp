// Which broker address serves a queue for a consumer, looked up in the instance's route cache,
// refreshing the topic's route once when the broker is not known yet. Any thread.
#pragma once

#include <string>

#include "mqkit/client/client_instance.hpp"

namespace mqkit::client {

// The queue's broker's master (offsets, min/max offsets, locks). Unavailable naming the broker
// when no master address is known even after a route refresh.
Result<std::string> master_of(ClientInstance& instance, const MessageQueue& queue);

// Where to pull the queue from: its master, else any address of its broker (RocketMQ's
// findBrokerAddressInSubscribe). Unavailable naming the broker when none is known.
Result<BrokerAddress> pull_broker_of(ClientInstance& instance, const MessageQueue& queue);

}  // namespace mqkit::client
