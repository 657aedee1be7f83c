// What every consumer (push, lite pull) builds when it starts: its ClientInstance, offset store,
// rebalancer and message tracer; and how it introduces itself to the brokers once registered.
// Called from a consumer's start(); not synchronized.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/offset_store.hpp"
#include "rebalancer.hpp"
#include "trace/message_tracer.hpp"

namespace mqkit::client {

struct ConsumerParts {
  std::shared_ptr<ClientInstance> instance;
  std::shared_ptr<OffsetStore> offsets;  // brokers (clustering) or the local file (broadcasting), loaded
  std::unique_ptr<Rebalancer> rebalancer;
  // With enable_msg_trace; null without, or when the trace producer did not start (then the
  // consumer runs untraced, as RocketMQ's).
  std::unique_ptr<trace::MessageTracer> tracer;
};

// Resolves config.client (from `given` when set, keeping config's allocator choice and namespace),
// validates config, names config.group with the namespace, finds or creates the instance, loads the allocator plugin, opens the offset store (a
// corrupt local file fails here), makes the rebalancer, which reports to `listener`, and starts
// the message tracer (enable_msg_trace).
Result<ConsumerParts> make_consumer_parts(ConsumerConfig& config, const std::shared_ptr<ClientInstance>& given,
                                          bool orderly, RebalanceListener& listener);

// After registering: fetches the routes of `topics` (they teach the instance the brokers), then
// heartbeats, so that brokers know the group before its first pull. Failures are logged.
void announce_consumer(ClientInstance& instance, const std::string& group, const std::vector<std::string>& topics);

// What heartbeats tell brokers about a consumer: its group, `consume_type` (CONSUME_PASSIVELY for
// push, CONSUME_ACTIVELY for pull), model, start point and subscriptions.
protocol::ConsumerData consumer_heartbeat_data(const ConsumerConfig& config, std::string_view consume_type,
                                              const std::map<std::string, SubscriptionData>& subscriptions);

}  // namespace mqkit::client
