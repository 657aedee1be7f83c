// The slave's copy of its master's metadata (RocketMQ 4.x SlaveSynchronize.syncAll), run by the
// broker's periodic task 3 s after start and then every 10 s. Each part is asked for on its own
// and a failed one is logged and left for the next round:
//   topic configs        GET_ALL_TOPIC_CONFIG 21: replaced when the data version differs
//   consumer offsets     GET_ALL_CONSUMER_OFFSET 43: each topic@group of the master replaces the
//                        slave's (a putAll: groups only the slave knows stay)
//   delay offsets        GET_ALL_DELAY_OFFSET 45: replace the slave's delayOffset.json
//   subscription groups  GET_ALL_SUBSCRIPTIONGROUP_CONFIG 201: replaced when they differ
//
// Threads: the caller's (the periodic task thread); waits for each answer (3 s at most).
#pragma once

#include <string>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::broker::ha {

// One round against the master whose remoting address is `master`.
void synchronize_from_master(BrokerContext& context, plugin::v1::Transport& transport, const std::string& master);

}  // namespace mqkit::broker::ha
