// The SQL92 filter grammar (PEGTL) and the actions that build the expression tree. The only
// translation unit that includes PEGTL.
//
// Precedence, loosest first: OR, AND, NOT, = <> IS [NOT] NULL, the comparisons (< <= > >=,
// [NOT] BETWEEN, [NOT] IN, [NOT] CONTAINS/STARTSWITH/ENDSWITH), unary - and +. Keywords are
// case-insensitive. The checks RocketMQ makes while building its tree are made here too, so an
// expression it refuses is refused at compile time with the position of the offending operator.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include <tao/pegtl.hpp>

#include "expression_tree.hpp"
#include "mqkit/filter/sql_filter.hpp"

namespace mqkit::filter {

namespace {

namespace peg = tao::pegtl;
using detail::Constant;
using detail::ExpressionTree;
using detail::Node;
using detail::NodeKind;
using detail::ValueKind;

namespace grammar {

struct line_comment : peg::seq<peg::two<'-'>, peg::until<peg::eolf>> {};
struct comment_end : peg::until<peg::string<'*', '/'>> {};
struct block_comment : peg::if_must<peg::string<'/', '*'>, comment_end> {};
struct ws : peg::star<peg::sor<peg::space, line_comment, block_comment>> {};

struct id_first : peg::sor<peg::alpha, peg::one<'_', '$'>> {};
struct id_other : peg::sor<peg::alnum, peg::one<'_', '$', '.'>> {};
template <typename Word>
struct keyword : peg::seq<Word, peg::not_at<id_other>> {};

struct kw_not : keyword<TAO_PEGTL_ISTRING("NOT")> {};
struct kw_and : keyword<TAO_PEGTL_ISTRING("AND")> {};
struct kw_or : keyword<TAO_PEGTL_ISTRING("OR")> {};
struct kw_between : keyword<TAO_PEGTL_ISTRING("BETWEEN")> {};
struct kw_in : keyword<TAO_PEGTL_ISTRING("IN")> {};
struct kw_true : keyword<TAO_PEGTL_ISTRING("TRUE")> {};
struct kw_false : keyword<TAO_PEGTL_ISTRING("FALSE")> {};
struct kw_null : keyword<TAO_PEGTL_ISTRING("NULL")> {};
struct kw_is : keyword<TAO_PEGTL_ISTRING("IS")> {};
struct kw_contains : keyword<TAO_PEGTL_ISTRING("CONTAINS")> {};
struct kw_startswith : keyword<TAO_PEGTL_ISTRING("STARTSWITH")> {};
struct kw_endswith : keyword<TAO_PEGTL_ISTRING("ENDSWITH")> {};
struct any_keyword : peg::sor<kw_not, kw_and, kw_or, kw_between, kw_in, kw_true, kw_false, kw_null, kw_is, kw_contains,
                              kw_startswith, kw_endswith> {};

struct property : peg::seq<peg::not_at<any_keyword>, id_first, peg::star<id_other>> {};

struct string_end : peg::one<'\''> {};
struct string_literal
    : peg::seq<peg::one<'\''>, peg::star<peg::sor<peg::two<'\''>, peg::not_one<'\''>>>, peg::must<string_end>> {};
struct exponent : peg::seq<peg::one<'e', 'E'>, peg::opt<peg::one<'+', '-'>>, peg::plus<peg::digit>> {};
struct float_literal
    : peg::seq<peg::sor<peg::seq<peg::plus<peg::digit>, peg::one<'.'>, peg::star<peg::digit>, peg::opt<exponent>>,
                        peg::seq<peg::one<'.'>, peg::plus<peg::digit>, peg::opt<exponent>>,
                        peg::seq<peg::plus<peg::digit>, exponent>>,
               peg::not_at<id_other>> {};
struct long_literal : peg::seq<peg::sor<peg::one<'0'>, peg::seq<peg::range<'1', '9'>, peg::star<peg::digit>>>,
                               peg::opt<peg::one<'l', 'L'>>, peg::not_at<id_other>> {};
struct true_literal : kw_true {};
struct false_literal : kw_false {};
struct null_literal : kw_null {};

struct or_expr;
struct close_paren : peg::one<')'> {};
struct paren : peg::if_must<peg::one<'('>, ws, or_expr, ws, close_paren> {};
struct primary : peg::sor<float_literal, long_literal, string_literal, true_literal, false_literal, null_literal,
                          property, paren> {};
struct operand;
struct negate : peg::if_must<peg::one<'-'>, ws, operand> {};
struct positive : peg::if_must<peg::one<'+'>, ws, operand> {};
struct operand : peg::sor<negate, positive, primary> {};

struct text_operand : string_literal {};
struct greater_equal : peg::if_must<peg::string<'>', '='>, ws, operand> {};
struct greater : peg::if_must<peg::one<'>'>, ws, operand> {};
struct less_equal : peg::if_must<peg::string<'<', '='>, ws, operand> {};
struct less : peg::if_must<peg::seq<peg::one<'<'>, peg::not_at<peg::one<'>'>>>, ws, operand> {};
struct between_and : kw_and {};
struct between_rest : peg::seq<ws, peg::must<operand>, ws, peg::must<between_and>, ws, peg::must<operand>> {};
struct between : peg::seq<kw_between, between_rest> {};
struct not_between : peg::seq<kw_between, between_rest> {};
struct in_open : peg::one<'('> {};
struct in_item : string_literal {};
struct in_next : peg::one<',', ')'> {};
struct in_rest : peg::seq<ws, peg::must<in_open>, ws, peg::must<in_item>,
                          peg::star<ws, peg::one<','>, ws, peg::must<in_item>>, ws, peg::must<close_paren>> {};
struct in : peg::seq<kw_in, in_rest> {};
struct not_in : peg::seq<kw_in, in_rest> {};
template <typename Word>
struct text_test : peg::seq<Word, ws, peg::must<text_operand>> {};
struct contains : text_test<kw_contains> {};
struct not_contains : text_test<kw_contains> {};
struct starts_with : text_test<kw_startswith> {};
struct not_starts_with : text_test<kw_startswith> {};
struct ends_with : text_test<kw_endswith> {};
struct not_ends_with : text_test<kw_endswith> {};
struct negated_test : peg::sor<not_between, not_in, not_contains, not_starts_with, not_ends_with> {};
struct comparison_tail : peg::sor<greater_equal, greater, less_equal, less, between, in, contains, starts_with,
                                  ends_with, peg::if_must<kw_not, ws, negated_test>> {};
struct comparison : peg::seq<operand, peg::star<ws, comparison_tail>> {};

struct is_not_null : peg::seq<kw_not, ws, kw_null> {};
struct is_null : kw_null {};
struct null_test : peg::sor<is_not_null, is_null> {};
struct equal : peg::if_must<peg::one<'='>, ws, comparison> {};
struct not_equal : peg::if_must<peg::string<'<', '>'>, ws, comparison> {};
struct is_test : peg::if_must<kw_is, ws, null_test> {};
struct equality : peg::seq<comparison, peg::star<ws, peg::sor<equal, not_equal, is_test>>> {};

struct condition;
struct negation : peg::if_must<kw_not, ws, condition> {};
struct condition : peg::sor<negation, equality> {};
struct and_tail : peg::if_must<kw_and, ws, condition> {};
struct and_expr : peg::seq<condition, peg::star<ws, and_tail>> {};
struct or_tail : peg::if_must<kw_or, ws, and_expr> {};
struct or_expr : peg::seq<and_expr, peg::star<ws, or_tail>> {};
struct end_of_expression : peg::eof {};
struct expression : peg::seq<ws, peg::must<or_expr>, ws, peg::must<end_of_expression>> {};

// What a failed must<> reports, by rule.
template <typename Rule>
inline constexpr const char* error_message = "syntax error";
template <> inline constexpr const char* error_message<comment_end> = "unterminated comment: expected '*/'";
template <> inline constexpr const char* error_message<string_end> = "unterminated string literal: expected '";
template <> inline constexpr const char* error_message<close_paren> = "expected ')'";
template <> inline constexpr const char* error_message<operand> =
    "expected an operand (a property name, a literal or '(')";
template <> inline constexpr const char* error_message<or_expr> = "expected an expression";
template <> inline constexpr const char* error_message<and_expr> = "expected an expression after OR";
template <> inline constexpr const char* error_message<condition> = "expected a condition";
template <> inline constexpr const char* error_message<comparison> = "expected an operand after the operator";
template <> inline constexpr const char* error_message<between_and> = "expected AND between the bounds of BETWEEN";
template <> inline constexpr const char* error_message<in_open> = "expected '(' after IN";
template <> inline constexpr const char* error_message<in_item> = "expected a string literal in the IN list";
template <> inline constexpr const char* error_message<text_operand> = "expected a string literal";
template <> inline constexpr const char* error_message<negated_test> =
    "expected BETWEEN, IN, CONTAINS, STARTSWITH or ENDSWITH after NOT";
template <> inline constexpr const char* error_message<null_test> = "expected NULL or NOT NULL after IS";
template <> inline constexpr const char* error_message<end_of_expression> =
    "unexpected text after the expression (expected AND, OR, an operator or the end)";

struct errors {
  template <typename Rule>
  static constexpr bool raise_on_failure = false;
  template <typename Rule>
  static constexpr const char* message = error_message<Rule>;
};

template <typename Rule>
using base_control = typename peg::must_if<errors, peg::normal, false>::template control<Rule>;

// Parentheses, NOT and signs recurse in the parser, once per level: an expression of a hundred
// thousand '(' would overflow the stack. Real filters nest a few levels.
inline constexpr int kMaxNesting = 100;

template <typename Rule>
struct control : base_control<Rule> {};

template <typename Rule>
struct nesting_control : base_control<Rule> {
  template <typename Input, typename State>
  static void start(const Input& in, State& state) {
    if (++state.nesting > kMaxNesting) {
      throw peg::parse_error("parentheses, NOT and signs nest deeper than " + std::to_string(kMaxNesting) + " levels",
                             in);
    }
    base_control<Rule>::start(in, state);
  }
  template <typename Input, typename State>
  static void success(const Input& in, State& state) {
    --state.nesting;
    base_control<Rule>::success(in, state);
  }
  template <typename Input, typename State>
  static void failure(const Input& in, State& state) {
    --state.nesting;
    base_control<Rule>::failure(in, state);
  }
};
template <> struct control<paren> : nesting_control<paren> {};
template <> struct control<negate> : nesting_control<negate> {};
template <> struct control<positive> : nesting_control<positive> {};
template <> struct control<negation> : nesting_control<negation> {};

}  // namespace grammar

// The tree under construction: finished operands wait on a stack until their operator is parsed.
// Every action runs once its rule has matched completely, and a rule that matched is never
// rewound (the grammar commits with must<> after each operator), so the stack stays exact.
// Evaluation recurses once per level of the tree, and a chain of N ANDs or ORs is N levels deep:
// deeper trees are refused rather than left to overflow the stack of the thread that filters.
inline constexpr std::int32_t kMaxTreeDepth = 2000;

struct TooDeep {};

struct Builder {
  ExpressionTree tree;
  std::vector<std::int32_t> operands;
  std::vector<std::size_t> in_list_starts;
  std::vector<std::int32_t> depths;  // by node index
  int nesting = 0;                   // parser recursion, see grammar::nesting_control

