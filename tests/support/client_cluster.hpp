// Helpers for SDK tests against a LocalCluster: bounded waiting, a ClientConfig whose periodic
// tasks run every second (so rebalances, heartbeats and offset persistence happen within a
// test's patience), and topics created on every broker.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "local_cluster.hpp"
#include "mqkit/client/client_api.hpp"
#include "mqkit/client/client_config.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::testing {

// The cluster's name servers, the built plugins, and 1 s rebalance, heartbeat, offset
// persistence and route refresh intervals.
client::ClientConfig fast_client_config(const LocalCluster& cluster);

// A consumer of `group` with fast_client_config, reading from the first offset, brokers holding
// pulls 2 s (answered within 5 s), offsets under the cluster's directory ("offsets").
client::ConsumerConfig fast_consumer_config(const LocalCluster& cluster, const std::string& group);

// The distinct bodies a push consumer's listener received, for tests that wait for every one.
class ReceivedBodies {
 public:
  // Records each message's body and consumes it; the object must outlive the consumer.
  client::ConcurrentListener listener();
  std::set<std::string> bodies() const;

 private:
  mutable std::mutex mutex_;
  std::set<std::string> bodies_;
};

// Creates `topic` with `queues` read and write queues on brokers 0..brokers-1 and waits until the
// name servers route it to all of them.
plugin::v1::Status create_topic_on_brokers(client::ClientApi& api, const LocalCluster& cluster, std::size_t brokers,
                                           const std::string& topic, int queues);

}  // namespace mqkit::testing
