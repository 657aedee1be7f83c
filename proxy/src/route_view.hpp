// A topic's route as RocketMQ 5 gRPC clients see it through the proxy (RocketMQ's cluster-mode
// RouteActivity): for each broker name and each of its broker ids, its queues numbered
// read-only first, then write-only, then read-write, each with its permission; every queue's
// broker endpoints are the proxy's, since clients talk to the proxy only.
#pragma once

#include <string_view>
#include <vector>

#include "apache/rocketmq/v2/definition.pb.h"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

// The message types a topic accepts, from its `message.type` attribute ("+message.type" in
// RocketMQ's attribute map): NORMAL when it has none, as RocketMQ 5 brokers assume;
// MIXED accepts NORMAL, FIFO, DELAY and TRANSACTION; an unknown value accepts nothing.
std::vector<v2::MessageType> accepted_message_types(const protocol::TopicConfig& topic);

std::vector<v2::MessageQueue> message_queues(const protocol::TopicRouteData& route, const v2::Resource& topic,
                                             const v2::Endpoints& proxy_endpoints,
                                             const std::vector<v2::MessageType>& accepted);

// "host:port" → Endpoints (IPv4, IPv6 in brackets or a domain name); nullopt when malformed.
std::optional<v2::Endpoints> parse_endpoints(std::string_view address);

}  // namespace mqkit::proxy
