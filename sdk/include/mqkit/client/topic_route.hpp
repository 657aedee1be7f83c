// From a topic's route (what the name server says: which brokers hold how many queues with
// which permissions) to the queues a producer writes and a consumer reads (rocketmq-facts §4.5).
// Pure functions and plain values; any thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/types.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client {

struct TopicPublishInfo {
  // The route carried orderTopicConf ("broker-a:4;broker-b:4"), which then lists the queues.
  bool order_topic = false;
  // Writable queues whose broker has a master, brokers sorted by name, queue ids ascending.
  std::vector<MessageQueue> queues{};
};

// Everything a client keeps about one topic.
struct TopicRouteInfo {
  std::string topic{};
  protocol::TopicRouteData route{};
  TopicPublishInfo publish{};
  std::vector<MessageQueue> subscribe_queues{};  // readable queues, sorted
  // Made from the create-topic key's route (TBW102) because the topic has none yet; the broker
  // creates the topic on the first message.
  bool from_default_topic = false;
  std::chrono::steady_clock::time_point updated_at{};
};

TopicPublishInfo to_publish_info(std::string_view topic, const protocol::TopicRouteData& route);
std::vector<MessageQueue> to_subscribe_queues(std::string_view topic, const protocol::TopicRouteData& route);
TopicRouteInfo make_route_info(std::string_view topic, protocol::TopicRouteData route, bool from_default_topic);

// The create-topic key's route turned into one for a new topic: each broker offers
// min(default_queue_nums, its read queues) queues, as the broker will create them.
protocol::TopicRouteData route_from_default_topic(protocol::TopicRouteData default_route, int default_queue_nums);

// Same brokers, queues and addresses (what decides whether a refreshed route changed anything).
bool same_route(const protocol::TopicRouteData& a, const protocol::TopicRouteData& b);

}  // namespace mqkit::client
