// A consumer's subscription to one topic: the TAG expression ("*", "TagA || TagB") parsed the way
// the broker parses it (kernel/protocol subscription_expression: trimmed tags, Java hash codes),
// plus the client-side check RocketMQ also makes, because brokers filter by tag hash code only
// and two tags may share one.
//
// Pure functions; any thread.
#pragma once

#include <string_view>

#include "mqkit/client/types.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client {

using protocol::SubscriptionData;

// InvalidArgument for a bad topic name or an expression that names no tag and is not "*"
// (e.g. "||"): it would match nothing. sub_version is now in ms, as RocketMQ.
Result<SubscriptionData> make_subscription(std::string_view topic, std::string_view expression);

// Whether a message with `tag` passes the subscription (every message for "*").
bool tag_matches(const SubscriptionData& subscription, std::string_view tag);

// %RETRY%<group>, subscribed with "*" by clustering consumers so that sent-back messages return.
SubscriptionData retry_subscription(std::string_view group);

}  // namespace mqkit::client
