// ServingBrokers: which brokers host the topics a producer sends to, as the routes last showed
// them, and which of them has left every one of those topics' routes. The producer then tells
// its fault strategy to forget such a broker (FaultStrategy::remove), as RocketMQ 5's
// LatencyFaultTolerance drops a broker that no longer resolves to an address.
//
// Thread-safe: sending threads track topics while the route fetching thread updates them.
#pragma once

#include <map>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/topic_route.hpp"

namespace mqkit::client {

class ServingBrokers {
 public:
  // Starts following `topic` with the brokers of `route` (a shared lock only when it is followed
  // already: this is on every send).
  void track(std::string_view topic, const TopicRouteInfo& route);
  // A newer route of `topic`: the brokers that served some followed topic before it and serve
  // none now. Nothing when `topic` is not followed.
  std::vector<std::string> update(std::string_view topic, const TopicRouteInfo& route);

 private:
  std::set<std::string> all_brokers() const;  // mutex_ held

  mutable std::shared_mutex mutex_;
  std::map<std::string, std::set<std::string>, std::less<>> brokers_of_topic_;
};

}  // namespace mqkit::client