  std::int32_t add(Node node) {
    const auto depth_of = [&](std::int32_t index) { return index < 0 ? 0 : depths[static_cast<std::size_t>(index)]; };
    const std::int32_t depth = 1 + std::max(depth_of(node.left), depth_of(node.right));
    if (depth > kMaxTreeDepth) throw TooDeep{};
    depths.push_back(depth);
    tree.nodes.push_back(std::move(node));
    return static_cast<std::int32_t>(tree.nodes.size() - 1);
  }
  void push(Node node) { operands.push_back(add(std::move(node))); }
  std::int32_t pop() {
    const std::int32_t index = operands.back();
    operands.pop_back();
    return index;
  }
  const Node& node(std::int32_t index) const { return tree.nodes[static_cast<std::size_t>(index)]; }
};

Node constant_node(Constant constant) {
  Node node;
  node.kind = NodeKind::kConstant;
  node.constant = std::move(constant);
  return node;
}

Node binary_node(NodeKind kind, std::int32_t left, std::int32_t right) {
  Node node;
  node.kind = kind;
  node.left = left;
  node.right = right;
  return node;
}

Node unary_node(NodeKind kind, std::int32_t operand) { return binary_node(kind, operand, -1); }

bool is_constant(const Node& node) { return node.kind == NodeKind::kConstant; }

// RocketMQ's BooleanExpression: conditions, and the TRUE/FALSE/NULL literals.
bool is_condition(const Node& node) {
  switch (node.kind) {
    case NodeKind::kConstant:
      return node.constant.kind == ValueKind::kBoolean || node.constant.kind == ValueKind::kNull;
    case NodeKind::kProperty:
    case NodeKind::kNegate:
      return false;
    default:
      return true;
  }
}

std::string describe(const Node& node) {
  if (node.kind == NodeKind::kProperty) return "property " + node.text;
  if (!is_constant(node)) return is_condition(node) ? "a condition" : "a negated value";
  switch (node.constant.kind) {
    case ValueKind::kNull: return "NULL";
    case ValueKind::kBoolean: return node.constant.boolean ? "TRUE" : "FALSE";
    case ValueKind::kLong: return std::to_string(node.constant.long_value);
    case ValueKind::kDouble: return std::to_string(node.constant.double_value);
    case ValueKind::kString: return "'" + node.constant.string + "'";
  }
  return "a value";
}

template <typename Input>
[[noreturn]] void fail(const std::string& message, const Input& in) {
  throw peg::parse_error(message, in);
}

// An operand of AND, OR or NOT, or the whole expression: a condition, or a property tested for
// being a boolean TRUE (RocketMQ's boolean cast).
template <typename Input>
std::int32_t as_condition(Builder& b, std::int32_t index, const Input& in) {
  const Node& node = b.node(index);
  if (is_condition(node)) return index;
  if (node.kind == NodeKind::kProperty) return b.add(unary_node(NodeKind::kBooleanCast, index));
  fail(describe(node) + " is not a condition (it will not result in a boolean value)", in);
}

// < <= > >= compare numbers: a literal operand must be a number, and no operand a condition.
template <typename Input>
void check_ordered_operand(const Builder& b, std::int32_t index, std::string_view op, const Input& in) {
  const Node& node = b.node(index);
  const bool number = is_constant(node) && (node.constant.kind == ValueKind::kLong ||
                                            node.constant.kind == ValueKind::kDouble);
  if (!number && (is_constant(node) || is_condition(node))) {
    fail(describe(node) + " cannot be compared with '" + std::string(op) + "': only numbers are ordered", in);
  }
}

template <typename Input>
void check_equal_operands(const Builder& b, std::int32_t left, std::int32_t right, const Input& in) {
  for (const std::int32_t index : {left, right}) {
    const Node& node = b.node(index);
    if (is_constant(node) && node.constant.kind == ValueKind::kNull) {
      fail("NULL cannot be compared with '=' or '<>': use IS NULL or IS NOT NULL", in);
    }
  }
  const Node& l = b.node(left);
  const Node& r = b.node(right);
  if (is_constant(l) && is_constant(r) && l.constant.kind == ValueKind::kBoolean &&
      r.constant.kind != ValueKind::kBoolean) {
    fail(describe(l) + " cannot be compared with " + describe(r), in);
  }
}

template <typename Input>
std::int32_t ordered(Builder& b, NodeKind kind, std::string_view op, std::int32_t left, std::int32_t right,
                     const Input& in) {
  check_ordered_operand(b, left, op, in);
  check_ordered_operand(b, right, op, in);
  return b.add(binary_node(kind, left, right));
}

std::string decode_string_literal(std::string_view quoted) {
  std::string out;
  out.reserve(quoted.size());
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
    out.push_back(quoted[i]);
    if (quoted[i] == '\'') ++i;  // '' stands for one quote
  }
  return out;
}

template <typename Rule>
struct action : peg::nothing<Rule> {};

// 42, 42L (64-bit) and 1.5, .5, 1e3 (double); beyond their range is refused.
template <ValueKind Kind>
struct number_literal_action {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    constexpr bool kIsLong = Kind == ValueKind::kLong;
    std::string_view text = in.string_view();
    if (kIsLong && (text.back() == 'l' || text.back() == 'L')) text.remove_suffix(1);
    Constant c;
    c.kind = Kind;
    const char* const last = text.data() + text.size();
    const auto [end, error] = kIsLong ? std::from_chars(text.data(), last, c.long_value)
                                      : std::from_chars(text.data(), last, c.double_value);
    if (error != std::errc{} || end != last || !std::isfinite(c.double_value)) {
      fail((kIsLong ? "integer literal " : "floating point literal ") + std::string(text) + " is out of range" +
               (kIsLong ? " (64-bit)" : ""),
           in);
    }
    b.push(constant_node(std::move(c)));
  }
};
template <> struct action<grammar::long_literal> : number_literal_action<ValueKind::kLong> {};
template <> struct action<grammar::float_literal> : number_literal_action<ValueKind::kDouble> {};

