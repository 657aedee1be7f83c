// RocketMQ's SQL92 message filter (MessageSelector.bySql): a boolean expression over a message's
// properties, e.g. "region = 'eu' AND (price BETWEEN 10 AND 20 OR TAGS IN ('a', 'b'))".
//
// The language and its semantics follow apache/rocketmq's filter module (itself ActiveMQ's JMS
// selector): property values are strings, converted to the number type of whatever they are
// compared with; a missing property is NULL and makes a comparison unknown, which never matches;
// a property that cannot be converted makes the whole expression not match. docs/filter.md has
// the grammar, the operators and where mqkit differs (NOT binds like SQL's NOT).
//
// compile() parses once into an expression tree; matches() evaluates it against the encoded
// property string of a stored record without allocating. A compiled filter is immutable and
// may be shared by any number of threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::filter {

// The expressionType of SQL92 subscriptions in heartbeats and pulls.
inline constexpr std::string_view kSql92ExpressionType = "SQL92";

namespace detail {
struct ExpressionTree;
}

class SqlFilter {
 public:
  // InvalidArgument naming the problem and where it is ("... at column 12") for an expression
  // that does not parse or cannot be evaluated to a boolean (e.g. "price > 'abc'").
  static plugin::v1::Result<SqlFilter> compile(std::string_view expression);

  // Whether the message whose properties are `encoded_properties` ("name\x01value\x02...", the
  // stored record's property string) is selected.
  bool matches(std::string_view encoded_properties) const noexcept;

  const std::string& expression() const noexcept;

 private:
  explicit SqlFilter(std::shared_ptr<const detail::ExpressionTree> tree) : tree_(std::move(tree)) {}

  std::shared_ptr<const detail::ExpressionTree> tree_;
};

}  // namespace mqkit::filter
