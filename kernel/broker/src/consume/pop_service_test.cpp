// popState.json's codec (pop_state.hpp): PopService's ledgers as the broker saves them.
#include "pop_state.hpp"

#include <gtest/gtest.h>

#include "mutation_testing.hpp"

namespace mqkit::broker {

// Readable failures: a ledger as "next N, in flight {offset: pop time, visible at, deliveries}".
void PrintTo(const PopLedger& ledger, std::ostream* out) {
  *out << "next " << ledger.next_offset << ", in flight {";
  for (const auto& [offset, entry] : ledger.in_flight) {
    *out << " " << offset << ": " << entry.pop_time << ", " << entry.visible_at << ", " << entry.deliveries << ";";
  }
  *out << " }";
}

namespace {

TEST(PopStateTest, EncodesEveryLedgerAndDecodesItBack) {
  PopLedgers ledgers;
  ledgers[{"g", "T", 0}] = PopLedger{.next_offset = 12,
                                     .in_flight = {{9, {.pop_time = 1000, .visible_at = 61000, .deliveries = 2}},
                                                   {11, {.pop_time = 2000, .visible_at = 62000, .deliveries = 1}}}};
  ledgers[{"g \"quoted\" ü", "%RETRY%x", 7}] = PopLedger{.next_offset = 3, .in_flight = {}};
  const std::string encoded = encode_pop_state(ledgers);
  EXPECT_EQ(encoded.substr(0, encoded.find("},{\"group\"") + 1),
            R"({"version":1,"ledgers":[{"group":"g","topic":"T","queueId":0,"nextOffset":12,"inFlight":[)"
            R"({"offset":9,"popTime":1000,"visibleAt":61000,"deliveries":2},)"
            R"({"offset":11,"popTime":2000,"visibleAt":62000,"deliveries":1}]})");
  const auto decoded = decode_pop_state(encoded);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, ledgers);
  EXPECT_EQ(decode_pop_state(encode_pop_state({})).value_or(ledgers), PopLedgers{});
}

TEST(PopStateTest, RefusesADocumentItDidNotWriteSayingWhatIsWrong) {
  const auto error_of = [](std::string_view json) { return decode_pop_state(json).status().message(); };
  EXPECT_NE(error_of(R"({"version":1,"ledgers":[)").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"version":2,"ledgers":[]})").find("version 2"), std::string::npos);
  EXPECT_NE(error_of(R"({"ledgers":[]})").find("\"version\""), std::string::npos);
  EXPECT_NE(error_of(R"({"version":1,"ledgers":[{"group":"g","queueId":0,"nextOffset":1,"inFlight":[]}]})")
                .find("ledgers[0]: \"topic\" must be a string"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"version":1,"ledgers":[{"group":"g","topic":"T","queueId":0,"nextOffset":1,"inFlight":[)"
                     R"({"offset":0,"popTime":1,"visibleAt":2,"deliveries":0}]}]})")
                .find("ledgers[0] inFlight[0]: \"deliveries\" must be at least 1"),
            std::string::npos);
  EXPECT_NE(error_of("[]").find("not a JSON object"), std::string::npos);
}

// popState.json is read back from disk: whatever it holds decodes, or is refused saying why.
TEST(PopStateTest, DecoderSurvivesCorruptionAndWhatDecodesRoundTrips) {
  static constexpr std::string_view kTokens[] = {"{", "}", "[", "]", "\"", ":", ",", "null", "-1", "2147483648",
                                                 "\"inFlight\"", "\"deliveries\"", "\"queueId\"", "\"version\""};
  const auto check = [](std::span<const std::uint8_t> input) -> std::optional<std::string> {
    const auto decoded = decode_pop_state(mqkit::testing::text_of(input));
    if (!decoded.is_ok()) return mqkit::testing::value_or_explained_error(decoded, "decode_pop_state");
    const std::string first = encode_pop_state(*decoded);
    const auto again = decode_pop_state(first);
    if (!again.is_ok()) return "re-encoded " + first + " does not decode: " + again.status().to_string();
    if (encode_pop_state(*again) != first) return "round trip changed " + first;
    return std::nullopt;
  };
  PopLedgers ledgers;
  ledgers[{"g", "T", 0}] = PopLedger{.next_offset = 5, .in_flight = {{4, {.pop_time = 1, .visible_at = 2, .deliveries = 3}}}};
  ledgers[{"h", "U", 1}] = PopLedger{.next_offset = 0, .in_flight = {}};
  const std::vector<mqkit::testing::Bytes> seeds = {mqkit::testing::bytes_of(encode_pop_state(ledgers))};
  EXPECT_EQ(mqkit::testing::check_seeds_truncations_and_mutations(seeds, check, {.iterations = 4000, .dictionary = kTokens}),
            std::nullopt);
}

}  // namespace
}  // namespace mqkit::broker