template <>
struct action<grammar::string_literal> {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    Constant c;
    c.kind = ValueKind::kString;
    c.string = decode_string_literal(in.string_view());
    b.push(constant_node(std::move(c)));
  }
};

template <> struct action<grammar::text_operand> : action<grammar::string_literal> {};
template <> struct action<grammar::in_item> : action<grammar::string_literal> {};

// TRUE, FALSE, NULL.
template <ValueKind Kind, bool Boolean = false>
struct keyword_literal_action {
  template <typename Input>
  static void apply(const Input&, Builder& b) {
    Constant c;
    c.kind = Kind;
    c.boolean = Boolean;
    b.push(constant_node(std::move(c)));
  }
};
template <> struct action<grammar::true_literal> : keyword_literal_action<ValueKind::kBoolean, true> {};
template <> struct action<grammar::false_literal> : keyword_literal_action<ValueKind::kBoolean> {};
template <> struct action<grammar::null_literal> : keyword_literal_action<ValueKind::kNull> {};

template <>
struct action<grammar::property> {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    Node node;
    node.kind = NodeKind::kProperty;
    node.text = in.string();
    b.push(std::move(node));
  }
};

template <>
struct action<grammar::negate> {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::int32_t operand = b.pop();
    const Node& node = b.node(operand);
    if (is_condition(node) || (is_constant(node) && node.constant.kind == ValueKind::kString)) {
      fail(describe(node) + " cannot be negated with '-': only numbers can", in);
    }
    b.operands.push_back(b.add(unary_node(NodeKind::kNegate, operand)));
  }
};

