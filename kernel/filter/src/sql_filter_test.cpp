#include "mqkit/filter/sql_filter.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "mqkit/filter/sql_filter_cache.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::filter {
namespace {

using plugin::v1::encode_properties;
using plugin::v1::Properties;

// One message's properties, as a stored record carries them.
const std::string kMessage = encode_properties(Properties{
    {"TAGS", "TagA"}, {"region", "eu-west"}, {"price", "15"}, {"weight", "2.5"}, {"flag", "true"},
    {"quote", "it's"}, {"empty", ""}, {"word", "abc"}, {"neg", "-3"}, {"order.id", "42"}, {"big", "12345678901"}});

struct Case {
  const char* expression;
  bool expected;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.expression; }

class SqlFilterMatches : public ::testing::TestWithParam<Case> {};

TEST_P(SqlFilterMatches, AgainstOneMessage) {
  const Case& c = GetParam();
  auto filter = SqlFilter::compile(c.expression);
  ASSERT_TRUE(filter) << filter.status().message();
  EXPECT_EQ(filter->matches(kMessage), c.expected) << c.expression;
}

INSTANTIATE_TEST_SUITE_P(
    Operators, SqlFilterMatches,
    ::testing::Values(
        // Equality on strings, numbers (the property converted to the literal's type), booleans.
        Case{"region = 'eu-west'", true}, Case{"region = 'eu'", false}, Case{"region <> 'eu'", true},
        Case{"price = 15", true}, Case{"price = 15.0", true}, Case{"price <> 15", false}, Case{"15 = price", true},
        Case{"flag = TRUE", true}, Case{"flag = FALSE", false}, Case{"quote = 'it''s'", true},
        Case{"TAGS = 'TagA'", true}, Case{"order.id = 42", true}, Case{"big = 12345678901", true},
        Case{"price = neg", false}, Case{"empty = ''", true},
        // Ordering: numbers only; a property meeting a long must be a long, meeting a double a double.
        Case{"price > 10", true}, Case{"price > 15", false}, Case{"price >= 15", true}, Case{"price < 16", true},
        Case{"price <= 14", false}, Case{"weight > 2", false} /* '2.5' is no long: no match */,
        Case{"weight > 2.0", true}, Case{"weight < 2.6", true}, Case{"price > weight", true},
        Case{"neg < 0", true}, Case{"neg = -3", true}, Case{"-neg = 3", false} /* -'string' is NULL */,
        Case{"price > -1", true}, Case{"price > +14", true}, Case{"price > 1.5E1", false}, Case{"price >= .15e2", true},
        Case{"price > 10L", true},
        // BETWEEN is inclusive.
        Case{"price BETWEEN 15 AND 20", true}, Case{"price BETWEEN 16 AND 20", false},
        Case{"price NOT BETWEEN 16 AND 20", true}, Case{"price NOT BETWEEN 10 AND 20", false},
        Case{"weight BETWEEN 2.5 AND 2.5", true},
        // IN / NOT IN: strings.
        Case{"region IN ('us', 'eu-west')", true}, Case{"region IN ('us')", false},
        Case{"region NOT IN ('us', 'ap')", true}, Case{"TAGS NOT IN ('TagA')", false},
        Case{"price IN ('15')", true},
        // NULL: a missing property never matches a comparison, only IS NULL.
        Case{"missing IS NULL", true}, Case{"missing IS NOT NULL", false}, Case{"region IS NULL", false},
        Case{"region IS NOT NULL", true}, Case{"missing = 'x'", false}, Case{"missing <> 'x'", false},
        Case{"missing > 1", false}, Case{"missing IN ('x')", false}, Case{"missing NOT IN ('x')", false},
        Case{"missing BETWEEN 1 AND 2", false}, Case{"missing NOT BETWEEN 1 AND 2", false},
        Case{"NOT (missing = 'x')", false} /* NOT unknown is unknown */, Case{"empty IS NULL", false},
        // CONTAINS / STARTSWITH / ENDSWITH: FALSE for NULL or empty either way.
        Case{"region CONTAINS 'west'", true}, Case{"region CONTAINS 'east'", false},
        Case{"region NOT CONTAINS 'east'", true}, Case{"region NOT CONTAINS 'west'", false},
        Case{"missing CONTAINS 'a'", false}, Case{"missing NOT CONTAINS 'a'", false},
        Case{"empty NOT CONTAINS 'a'", false}, Case{"region CONTAINS ''", false},
        Case{"region STARTSWITH 'eu'", true}, Case{"region STARTSWITH 'west'", false},
        Case{"region NOT STARTSWITH 'us'", true}, Case{"region ENDSWITH 'west'", true},
        Case{"region ENDSWITH 'eu'", false}, Case{"region NOT ENDSWITH 'eu'", true},
        // Logic, three-valued, with SQL precedence: NOT > AND > OR.
        Case{"price > 10 AND region = 'eu-west'", true}, Case{"price > 10 AND region = 'us'", false},
        Case{"price > 100 OR region = 'eu-west'", true}, Case{"price > 100 OR region = 'us'", false},
        Case{"region = 'us' AND price > 100 OR TAGS = 'TagA'", true},
        Case{"TAGS = 'TagA' OR region = 'us' AND price > 100", true},
        Case{"(TAGS = 'TagA' OR region = 'us') AND price > 100", false},
        Case{"NOT region = 'us' AND price = 15", true}, Case{"NOT (region = 'eu-west' OR price = 1)", false},
        Case{"NOT NOT price = 15", true}, Case{"missing = 'x' OR price = 15", true},
        Case{"missing = 'x' AND price = 1", false}, Case{"missing = 'x' OR price = 1", false},
        Case{"TRUE", true}, Case{"FALSE", false}, Case{"NULL", false}, Case{"TRUE AND NOT FALSE", true},
        Case{"flag", false} /* a property as a condition: strings are never boolean TRUE */,
        // A failed conversion ends the evaluation: no match even where OR would have been true.
        Case{"word > 1", false}, Case{"word = 1 OR price = 15", false}, Case{"price = 15 OR word = 1", true},
        Case{"region > price", false},
        // Keywords are case-insensitive; comments and blanks are skipped.
        Case{"price between 10 and 20 and region in ('eu-west') or false", true},
        Case{"/* c */ price = 15 -- line\n", true}, Case{"\t price\n=\r15 ", true}));

TEST(SqlFilter, DoublesAndNumericStrings) {
  const std::string message = encode_properties(Properties{{"a", " 1.5 "}, {"b", "1e3"}, {"c", "NaN"}, {"d", "2d"}});
  for (const auto& [expression, expected] : std::vector<std::pair<std::string, bool>>{
           {"a = 1.5", true}, {"b > 999.5", true}, {"b = 1000", false} /* not a long */, {"d = 2.0", true},
           {"c > 1.0", true} /* NaN orders above every number, like Java */, {"a < b", true}}) {
    auto filter = SqlFilter::compile(expression);
    ASSERT_TRUE(filter) << filter.status().message();
    EXPECT_EQ(filter->matches(message), expected) << expression;
  }
}

TEST(SqlFilter, NoPropertiesAtAll) {
  auto filter = SqlFilter::compile("a IS NULL AND b IS NULL");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->matches(""));
  EXPECT_EQ(filter->expression(), "a IS NULL AND b IS NULL");
}

