// A consumer's subscription to one topic: the TAG expression ("*", "TagA || TagB") parsed the way
// the broker parses it (kernel/protocol subscription_expression: trimmed tags, Java hash codes),
// plus the client-side check RocketMQ also makes, because brokers filter by tag hash code only
// and two tags may share one. Or a SQL92 expression over the message's properties
// (MessageSelector::by_sql), checked here and evaluated by the broker only (docs/filter.md).
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "mqkit/client/types.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client {

using protocol::SubscriptionData;

// RocketMQ's MessageSelector: which messages of a topic a consumer takes.
class MessageSelector {
 public:
  enum class Type : std::uint8_t { kTag, kSql92 };

  // "*" or "TagA || TagB".
  static MessageSelector by_tag(std::string expression) { return {Type::kTag, std::move(expression)}; }
  // A SQL92 expression over message properties, e.g. "price > 10 AND region IN ('eu', 'us')";
  // served by brokers with enable_property_filter.
  static MessageSelector by_sql(std::string expression) { return {Type::kSql92, std::move(expression)}; }

  Type type() const noexcept { return type_; }
  const std::string& expression() const noexcept { return expression_; }

 private:
  MessageSelector(Type type, std::string expression) : type_(type), expression_(std::move(expression)) {}

  Type type_;
  std::string expression_;
};

// InvalidArgument for a bad topic name or an expression that names no tag and is not "*"
// (e.g. "||"): it would match nothing. sub_version is now in ms, as RocketMQ.
Result<SubscriptionData> make_subscription(std::string_view topic, std::string_view expression);
// The same for either kind of selector; for SQL92, InvalidArgument with the parser's message and
// position when the expression does not parse.
Result<SubscriptionData> make_subscription(std::string_view topic, const MessageSelector& selector);

// Whether a message with `tag` passes the subscription (every message for "*", and for SQL92
// subscriptions, which the broker has filtered already).
bool tag_matches(const SubscriptionData& subscription, std::string_view tag);

// %RETRY%<group>, subscribed with "*" by clustering consumers so that sent-back messages return.
SubscriptionData retry_subscription(std::string_view group);

}  // namespace mqkit::client
