#include "mqkit/protocol/subscription_expression.hpp"

#include "mqkit/plugin/v1/java_hash.hpp"
#include "mqkit/protocol/text.hpp"

namespace mqkit::protocol {

bool is_tag_expression(std::string_view expression_type) {
  return expression_type.empty() || expression_type == kTagExpressionType;
}

SubscriptionData parse_subscription(std::string_view topic, std::string_view expression,
                                              std::int64_t sub_version) {
  SubscriptionData s;
  s.topic = std::string(topic);
  s.sub_version = sub_version;
  s.expression_type = std::string(kTagExpressionType);
  const std::string_view whole = trim(expression);
  if (whole.empty() || whole == kSubscribeAll) {
    s.sub_string = std::string(kSubscribeAll);
    return s;
  }
  s.sub_string = std::string(expression);
  constexpr std::string_view kSeparator = "||";
  for (std::size_t start = 0; start <= expression.size();) {
    const auto end = expression.find(kSeparator, start);
    const std::string_view tag =
        trim(expression.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (!tag.empty()) {
      s.tags_set.emplace(tag);
      s.code_set.insert(plugin::v1::java_string_hash(tag));
    }
    if (end == std::string_view::npos) break;
    start = end + kSeparator.size();
  }
  return s;
}

void normalize_subscription(SubscriptionData& subscription) {
  if (!is_tag_expression(subscription.expression_type)) return;
  SubscriptionData parsed =
      parse_subscription(subscription.topic, subscription.sub_string, subscription.sub_version);
  subscription.sub_string = std::move(parsed.sub_string);
  subscription.tags_set = std::move(parsed.tags_set);
  subscription.code_set = std::move(parsed.code_set);
  subscription.expression_type = std::move(parsed.expression_type);
}

std::vector<std::int32_t> tag_filter_codes(const SubscriptionData& subscription) {
  if (subscription.class_filter_mode || subscription.sub_string == kSubscribeAll || subscription.sub_string.empty()) {
    return {};
  }
  return {subscription.code_set.begin(), subscription.code_set.end()};
}

}  // namespace mqkit::protocol