struct ErrorCase {
  const char* expression;
  const char* message;  // a part of the error
};
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.expression; }

class SqlFilterRefuses : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SqlFilterRefuses, NamingTheProblemAndWhere) {
  const ErrorCase& c = GetParam();
  auto filter = SqlFilter::compile(c.expression);
  ASSERT_FALSE(filter) << c.expression;
  EXPECT_EQ(filter.status().code(), plugin::v1::StatusCode::kInvalidArgument);
  EXPECT_NE(filter.status().message().find(c.message), std::string::npos)
      << c.expression << " -> " << filter.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    ParseErrors, SqlFilterRefuses,
    ::testing::Values(
        ErrorCase{"", "expected an expression at column 1"},
        ErrorCase{"a = ", "expected an operand after the operator at column 5"},
        ErrorCase{"a = 'x", "unterminated string literal: expected ' at column 7"},
        ErrorCase{"(a = 1", "expected ')' at column 7"},
        ErrorCase{"a = 1 b", "unexpected text after the expression (expected AND, OR, an operator or the end) at column 7"},
        ErrorCase{"a BETWEEN 1 OR 2", "expected AND between the bounds of BETWEEN at column 13"},
        ErrorCase{"a IN 'x'", "expected '(' after IN at column 6"},
        ErrorCase{"a IN (1)", "expected a string literal in the IN list at column 7"},
        ErrorCase{"a IN ('x',)", "expected a string literal in the IN list at column 11"},
        ErrorCase{"a CONTAINS 1", "expected a string literal at column 12"},
        ErrorCase{"a NOT LIKE 'x'", "expected BETWEEN, IN, CONTAINS, STARTSWITH or ENDSWITH after NOT at column 7"},
        ErrorCase{"a IS 1", "expected NULL or NOT NULL after IS at column 6"},
        ErrorCase{"a = 1 AND", "expected a condition at column 10"},
        ErrorCase{"a = 1 OR", "expected an expression after OR at column 9"},
        ErrorCase{"a = 1 /* x", "unterminated comment: expected '*/' at column 11"},
        ErrorCase{"a = 007", "at column 5"},
        ErrorCase{"a = 99999999999999999999", "integer literal 99999999999999999999 is out of range (64-bit) at column 5"},
        ErrorCase{"a = 1\n AND ?", "expected a condition at line 2, column 6"},
        // What RocketMQ refuses while building its tree.
        ErrorCase{"a > 'x'", "'x' cannot be compared with '>': only numbers are ordered at column 3"},
        ErrorCase{"a <= TRUE", "TRUE cannot be compared with '<='"},
        ErrorCase{"(a = 1) > 2", "a condition cannot be compared with '>'"},
        ErrorCase{"a = NULL", "NULL cannot be compared with '=' or '<>': use IS NULL or IS NOT NULL"},
        ErrorCase{"TRUE = 'x'", "TRUE cannot be compared with 'x'"},
        ErrorCase{"a BETWEEN 5 AND 1", "the low bound of BETWEEN (5) exceeds the high bound (1)"},
        ErrorCase{"a BETWEEN NULL AND 1", "the bounds of BETWEEN cannot be NULL"},
        ErrorCase{"a BETWEEN 'a' AND 'b'", "'a' cannot be compared with 'BETWEEN'"},
        ErrorCase{"'x' IN ('x')", "IN tests a property, not 'x'"},
        ErrorCase{"5", "5 is not a condition"}, ErrorCase{"a = 1 AND 'x'", "'x' is not a condition"},
        ErrorCase{"NOT 1", "1 is not a condition"}, ErrorCase{"-'x' = 1", "'x' cannot be negated"},
        ErrorCase{"AND = 1", "expected an expression at column 1"}));