template <>
struct action<grammar::positive> {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const Node& node = b.node(b.operands.back());
    if (is_condition(node) || (is_constant(node) && node.constant.kind == ValueKind::kString)) {
      fail(describe(node) + " cannot take a '+' sign: only numbers can", in);
    }
  }
};

template <NodeKind Kind>
struct ordered_action {
  static constexpr std::string_view op = Kind == NodeKind::kGreater        ? ">"
                                         : Kind == NodeKind::kGreaterEqual ? ">="
                                         : Kind == NodeKind::kLess         ? "<"
                                                                           : "<=";
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::int32_t right = b.pop();
    const std::int32_t left = b.pop();
    b.operands.push_back(ordered(b, Kind, op, left, right, in));
  }
};
template <> struct action<grammar::greater> : ordered_action<NodeKind::kGreater> {};
template <> struct action<grammar::greater_equal> : ordered_action<NodeKind::kGreaterEqual> {};
template <> struct action<grammar::less> : ordered_action<NodeKind::kLess> {};
template <> struct action<grammar::less_equal> : ordered_action<NodeKind::kLessEqual> {};

// RocketMQ's BETWEEN: the bounds, when literals, must not be NULL and low must not exceed high.
template <typename Input>
void check_between_bounds(const Builder& b, std::int32_t low, std::int32_t high, const Input& in) {
  const Node& l = b.node(low);
  const Node& h = b.node(high);
  if (!is_constant(l) || !is_constant(h)) return;
  if (l.constant.kind == ValueKind::kNull || h.constant.kind == ValueKind::kNull) {
    fail("the bounds of BETWEEN cannot be NULL", in);
  }
  const auto as_double = [](const Constant& c) {
    return c.kind == ValueKind::kLong ? static_cast<double>(c.long_value) : c.double_value;
  };
  const bool both_long = l.constant.kind == ValueKind::kLong && h.constant.kind == ValueKind::kLong;
  const bool numbers = (l.constant.kind == ValueKind::kLong || l.constant.kind == ValueKind::kDouble) &&
                       (h.constant.kind == ValueKind::kLong || h.constant.kind == ValueKind::kDouble);
  if (!numbers) return;  // the ordered-operand check names the problem
  const bool reversed = both_long ? l.constant.long_value > h.constant.long_value
                                  : as_double(l.constant) > as_double(h.constant);
  if (reversed) fail("the low bound of BETWEEN (" + describe(l) + ") exceeds the high bound (" + describe(h) + ")", in);
}

