// latency_fault_tolerance against RocketMQ's MQFaultStrategy / LatencyFaultToleranceImpl.
//
// Timing: most cases tell table steps apart by configuring a long duration (60 s) for one step
// and 0 for the others, so they need no clock at all. The two cases that wait for a broker to
// come back use durations of a few hundred milliseconds and only assert lower bounds, which the
// monotonic clock guarantees, never how soon.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fault_strategy_test_util.hpp"

namespace mqkit::plugins::fault_strategies::testing {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// RocketMQ 5.x latencyMax.
const std::vector<std::int64_t> kLatencyMax = {50, 100, 550, 1800, 3000, 5000, 15000};

class LatencyFaultToleranceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!is_built("latency_fault_tolerance")) {
      GTEST_SKIP() << "fault strategy 'latency_fault_tolerance' is switched off in this build";
    }
  }

  // A strategy whose table keeps the default latencies but makes only step `long_step` isolate
  // (for a minute); every other step isolates for 0 ms.
  static std::shared_ptr<v1::FaultStrategy> with_only_step_isolating(
      std::size_t long_step, std::map<std::string, std::string> extra = {}) {
    std::string durations;
    for (std::size_t i = 0; i < kLatencyMax.size(); ++i) {
      durations += (i ? "," : "") + std::string(i == long_step ? "60000" : "0");
    }
    extra["not_available_duration_ms"] = durations;
    return load_strategy("latency_fault_tolerance", extra);
  }

  // Waits (bounded) until `broker` is available again; returns how long that took.
  static std::optional<milliseconds> wait_until_available(v1::FaultStrategy& strategy,
                                                          const std::string& broker,
                                                          Clock::time_point since) {
    const auto deadline = Clock::now() + milliseconds(900);
    while (Clock::now() < deadline) {
      if (strategy.is_available(broker)) {
        return std::chrono::duration_cast<milliseconds>(Clock::now() - since);
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
    return std::nullopt;
  }
};

TEST_F(LatencyFaultToleranceTest, DefaultTableIsRocketMq5s) {
  auto strategy = load_strategy("LatencyFaultToleranceImpl");
  ASSERT_NE(strategy, nullptr);
  strategy->update("fast", 49, false);         // step 0: 0 ms
  strategy->update("ok", 549, false);          // step 1: 0 ms
  strategy->update("slow", 550, false);        // step 2: 2000 ms
  strategy->update("slower", 600, false);      // step 2: 2000 ms
  strategy->update("very-slow", 3000, false);  // step 4: 6000 ms
  strategy->update("failed", 1, true);         // counts as 10000 ms: step 5, 10000 ms
  EXPECT_TRUE(strategy->is_available("fast"));
  EXPECT_TRUE(strategy->is_available("ok"));
  EXPECT_FALSE(strategy->is_available("slow"));
  EXPECT_FALSE(strategy->is_available("slower"));
  EXPECT_FALSE(strategy->is_available("very-slow"));
  EXPECT_FALSE(strategy->is_available("failed"));
}

TEST_F(LatencyFaultToleranceTest, LatencyUsesTheLargestStepItReaches) {
  for (std::size_t step = 0; step < kLatencyMax.size(); ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    auto strategy = with_only_step_isolating(step);
    ASSERT_NE(strategy, nullptr);
    strategy->update("at-threshold", kLatencyMax[step], false);
    EXPECT_FALSE(strategy->is_available("at-threshold"));
    const std::int64_t top_of_step =
        step + 1 < kLatencyMax.size() ? kLatencyMax[step + 1] - 1 : 1'000'000;
    strategy->update("top-of-step", top_of_step, false);
    EXPECT_FALSE(strategy->is_available("top-of-step"));
    strategy->update("below", kLatencyMax[step] - 1, false);
    EXPECT_TRUE(strategy->is_available("below"));
    if (step + 1 < kLatencyMax.size()) {
      strategy->update("next-step", kLatencyMax[step + 1], false);
      EXPECT_TRUE(strategy->is_available("next-step"));
    }
  }
}

TEST_F(LatencyFaultToleranceTest, FailureCountsAsTheIsolationLatency) {
  // Default isolation latency 10000 ms falls in step 5 (5000).
  auto by_default = with_only_step_isolating(5);
  ASSERT_NE(by_default, nullptr);
  by_default->update("broker", 3, /*isolation=*/true);
  EXPECT_FALSE(by_default->is_available("broker"));

  // RocketMQ 4.x's 30000 ms would fall in step 6 instead.
  auto four_x = with_only_step_isolating(6, {{"isolation_latency_ms", "30000"}});
  ASSERT_NE(four_x, nullptr);
  four_x->update("broker", 3, /*isolation=*/true);
  EXPECT_FALSE(four_x->is_available("broker"));

  auto step4_only = with_only_step_isolating(4);
  ASSERT_NE(step4_only, nullptr);
  step4_only->update("broker", 3, /*isolation=*/true);
  EXPECT_TRUE(step4_only->is_available("broker"));

  auto isolation_3s = with_only_step_isolating(4, {{"isolation_latency_ms", "3s"}});
  ASSERT_NE(isolation_3s, nullptr);
  isolation_3s->update("broker", 3, /*isolation=*/true);
  EXPECT_FALSE(isolation_3s->is_available("broker"));
}

TEST_F(LatencyFaultToleranceTest, IsolatedBrokerComesBackAfterTheConfiguredDuration) {
  auto strategy = load_strategy("latency_fault_tolerance",
                                {{"not_available_duration_ms", "0,0,100,150,200,300,400"}});
  ASSERT_NE(strategy, nullptr);
  const auto before = Clock::now();
  strategy->update("broker-a", 1, /*isolation=*/true);  // 10000 ms -> step 5 -> 300 ms here
  EXPECT_FALSE(strategy->is_available("broker-a"));
  const auto waited = wait_until_available(*strategy, "broker-a", before);
  ASSERT_TRUE(waited.has_value()) << "still unavailable after 900 ms";
  EXPECT_GE(waited->count(), 300);
}

TEST_F(LatencyFaultToleranceTest, SlowBrokerComesBackAfterItsStepsDuration) {
  auto strategy = load_strategy("latency_fault_tolerance",
                                {{"not_available_duration_ms", "0,0,200,400,600,800,900"}});
  ASSERT_NE(strategy, nullptr);
  const auto before = Clock::now();
  strategy->update("broker-a", 600, false);  // step 2 (550): 200 ms here, 2000 ms by default
  EXPECT_FALSE(strategy->is_available("broker-a"));
  const auto waited = wait_until_available(*strategy, "broker-a", before);
  ASSERT_TRUE(waited.has_value()) << "still unavailable after 900 ms";
  EXPECT_GE(waited->count(), 200);
}

TEST_F(LatencyFaultToleranceTest, LatestReportWins) {
  auto strategy = load_strategy("latency_fault_tolerance");
  ASSERT_NE(strategy, nullptr);
  strategy->update("broker-a", 1, /*isolation=*/true);
  ASSERT_FALSE(strategy->is_available("broker-a"));
  // As Java's updateFaultItem: a fast send restarts the clock with a 0 ms duration.
  strategy->update("broker-a", 10, false);
  EXPECT_TRUE(strategy->is_available("broker-a"));
}

TEST_F(LatencyFaultToleranceTest, PickOneAtLeastWithOneBrokerReturnsIt) {
  auto strategy = load_strategy("latency_fault_tolerance");
  ASSERT_NE(strategy, nullptr);
  EXPECT_EQ(strategy->pick_one_at_least(), std::nullopt);
  strategy->update("broker-a", 1, true);
  EXPECT_EQ(strategy->pick_one_at_least(), "broker-a");
}

TEST_F(LatencyFaultToleranceTest, PickOneAtLeastRotatesOverTheBetterHalf) {
  auto strategy = load_strategy("latency_fault_tolerance");
  ASSERT_NE(strategy, nullptr);
  strategy->update("a-fast", 10, false);
  strategy->update("b-quick", 20, false);
  strategy->update("c-slow", 600, false);
  strategy->update("d-failed", 1, true);
  std::set<std::string> picked;
  for (int i = 0; i < 10; ++i) picked.insert(strategy->pick_one_at_least().value_or("(none)"));
  EXPECT_EQ(picked, (std::set<std::string>{"a-fast", "b-quick"}));
}

TEST_F(LatencyFaultToleranceTest, PickOneAtLeastWithThreeBrokersTakesTheBest) {
  auto strategy = load_strategy("latency_fault_tolerance");
  ASSERT_NE(strategy, nullptr);
  strategy->update("a", 30, false);
  strategy->update("b", 10, false);
  strategy->update("c", 600, false);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(strategy->pick_one_at_least(), "b");
}

TEST_F(LatencyFaultToleranceTest, PickOneAtLeastRanksAvailabilityBeforeLatency) {
  // Here a 10 ms send isolates (step 0 lasts a minute) and a 200 ms one does not.
  auto strategy =
      load_strategy("latency_fault_tolerance",
                    {{"latency_max_ms", "0,100"}, {"not_available_duration_ms", "60000,0"}});
  ASSERT_NE(strategy, nullptr);
  strategy->update("a-fast-but-isolated", 10, false);
  strategy->update("b-slow-but-available", 200, false);
  ASSERT_FALSE(strategy->is_available("a-fast-but-isolated"));
  EXPECT_EQ(strategy->pick_one_at_least(), "b-slow-but-available");
}

TEST_F(LatencyFaultToleranceTest, PickOneAtLeastBreaksLatencyTiesByEarlierRecovery) {
  auto strategy = load_strategy("latency_fault_tolerance");
  ASSERT_NE(strategy, nullptr);
  strategy->update("z-recovers-first", 600, false);
  std::this_thread::sleep_for(milliseconds(2));
  strategy->update("a-recovers-later", 600, false);
  EXPECT_EQ(strategy->pick_one_at_least(), "z-recovers-first");
}

TEST_F(LatencyFaultToleranceTest, RemovedBrokerIsNoLongerPicked) {
  auto strategy = load_strategy("latency_fault_tolerance");
  ASSERT_NE(strategy, nullptr);
  strategy->update("broker-a", 1, true);
  strategy->remove("broker-a");
  EXPECT_TRUE(strategy->is_available("broker-a"));
  EXPECT_EQ(strategy->pick_one_at_least(), std::nullopt);
}

// ---- configuration errors name the key at fault ----

std::string load_error(const std::map<std::string, std::string>& config) {
  auto made = mqkit::testing::try_load_plugin_object(v1::Category::kFaultStrategy,
                                                     "latency_fault_tolerance", config);
  if (made.is_ok()) return "(loaded)";
  EXPECT_EQ(made.status().code(), v1::StatusCode::kInvalidArgument) << made.status().to_string();
  return made.status().message();
}

TEST_F(LatencyFaultToleranceTest, MismatchedTableLengthsAreRejected) {
  const std::string error = load_error({{"not_available_duration_ms", "0,0,200"}});
  EXPECT_NE(error.find("latency_max_ms"), std::string::npos) << error;
  EXPECT_NE(error.find("not_available_duration_ms"), std::string::npos) << error;
  EXPECT_NE(error.find("7 entries"), std::string::npos) << error;
  EXPECT_NE(error.find("has 3"), std::string::npos) << error;
}

TEST_F(LatencyFaultToleranceTest, NonNumericOrNegativeEntriesAreRejected) {
  for (const char* bad : {"0,0,abc,5000,6000,10000,30000", "0,0,-2000,5000,6000,10000,30000",
                          "0,0,2000.5,5000,6000,10000,30000", "0,,2000,5000,6000,10000,30000"}) {
    const std::string error = load_error({{"not_available_duration_ms", bad}});
    EXPECT_NE(error.find("not_available_duration_ms entry"), std::string::npos)
        << bad << " -> " << error;
  }
  const std::string error = load_error({{"latency_max_ms", "50,100,x,1800,3000,5000,15000"}});
  EXPECT_NE(error.find("latency_max_ms entry 2"), std::string::npos) << error;
}

TEST_F(LatencyFaultToleranceTest, LatenciesMustIncrease) {
  const std::string error = load_error({{"latency_max_ms", "50,100,550,550,3000,5000,15000"}});
  EXPECT_NE(error.find("latency_max_ms must be strictly increasing"), std::string::npos) << error;
}

TEST_F(LatencyFaultToleranceTest, EmptyTableIsRejected) {
  const std::string error = load_error({{"latency_max_ms", ""}, {"not_available_duration_ms", ""}});
  EXPECT_NE(error.find("latency_max_ms must list at least one value"), std::string::npos) << error;
}

TEST_F(LatencyFaultToleranceTest, NegativeIsolationLatencyIsRejected) {
  auto made = mqkit::testing::try_load_plugin_object(
      v1::Category::kFaultStrategy, "latency_fault_tolerance", {{"isolation_latency_ms", "-1"}});
  ASSERT_FALSE(made.is_ok());
  EXPECT_NE(made.status().message().find("isolation_latency_ms"), std::string::npos)
      << made.status().message();
}

}  // namespace
}  // namespace mqkit::plugins::fault_strategies::testing
