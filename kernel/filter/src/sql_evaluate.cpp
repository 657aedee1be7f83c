// Evaluation of a compiled SQL92 filter against one message's properties, with RocketMQ's
// semantics: three-valued logic (NULL is unknown and never matches), property strings converted
// to the type of the number or boolean they meet, and a failed conversion aborting the whole
// evaluation (RocketMQ's filter catches the NumberFormatException and does not deliver).
//
// Values are views into the property string or the tree, so evaluating allocates nothing.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "expression_tree.hpp"
#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::filter {

namespace {

using detail::Constant;
using detail::ExpressionTree;
using detail::Node;
using detail::NodeKind;
using detail::ValueKind;

struct Value {
  ValueKind kind = ValueKind::kNull;
  bool boolean = false;
  std::int64_t long_value = 0;
  double double_value = 0;
  std::string_view string{};

  static Value of(bool b) { return {.kind = ValueKind::kBoolean, .boolean = b}; }
  static Value of(std::int64_t l) { return {.kind = ValueKind::kLong, .long_value = l}; }
  static Value of(double d) { return {.kind = ValueKind::kDouble, .double_value = d}; }
  static Value of(std::string_view s) { return {.kind = ValueKind::kString, .string = s}; }
  bool is_null() const { return kind == ValueKind::kNull; }
  bool is_number() const { return kind == ValueKind::kLong || kind == ValueKind::kDouble; }
  bool is_true() const { return kind == ValueKind::kBoolean && boolean; }
  bool is_false() const { return kind == ValueKind::kBoolean && !boolean; }
};

Value value_of(const Constant& c) {
  switch (c.kind) {
    case ValueKind::kNull: return {};
    case ValueKind::kBoolean: return Value::of(c.boolean);
    case ValueKind::kLong: return Value::of(c.long_value);
    case ValueKind::kDouble: return Value::of(c.double_value);
    case ValueKind::kString: return Value::of(std::string_view(c.string));
  }
  return {};
}

// Java's Long.valueOf: an optional sign and decimal digits, nothing else.
std::optional<std::int64_t> parse_long(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Java's Double.valueOf, but for hexadecimal floats: surrounding blanks and control characters
// ignored, an optional sign, NaN, Infinity, or a decimal with an optional exponent and f/d suffix.
std::optional<double> parse_double(std::string_view text) {
  while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ') text.remove_prefix(1);
  while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ') text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  double value = 0;
  if (text == "NaN") {
    value = std::nan("");
  } else if (text == "Infinity") {
    value = HUGE_VAL;
  } else {
    if (!text.empty() && std::string_view("fFdD").find(text.back()) != std::string_view::npos) text.remove_suffix(1);
    // from_chars also takes "inf" and "nan" spellings Java does not: a number starts with a digit or '.'.
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.')) {
      return std::nullopt;
    }
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  }
  return negative ? -value : value;
}

bool parse_boolean(std::string_view text) {  // Java's Boolean.valueOf
  return text.size() == 4 && std::equal(text.begin(), text.end(), "true", [](char a, char b) {
           return (a | 0x20) == b;
         });
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Java's Double.compareTo: NaN above everything, equal to itself.
int compare_doubles(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? (std::isnan(b) ? 0 : 1) : -1;
  return three_way(a, b);
}

class Evaluator {
 public:
  Evaluator(const ExpressionTree& tree, std::string_view properties) : tree_(tree), properties_(properties) {}

  // The value of node `index`; nullopt when a conversion failed, which ends the evaluation.
  std::optional<Value> evaluate(std::int32_t index) const {
    const Node& node = tree_.nodes[static_cast<std::size_t>(index)];
    switch (node.kind) {
      case NodeKind::kConstant:
        return value_of(node.constant);
      case NodeKind::kProperty: {
        const auto found = plugin::v1::find_property(properties_, node.text);
        return found ? Value::of(*found) : Value{};
      }
      case NodeKind::kNegate: {
        const auto v = evaluate(node.left);
        if (!v) return std::nullopt;
        if (v->kind == ValueKind::kLong) return Value::of(-v->long_value);
        if (v->kind == ValueKind::kDouble) return Value::of(-v->double_value);
        return Value{};
      }
      case NodeKind::kBooleanCast: {
        const auto v = evaluate(node.left);
        if (!v || v->is_null()) return v;
        return Value::of(v->is_true());
      }
      case NodeKind::kNot: {
        const auto v = evaluate(node.left);
        if (!v || v->is_null()) return v;
        return Value::of(!v->is_true());
      }
      case NodeKind::kAnd:
      case NodeKind::kOr:
        return logic(node);
      case NodeKind::kEqual:
        return equal(node);
      case NodeKind::kGreater:
      case NodeKind::kGreaterEqual:
      case NodeKind::kLess:
      case NodeKind::kLessEqual:
        return ordered(node);
      case NodeKind::kIn: {
        const auto v = evaluate(node.left);
        if (!v) return std::nullopt;
        if (v->kind != ValueKind::kString) return Value{};
        const bool listed = std::binary_search(node.strings.begin(), node.strings.end(), v->string);
        return Value::of(listed != node.negated);
      }
      case NodeKind::kContains:
      case NodeKind::kStartsWith:
      case NodeKind::kEndsWith:
        return text_test(node);
    }
    return Value{};
  }

 private:
  // AND/OR in three-valued logic: a decided left side skips the right, as RocketMQ does.
  std::optional<Value> logic(const Node& node) const {
    const bool decisive = node.kind == NodeKind::kOr;  // TRUE decides OR, FALSE decides AND
    const auto left = evaluate(node.left);
    if (!left) return std::nullopt;
    if (!left->is_null() && left->is_true() == decisive) return Value::of(decisive);
    const auto right = evaluate(node.right);
    if (!right) return std::nullopt;
    if (!right->is_null() && right->is_true() == decisive) return Value::of(decisive);
    if (left->is_null() || right->is_null()) return Value{};
    return Value::of(!decisive);
  }

  std::optional<Value> equal(const Node& node) const {
    const auto left = evaluate(node.left);
    if (!left) return std::nullopt;
    const auto right = evaluate(node.right);
    if (!right) return std::nullopt;
    if (left->is_null() || right->is_null()) {
      if (left->is_null() && right->is_null()) return Value::of(true);  // IS NULL
      return left->is_null() ? Value{} : Value::of(false);
    }
    const auto order = compare(*left, *right);
    if (!order) return std::nullopt;
    return Value::of(*order == 0);
  }

  std::optional<Value> ordered(const Node& node) const {
    const auto left = evaluate(node.left);
    if (!left || left->is_null()) return left;
    const auto right = evaluate(node.right);
    if (!right || right->is_null()) return right;
    std::optional<int> order;
    if (left->kind == ValueKind::kString && right->kind == ValueKind::kString) {
      // Two properties: ordered as numbers, or not at all.
      const auto l = parse_double(left->string);
      const auto r = parse_double(right->string);
      if (!l || !r) return std::nullopt;
      order = compare_doubles(*l, *r);
    } else {
      order = compare(*left, *right);
    }
    if (!order) return std::nullopt;
    switch (node.kind) {
      case NodeKind::kGreater: return Value::of(*order > 0);
      case NodeKind::kGreaterEqual: return Value::of(*order >= 0);
      case NodeKind::kLess: return Value::of(*order < 0);
      default: return Value::of(*order <= 0);
    }
  }

  // CONTAINS, STARTSWITH, ENDSWITH: FALSE (negated or not) for NULL, a non-string or an empty
  // side, as in RocketMQ.
  std::optional<Value> text_test(const Node& node) const {
    const auto v = evaluate(node.left);
    if (!v) return std::nullopt;
    if (v->kind != ValueKind::kString || v->string.empty() || node.text.empty()) return Value::of(false);
    bool found = false;
    if (node.kind == NodeKind::kContains) found = v->string.find(node.text) != std::string_view::npos;
    if (node.kind == NodeKind::kStartsWith) found = v->string.starts_with(node.text);
    if (node.kind == NodeKind::kEndsWith) found = v->string.ends_with(node.text);
    return Value::of(found != node.negated);
  }

  // RocketMQ's comparison of two non-null values: a string meeting a number or a boolean is
  // converted to its type (nullopt when it cannot be), a long meeting a double becomes a double,
  // and a boolean meeting a number is below it.
  static std::optional<int> compare(const Value& l, const Value& r) {
    if (l.kind == r.kind) {
      switch (l.kind) {
        case ValueKind::kBoolean: return three_way(l.boolean, r.boolean);
        case ValueKind::kLong: return three_way(l.long_value, r.long_value);
        case ValueKind::kDouble: return compare_doubles(l.double_value, r.double_value);
        case ValueKind::kString: return three_way(l.string, r.string);
        case ValueKind::kNull: return 0;
      }
    }
    if (l.kind == ValueKind::kString) {
      const auto converted = convert(l.string, r.kind);
      if (!converted) return std::nullopt;
      return compare(*converted, r);
    }
    if (r.kind == ValueKind::kString) {
      const auto converted = convert(r.string, l.kind);
      if (!converted) return std::nullopt;
      return compare(l, *converted);
    }
    if (l.is_number() && r.is_number()) {
      const double a = l.kind == ValueKind::kLong ? static_cast<double>(l.long_value) : l.double_value;
      const double b = r.kind == ValueKind::kLong ? static_cast<double>(r.long_value) : r.double_value;
      return compare_doubles(a, b);
    }
    return -1;
  }

  static std::optional<Value> convert(std::string_view text, ValueKind to) {
    switch (to) {
      case ValueKind::kLong: {
        const auto v = parse_long(text);
        return v ? std::optional<Value>(Value::of(*v)) : std::nullopt;
      }
      case ValueKind::kDouble: {
        const auto v = parse_double(text);
        return v ? std::optional<Value>(Value::of(*v)) : std::nullopt;
      }
      case ValueKind::kBoolean:
        return Value::of(parse_boolean(text));
      default:
        return Value::of(text);
    }
  }

  const ExpressionTree& tree_;
  std::string_view properties_;
};

}  // namespace

bool SqlFilter::matches(std::string_view encoded_properties) const noexcept {
  const auto result = Evaluator(*tree_, encoded_properties).evaluate(tree_->root);
  return result && result->is_true();
}

}  // namespace mqkit::filter