// v BETWEEN low AND high is low <= v AND v <= high; NOT BETWEEN is v < low OR v > high (RocketMQ
// checks the bounds of BETWEEN only).
template <bool Negated>
struct between_action {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::int32_t high = b.pop();
    const std::int32_t low = b.pop();
    const std::int32_t value = b.pop();
    if (!Negated) check_between_bounds(b, low, high, in);
    constexpr std::string_view op = Negated ? "NOT BETWEEN" : "BETWEEN";
    const std::int32_t against_low =
        ordered(b, Negated ? NodeKind::kLess : NodeKind::kGreaterEqual, op, value, low, in);
    const std::int32_t against_high =
        ordered(b, Negated ? NodeKind::kGreater : NodeKind::kLessEqual, op, value, high, in);
    b.operands.push_back(b.add(binary_node(Negated ? NodeKind::kOr : NodeKind::kAnd, against_low, against_high)));
  }
};
template <> struct action<grammar::between> : between_action<false> {};
template <> struct action<grammar::not_between> : between_action<true> {};

template <>
struct action<grammar::in_open> {
  template <typename Input>
  static void apply(const Input&, Builder& b) {
    b.in_list_starts.push_back(b.operands.size());
  }
};

template <bool Negated>
struct in_action {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::size_t start = b.in_list_starts.back();
    b.in_list_starts.pop_back();
    Node node;
    node.kind = NodeKind::kIn;
    node.negated = Negated;
    for (std::size_t i = start; i < b.operands.size(); ++i) {
      node.strings.push_back(b.node(b.operands[i]).constant.string);
    }
    b.operands.resize(start);
    std::sort(node.strings.begin(), node.strings.end());
    node.left = b.pop();
    if (b.node(node.left).kind != NodeKind::kProperty) {
      fail("IN tests a property, not " + describe(b.node(node.left)), in);
    }
    b.push(std::move(node));
  }
};
template <> struct action<grammar::in> : in_action<false> {};
template <> struct action<grammar::not_in> : in_action<true> {};

