// PopService's state across a broker restart: popState.json's codec, and the document one service
// writes taken back by the next, over the same store and consumer offsets.
#include "pop_service.hpp"

#include <gtest/gtest.h>

#include "consume_test_support.hpp"
#include "mqkit/broker/consumer_offset_manager.hpp"
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

namespace v1 = plugin::v1;
using testing::TestMessage;

constexpr std::int64_t kInvisibleMs = 10'000;

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

class PopServiceRestartTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::create_topic(context(), "T", 2); }

  BrokerContext& context() { return harness_.context(); }

  void put(std::int32_t queue_id, const std::string& body) {
    testing::append(context(), TestMessage{"T", queue_id, body, "", "", ""});
  }

  static PopRequest request(std::int32_t queue_id, std::int32_t max_messages = 32) {
    return PopRequest{.group = "g", .topic = "T", .queue_id = queue_id, .max_messages = max_messages,
                      .invisible_ms = kInvisibleMs, .read_queue_nums = 2};
  }

  PopOutcome pop(PopService& service, const PopRequest& popping) {
    auto outcome = service.pop(popping);
    EXPECT_TRUE(outcome.is_ok()) << outcome.status().to_string();
    return outcome.is_ok() ? *std::move(outcome) : PopOutcome{};
  }

  // The broker stopping and starting again: the state saved, a new service taking it back.
  std::shared_ptr<PopService> restart(PopService& before) {
    const v1::Status saved = before.persist();
    EXPECT_TRUE(saved.is_ok()) << saved.to_string();
    auto after = std::make_shared<PopService>(context(), harness_.files());
    const v1::Status loaded = after->load();
    EXPECT_TRUE(loaded.is_ok()) << loaded.to_string();
    return after;
  }

  std::int64_t committed(std::int32_t queue_id) { return context().offsets->query("g", "T", queue_id).value_or(-1); }

  // Each popped message's body and reconsume times.
  static std::vector<std::pair<std::string, std::int32_t>> deliveries(const PopOutcome& outcome) {
    std::vector<std::pair<std::string, std::int32_t>> out;
    for (const auto& slice : outcome.records) {
      auto record = v1::decode_record(slice.bytes);
      EXPECT_TRUE(record.is_ok()) << record.status().to_string();
      if (record) out.emplace_back(testing::body_of(*record), record->reconsume_times);
    }
    return out;
  }

  testing::BrokerHarness harness_;
  std::shared_ptr<PopService> service_ = std::make_shared<PopService>(harness_.context(), harness_.files());
};

TEST_F(PopServiceRestartTest, InFlightMessagesStayInvisibleUntilTheirTimeAndTheirReceiptsStillAck) {
  put(0, "acked");
  put(0, "redelivered");
  harness_.wait_dispatched();
  const PopOutcome popped = pop(*service_, request(0));
  ASSERT_EQ(popped.records.size(), 2U);

  const auto restarted = restart(*service_);
  EXPECT_TRUE(pop(*restarted, request(-1)).records.empty()) << "delivered again before its invisible time";
  EXPECT_EQ(restarted->next_visible("g", "T"), popped.pop_time + kInvisibleMs);
  EXPECT_TRUE(restarted->ack("g", "T", 0, 0, popped.pop_time)) << "a receipt from before the restart";
  EXPECT_EQ(committed(0), 1);

  harness_.now() += kInvisibleMs + 1;
  EXPECT_EQ(deliveries(pop(*restarted, request(-1))),
            (std::vector<std::pair<std::string, std::int32_t>>{{"redelivered", 1}}));
}

TEST_F(PopServiceRestartTest, DeliveriesKeepCountingTowardsTheDlqAcrossARestart) {
  PopRequest popping = request(0);
  popping.retry_max_times = 1;
  put(0, "poison");
  harness_.wait_dispatched();
  ASSERT_EQ(pop(*service_, popping).records.size(), 1U);
  harness_.now() += kInvisibleMs + 1;
  ASSERT_EQ(deliveries(pop(*service_, popping)), (std::vector<std::pair<std::string, std::int32_t>>{{"poison", 1}}));

  const auto restarted = restart(*service_);
  harness_.now() += kInvisibleMs + 1;
  EXPECT_TRUE(pop(*restarted, popping).records.empty()) << "a third delivery, beyond 1 + retry_max_times";
  harness_.wait_dispatched();
  EXPECT_EQ(context().store->max_offset("%DLQ%g", 0), 1);
  EXPECT_EQ(committed(0), 1);
}

