// Which broker address serves a queue for a consumer, looked up in the instance's route cache,
// refreshing the topic's route once when the broker is not known yet. Any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "mqkit/client/client_instance.hpp"

namespace mqkit::client {

// The queue's broker's master (min/max offsets, searches by time, locks, sends back).
// Unavailable naming the broker when no master address is known even after a route refresh.
Result<std::string> master_of(ClientInstance& instance, const MessageQueue& queue);

// Where the group's offset of the queue is read and committed: the master, else, once a route
// refresh still names no master, its lowest slave (RocketMQ's RemoteBrokerOffsetStore), so a
// consumer keeps its progress through an outage of the master. Unavailable naming the broker
// when none of its addresses is known.
Result<std::string> offset_broker_of(ClientInstance& instance, const MessageQueue& queue);

// The broker id each queue's last pull answer suggested (suggestWhichBrokerId; RocketMQ's
// pullFromWhichNodeTable): where that queue's next pull goes. A consumer keeps one; entries live
// as long as it does (one per queue ever pulled). Any thread.
class PullFromWhichNode {
 public:
  void update(const MessageQueue& queue, std::int64_t broker_id);
  // 0, the master, for a queue not pulled yet.
  std::int64_t of(const MessageQueue& queue) const;

 private:
  mutable std::mutex mutex_;
  std::map<MessageQueue, std::int64_t> table_;
};

// Where to pull the queue from: its broker's `broker_id`, else what
// ClientInstance::find_broker falls back to (RocketMQ's findBrokerAddressInSubscribe).
// Unavailable naming the broker when none of its addresses is known.
Result<BrokerAddress> pull_broker_of(ClientInstance& instance, const MessageQueue& queue, std::int64_t broker_id);

}  // namespace mqkit::client