TEST(SqlFilterCache, CompilesOncePerGroupTopicAndExpression) {
  SqlFilterCache cache(/*capacity=*/2);
  const std::string message = encode_properties(Properties{{"a", "2"}});
  auto first = cache.get("g", "T", "a = 2");
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->matches(message));
  // The same pair and expression: the same compiled tree.
  auto again = cache.get("g", "T", "a = 2");
  ASSERT_TRUE(again);
  EXPECT_EQ(&again->expression(), &first->expression());
  // A new expression for the pair replaces the old one.
  auto changed = cache.get("g", "T", "a = 3");
  ASSERT_TRUE(changed);
  EXPECT_FALSE(changed->matches(message));
  EXPECT_EQ(cache.size(), 1u);
  // Failures are cached like filters, with the parser's message.
  auto bad = cache.get("g", "U", "a >");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("at column 4"), std::string::npos) << bad.status().message();
  EXPECT_EQ(cache.size(), 2u);
  // Full: a new pair starts the cache over.
  ASSERT_TRUE(cache.get("h", "T", "a = 2"));
  EXPECT_EQ(cache.size(), 1u);
}

// Found by probing what sql_filter_fuzz_test cannot reach with small mutations: deep nesting
// recursed in the parser, and long AND/OR chains in the evaluator, until the stack overflowed.
std::string repeated(std::string_view part, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += part;
  return out;
}

TEST(SqlFilter, DeepNestingIsRefusedNotOverflowingTheStack) {
  for (const std::string& deep : {repeated("(", 100'000) + "a" + repeated(")", 100'000), repeated("NOT ", 100'000) + "a",
                                  repeated("- ", 100'000) + "a > 1"}) {
    auto filter = SqlFilter::compile(deep);
    ASSERT_FALSE(filter.is_ok());
    EXPECT_NE(filter.status().message().find("nest deeper than 100 levels"), std::string::npos)
        << filter.status().message().substr(filter.status().message().size() - 200);
  }
  auto chain = SqlFilter::compile(repeated("a = '1' OR ", 100'000) + "a = '2'");
  ASSERT_FALSE(chain.is_ok());
  EXPECT_NE(chain.status().message().find("nests deeper than 2000 levels"), std::string::npos);
  // What real filters do stays allowed.
  auto nested = SqlFilter::compile(repeated("(", 50) + "NOT region = 'x'" + repeated(")", 50));
  ASSERT_TRUE(nested.is_ok()) << nested.status().message();
  EXPECT_TRUE(nested->matches(kMessage));
  auto long_chain = SqlFilter::compile(repeated("region = 'x' OR ", 1500) + "region = 'eu-west'");
  ASSERT_TRUE(long_chain.is_ok()) << long_chain.status().message();
  EXPECT_TRUE(long_chain->matches(kMessage));
}

}  // namespace
}  // namespace mqkit::filter