template <NodeKind Kind, bool Negated>
struct text_test_action {
  template <typename Input>
  static void apply(const Input&, Builder& b) {
    Node node;
    node.kind = Kind;
    node.negated = Negated;
    node.text = b.node(b.pop()).constant.string;
    node.left = b.pop();
    b.push(std::move(node));
  }
};
template <> struct action<grammar::contains> : text_test_action<NodeKind::kContains, false> {};
template <> struct action<grammar::not_contains> : text_test_action<NodeKind::kContains, true> {};
template <> struct action<grammar::starts_with> : text_test_action<NodeKind::kStartsWith, false> {};
template <> struct action<grammar::not_starts_with> : text_test_action<NodeKind::kStartsWith, true> {};
template <> struct action<grammar::ends_with> : text_test_action<NodeKind::kEndsWith, false> {};
template <> struct action<grammar::not_ends_with> : text_test_action<NodeKind::kEndsWith, true> {};

template <bool Negated>
struct equality_action {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::int32_t right = b.pop();
    const std::int32_t left = b.pop();
    check_equal_operands(b, left, right, in);
    const std::int32_t equal = b.add(binary_node(NodeKind::kEqual, left, right));
    b.operands.push_back(Negated ? b.add(unary_node(NodeKind::kNot, equal)) : equal);
  }
};
template <> struct action<grammar::equal> : equality_action<false> {};
template <> struct action<grammar::not_equal> : equality_action<true> {};

