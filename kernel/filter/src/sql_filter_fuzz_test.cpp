// Robustness of the SQL92 filter against the expressions consumers send (heartbeats, pulls,
// CHECK_CLIENT_CONFIG): seeds, every truncation and deterministic mutations
// (tests/support/mutation_testing.hpp). An expression compiles or is refused with a message, and
// a compiled filter evaluates against any property string.
#include <gtest/gtest.h>

#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mutation_testing.hpp"

namespace mqkit::filter {
namespace {

using mqkit::testing::Bytes;
using mqkit::testing::bytes_of;
using mqkit::testing::text_of;

constexpr std::string_view kSqlTokens[] = {
    " AND ", " OR ", " NOT ", "(", ")", "'", "''", " BETWEEN 1 AND 2", " IN ('a', 'b')", " IS NULL",
    " IS NOT NULL", " CONTAINS 'x'", " STARTSWITH 'x'", " ENDSWITH 'x'", " = ", " <> ", " >= ", " < ", "-", "+",
    "TRUE", "FALSE", "NULL", "9223372036854775807", "9223372036854775808", "1e308", "1e309", ".5", "42L", "/*",
    "*/", "--", "\n", "a.b", "$x", "_"};

const std::vector<std::string> kProperties = {
    "",
    plugin::v1::encode_properties({{"a", "1"}, {"b", "2.5"}, {"region", "eu"}, {"TAGS", "TagA"}, {"flag", "true"}}),
    plugin::v1::encode_properties({{"a", "-9223372036854775808"}, {"b", "NaN"}, {"region", ""}, {"x", "abc"}}),
    "a\x01",
    "\x02\x01\x02a",
};

std::optional<std::string> check_expression(std::span<const std::uint8_t> input) {
  const auto filter = SqlFilter::compile(text_of(input));
  if (!filter.is_ok()) return mqkit::testing::value_or_explained_error(filter, "SqlFilter::compile");
  if (filter->expression() != text_of(input)) return "the compiled filter lost its expression";
  for (const std::string& properties : kProperties) {
    if (filter->matches(properties) != filter->matches(properties)) return "matches() is not deterministic";
  }
  return std::nullopt;
}

TEST(SqlFilterFuzzTest, CompilerAndEvaluatorSurviveCorruptExpressions) {
  const std::vector<Bytes> seeds = {
      bytes_of("region = 'eu' AND (a BETWEEN 1 AND 20 OR TAGS IN ('TagA', 'TagB'))"),
      bytes_of("NOT (b > 2.5) OR flag = TRUE AND x IS NOT NULL"),
      bytes_of("-a < +3 AND region NOT IN ('us') AND x NOT CONTAINS 'b'"),
      bytes_of("x STARTSWITH 'a' OR x ENDSWITH 'c' OR /* note */ a <> 10L -- tail\n"),
      bytes_of("a NOT BETWEEN -5 AND .5e1 AND region <> 'it''s'"),
  };
  EXPECT_EQ(mqkit::testing::check_seeds_truncations_and_mutations(
                seeds, check_expression, {.iterations = 4000, .dictionary = kSqlTokens}),
            std::nullopt);
}

}  // namespace
}  // namespace mqkit::filter
