// The compiled form of a SQL92 filter: nodes in one vector, children by index (a subtree may be
// shared: BETWEEN tests its value twice). Built by sql_parser.cpp, evaluated by sql_evaluate.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mqkit::filter::detail {

enum class ValueKind : std::uint8_t { kNull, kBoolean, kLong, kDouble, kString };

// A literal of the expression.
struct Constant {
  ValueKind kind = ValueKind::kNull;
  bool boolean = false;
  std::int64_t long_value = 0;
  double double_value = 0;
  std::string string;
};

enum class NodeKind : std::uint8_t {
  kConstant,
  kProperty,     // name: the property's value, NULL when missing
  kNegate,       // -left; NULL unless left is a number
  kBooleanCast,  // a property used as a condition: TRUE only for a boolean TRUE, which a string never is
  kNot,
  kAnd,
  kOr,
  kEqual,  // also IS NULL (right is the NULL constant)
  kGreater,
  kGreaterEqual,
  kLess,
  kLessEqual,
  kIn,          // left IN (strings); `negated` for NOT IN
  kContains,    // left CONTAINS name; `negated` for NOT CONTAINS
  kStartsWith,  // likewise
  kEndsWith,
};

struct Node {
  NodeKind kind = NodeKind::kConstant;
  bool negated = false;
  std::int32_t left = -1;
  std::int32_t right = -1;
  Constant constant;                // kConstant
  std::string text;                 // kProperty: the name; kContains/kStartsWith/kEndsWith: the operand
  std::vector<std::string> strings;  // kIn, sorted
};

struct ExpressionTree {
  std::string expression;
  std::vector<Node> nodes;
  std::int32_t root = -1;
};

}  // namespace mqkit::filter::detail
