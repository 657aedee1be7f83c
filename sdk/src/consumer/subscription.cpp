#include "mqkit/client/subscription.hpp"

#include <chrono>

#include "mqkit/protocol/subscription_expression.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::client {

namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<SubscriptionData> make_subscription(std::string_view topic, std::string_view expression) {
  if (Status s = protocol::validate_topic(topic); !s) return s.with_context("subscribed topic");
  SubscriptionData subscription = protocol::parse_subscription(topic, expression, now_ms());
  if (subscription.sub_string != protocol::kSubscribeAll && subscription.tags_set.empty()) {
    return Status::invalid_argument("subscription expression '" + std::string(expression) + "' of " +
                                    std::string(topic) + " names no tag; use \"*\" or \"TagA || TagB\"");
  }
  return subscription;
}

bool tag_matches(const SubscriptionData& subscription, std::string_view tag) {
  if (protocol::tag_filter_codes(subscription).empty()) return true;
  return subscription.tags_set.find(std::string(tag)) != subscription.tags_set.end();
}

SubscriptionData retry_subscription(std::string_view group) {
  return protocol::parse_subscription(protocol::retry_topic(group), protocol::kSubscribeAll, now_ms());
}

}  // namespace mqkit::client
