// Consumer subscription expressions as RocketMQ's FilterAPI reads them: "*" (or nothing) takes
// every message, "TagA || TagB" the messages carrying one of those tags. Tags are matched on the
// broker by hash code (Java String.hashCode), so the pull path and heartbeat handling must derive
// the codes the same way — this is the one place that does (rocketmq-facts §2.5).
//
// Shared by the broker (pull filtering, heartbeats) and the SDK (consumer subscriptions).
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "mqkit/protocol/bodies.hpp"

namespace mqkit::protocol {

inline constexpr std::string_view kSubscribeAll = "*";
inline constexpr std::string_view kTagExpressionType = "TAG";

// True for the TAG expression type (also when the type is not given). The other type is SQL92,
// filtered by kernel/filter when the broker's enable_property_filter is on.
bool is_tag_expression(std::string_view expression_type);

// The subscription of `topic` to a TAG `expression`: tags split on "||" and trimmed, their hash
// codes, and "*" as the expression when it names no tag.
SubscriptionData parse_subscription(std::string_view topic, std::string_view expression,
                                              std::int64_t sub_version);

// Re-derives tagsSet/codeSet of a TAG subscription received from a client, so what the broker
// filters on never depends on the client computing hashes right. Other types are left alone.
void normalize_subscription(SubscriptionData& subscription);

// The tag codes a read must match; empty when the subscription takes every message.
std::vector<std::int32_t> tag_filter_codes(const SubscriptionData& subscription);

}  // namespace mqkit::protocol