// An admin may set retryMaxTimes to any int; the largest means retry (nearly) for ever, not
// "1 + retry_max_times" wrapping below zero and sending every redelivery to the DLQ.
TEST_F(PopServiceRestartTest, TheLargestRetryMaxTimesKeepsRedelivering) {
  PopRequest popping = request(0);
  popping.retry_max_times = std::numeric_limits<std::int32_t>::max();
  put(0, "again");
  harness_.wait_dispatched();
  ASSERT_EQ(pop(*service_, popping).records.size(), 1U);
  for (int redelivery = 1; redelivery <= 3; ++redelivery) {
    harness_.now() += kInvisibleMs + 1;
    EXPECT_EQ(deliveries(pop(*service_, popping)), (std::vector<std::pair<std::string, std::int32_t>>{{"again", redelivery}}));
  }
  harness_.wait_dispatched();
  EXPECT_EQ(context().store->max_offset("%DLQ%g", 0), 0);
}

TEST_F(PopServiceRestartTest, DeliveriesBelowTheCommittedOffsetAreDroppedAndPopsStartNoLowerThanIt) {
  for (const char* body : {"q0-0", "q0-1", "q0-2", "q0-3"}) put(0, body);
  for (const char* body : {"q1-0", "q1-1", "q1-2"}) put(1, body);
  harness_.wait_dispatched();
  const PopOutcome popped0 = pop(*service_, request(0));
  ASSERT_EQ(popped0.records.size(), 4U);
  ASSERT_EQ(pop(*service_, request(1, 1)).records.size(), 1U);
  ASSERT_TRUE(service_->persist().is_ok());
  // After the save, before the crash: queue 0's first two acked, all of queue 1 popped and acked.
  context().offsets->commit("g", "T", 0, 2);
  context().offsets->commit("g", "T", 1, 3);

  auto restarted = std::make_shared<PopService>(context(), harness_.files());
  ASSERT_TRUE(restarted->load().is_ok());
  EXPECT_FALSE(restarted->ack("g", "T", 0, 1, popped0.pop_time)) << "acked before the crash: no longer in flight";
  EXPECT_TRUE(restarted->ack("g", "T", 0, 2, popped0.pop_time));
  put(1, "q1-3");
  harness_.wait_dispatched();
  harness_.now() += kInvisibleMs + 1;
  EXPECT_EQ(deliveries(pop(*restarted, request(0))), (std::vector<std::pair<std::string, std::int32_t>>{{"q0-3", 1}}));
  EXPECT_EQ(deliveries(pop(*restarted, request(1))), (std::vector<std::pair<std::string, std::int32_t>>{{"q1-3", 0}}));
}

TEST_F(PopServiceRestartTest, SavesOnlyWhenSomethingChanged) {
  const auto saved = [this] { return harness_.files().load(std::string(kPopStateFile)).value(); };
  ASSERT_TRUE(service_->persist().is_ok());
  EXPECT_FALSE(saved().has_value()) << "nothing popped yet";
  put(0, "m");
  harness_.wait_dispatched();
  const PopOutcome popped = pop(*service_, request(0));
  ASSERT_TRUE(service_->persist().is_ok());
  ASSERT_TRUE(saved().has_value());
  EXPECT_NE(saved()->find("\"inFlight\":[{\"offset\":0"), std::string::npos) << *saved();

  ASSERT_TRUE(harness_.files().save(std::string(kPopStateFile), "untouched").is_ok());
  EXPECT_TRUE(pop(*service_, request(-1)).records.empty());
  ASSERT_TRUE(service_->persist().is_ok());
  EXPECT_EQ(saved(), "untouched") << "a pop that found nothing changed nothing";
  ASSERT_TRUE(service_->ack("g", "T", 0, 0, popped.pop_time));
  ASSERT_TRUE(service_->persist().is_ok());
  EXPECT_NE(saved()->find("\"inFlight\":[]"), std::string::npos) << *saved();
}

TEST_F(PopServiceRestartTest, ACorruptDocumentIsRefusedNamingItAndAMissingOneIsAnEmptyState) {
  put(0, "m");
  harness_.wait_dispatched();
  ASSERT_TRUE(service_->load().is_ok());
  EXPECT_EQ(pop(*service_, request(0)).records.size(), 1U);

  ASSERT_TRUE(harness_.files().save(std::string(kPopStateFile), R"({"version":1,"ledgers":[{"group":"g"}]})").is_ok());
  PopService refusing(context(), harness_.files());
  const v1::Status refused = refusing.load();
  EXPECT_EQ(refused.code(), v1::StatusCode::kCorruption);
  EXPECT_NE(refused.message().find("popState.json: ledgers[0]: \"topic\" must be a string"), std::string::npos)
      << refused.to_string();
}

}  // namespace
}  // namespace mqkit::broker
