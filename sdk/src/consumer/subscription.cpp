#include "mqkit/client/subscription.hpp"

#include <chrono>

#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/protocol/subscription_expression.hpp"
#include "mqkit/protocol/validation.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::client {

Result<SubscriptionData> make_subscription(std::string_view topic, std::string_view expression) {
  if (Status s = protocol::validate_topic(topic); !s) return s.with_context("subscribed topic");
  SubscriptionData subscription = protocol::parse_subscription(topic, expression, kernel::wall_clock_ms());
  if (subscription.sub_string != protocol::kSubscribeAll && subscription.tags_set.empty()) {
    return Status::invalid_argument("subscription expression '" + std::string(expression) + "' of " +
                                    std::string(topic) + " names no tag; use \"*\" or \"TagA || TagB\"");
  }
  return subscription;
}

Result<SubscriptionData> make_subscription(std::string_view topic, const MessageSelector& selector) {
  if (selector.type() == MessageSelector::Type::kTag) return make_subscription(topic, selector.expression());
  if (Status s = protocol::validate_topic(topic); !s) return s.with_context("subscribed topic");
  if (auto compiled = filter::SqlFilter::compile(selector.expression()); !compiled) {
    return compiled.status().with_context("subscription of " + std::string(topic));
  }
  SubscriptionData subscription;
  subscription.topic = std::string(topic);
  subscription.sub_string = selector.expression();
  subscription.expression_type = std::string(filter::kSql92ExpressionType);
  subscription.sub_version = kernel::wall_clock_ms();
  return subscription;
}

bool tag_matches(const SubscriptionData& subscription, std::string_view tag) {
  if (!protocol::is_tag_expression(subscription.expression_type)) return true;
  if (protocol::tag_filter_codes(subscription).empty()) return true;
  return subscription.tags_set.find(std::string(tag)) != subscription.tags_set.end();
}

SubscriptionData retry_subscription(std::string_view group) {
  return protocol::parse_subscription(protocol::retry_topic(group), protocol::kSubscribeAll, kernel::wall_clock_ms());
}

}  // namespace mqkit::client