template <bool Negated>
struct null_test_action {
  template <typename Input>
  static void apply(const Input&, Builder& b) {
    const std::int32_t value = b.pop();
    const std::int32_t null = b.add(constant_node(Constant{}));
    const std::int32_t is_null = b.add(binary_node(NodeKind::kEqual, value, null));
    b.operands.push_back(Negated ? b.add(unary_node(NodeKind::kNot, is_null)) : is_null);
  }
};
template <> struct action<grammar::is_null> : null_test_action<false> {};
template <> struct action<grammar::is_not_null> : null_test_action<true> {};

template <>
struct action<grammar::negation> {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::int32_t operand = as_condition(b, b.pop(), in);
    b.operands.push_back(b.add(unary_node(NodeKind::kNot, operand)));
  }
};

template <NodeKind Kind>
struct logic_action {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    const std::int32_t right = as_condition(b, b.pop(), in);
    const std::int32_t left = as_condition(b, b.pop(), in);
    b.operands.push_back(b.add(binary_node(Kind, left, right)));
  }
};
template <> struct action<grammar::and_tail> : logic_action<NodeKind::kAnd> {};
template <> struct action<grammar::or_tail> : logic_action<NodeKind::kOr> {};

template <>
struct action<grammar::expression> {
  template <typename Input>
  static void apply(const Input& in, Builder& b) {
    b.tree.root = as_condition(b, b.pop(), in);
  }
};

}  // namespace

plugin::v1::Result<SqlFilter> SqlFilter::compile(std::string_view expression) {
  peg::memory_input<> in(expression.data(), expression.size(), "SQL92 expression");
  Builder builder;
  builder.tree.expression = std::string(expression);
  try {
    peg::parse<grammar::expression, action, grammar::control>(in, builder);
  } catch (const TooDeep&) {
    return plugin::v1::Status::invalid_argument("SQL92 expression nests deeper than " + std::to_string(kMaxTreeDepth) +
                                                " levels (each AND or OR of a chain is one level; IN takes a long list)");
  } catch (const peg::parse_error& e) {
    const peg::position& at = e.positions().front();
    std::string where = at.line > 1 ? "line " + std::to_string(at.line) + ", column " : "column ";
    return plugin::v1::Status::invalid_argument("SQL92 expression '" + std::string(expression) + "': " +
                                                std::string(e.message()) + " at " + where +
                                                std::to_string(at.column));
  }
  return SqlFilter(std::make_shared<const ExpressionTree>(std::move(builder.tree)));
}

const std::string& SqlFilter::expression() const noexcept { return tree_->expression; }

}  // namespace mqkit::filter
