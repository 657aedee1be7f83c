// What every fault strategy must do, run against each built-in fault-strategy plugin.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "fault_strategy_test_util.hpp"

namespace mqkit::plugins::fault_strategies::testing {
namespace {

struct StrategyCase {
  const char* name;
  std::vector<const char*> aliases;
};

void PrintTo(const StrategyCase& c, std::ostream* out) { *out << c.name; }

std::vector<StrategyCase> built_cases() {
  const std::vector<StrategyCase> all = {
      {"latency_fault_tolerance",
       {"LatencyFaultTolerance", "LatencyFaultToleranceImpl",
        "org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl", "MQFaultStrategy",
        "org.apache.rocketmq.client.latency.MQFaultStrategy"}},
      {"none", {"None", "disabled"}},
  };
  std::vector<StrategyCase> built;
  for (const auto& c : all) {
    if (is_built(c.name)) built.push_back(c);
  }
  return built;
}

class FaultStrategyConformance : public ::testing::TestWithParam<StrategyCase> {
 protected:
  void SetUp() override {
    strategy_ = load_strategy(GetParam().name);
    ASSERT_NE(strategy_, nullptr);
  }
  std::shared_ptr<v1::FaultStrategy> strategy_;
};

TEST_P(FaultStrategyConformance, UnknownBrokerIsAvailable) {
  EXPECT_TRUE(strategy_->is_available("broker-never-seen"));
  EXPECT_TRUE(strategy_->is_available(""));
}

TEST_P(FaultStrategyConformance, FastSendKeepsTheBrokerAvailable) {
  strategy_->update("broker-a", 10, /*isolation=*/false);
  EXPECT_TRUE(strategy_->is_available("broker-a"));
  strategy_->update("broker-b", 0, /*isolation=*/false);
  strategy_->update("broker-c", -5, /*isolation=*/false);  // a clock step must not hurt
  EXPECT_TRUE(strategy_->is_available("broker-b"));
  EXPECT_TRUE(strategy_->is_available("broker-c"));
}

TEST_P(FaultStrategyConformance, ReportsOnOneBrokerDoNotAffectAnother) {
  strategy_->update("broker-a", 20'000, /*isolation=*/true);
  EXPECT_TRUE(strategy_->is_available("broker-b"));
}

TEST_P(FaultStrategyConformance, RemoveForgetsTheBroker) {
  strategy_->update("broker-a", 20'000, /*isolation=*/true);
  strategy_->remove("broker-a");
  EXPECT_TRUE(strategy_->is_available("broker-a"));
  strategy_->remove("broker-never-seen");  // harmless
}

TEST_P(FaultStrategyConformance, PickOneAtLeastNamesOnlyKnownBrokers) {
  EXPECT_EQ(strategy_->pick_one_at_least(), std::nullopt);
  strategy_->update("broker-a", 10, false);
  strategy_->update("broker-b", 20'000, true);
  for (int i = 0; i < 10; ++i) {
    const auto picked = strategy_->pick_one_at_least();
    if (picked) {
      EXPECT_TRUE(*picked == "broker-a" || *picked == "broker-b") << *picked;
    }
  }
  strategy_->remove("broker-a");
  strategy_->remove("broker-b");
  EXPECT_EQ(strategy_->pick_one_at_least(), std::nullopt);
}

TEST_P(FaultStrategyConformance, IsSafeToCallFromManyThreads) {
  std::atomic<int> bad_picks{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5'000; ++i) {
        const std::string broker = "broker-" + std::to_string((t + i) % 6);
        switch (i % 5) {
          case 0:
            strategy_->update(broker, i % 700, false);
            break;
          case 1:
            strategy_->update(broker, i, true);
            break;
          case 2:
            (void)strategy_->is_available(broker);
            break;
          case 3: {
            const auto picked = strategy_->pick_one_at_least();
            if (picked && picked->rfind("broker-", 0) != 0) bad_picks.fetch_add(1);
            break;
          }
          default:
            if (i % 50 == 4) strategy_->remove(broker);
            break;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(bad_picks.load(), 0);
}

TEST_P(FaultStrategyConformance, EveryAliasLoadsTheSamePlugin) {
  const auto& canonical = typeid(*strategy_);
  for (const char* alias : GetParam().aliases) {
    auto by_alias = load_strategy(alias);
    ASSERT_NE(by_alias, nullptr) << alias;
    EXPECT_EQ(typeid(*by_alias), canonical) << alias;
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltIn, FaultStrategyConformance, ::testing::ValuesIn(built_cases()),
                         [](const ::testing::TestParamInfo<StrategyCase>& param) {
                           return std::string(param.param.name);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FaultStrategyConformance);

// ---- none: fault tolerance off ----

TEST(NoneStrategy, EveryBrokerStaysAvailable) {
  if (!is_built("none")) GTEST_SKIP() << "fault strategy 'none' is switched off in this build";
  auto strategy = load_strategy("disabled");
  ASSERT_NE(strategy, nullptr);
  strategy->update("broker-a", 60'000, /*isolation=*/true);
  strategy->update("broker-b", 5'000, /*isolation=*/false);
  EXPECT_TRUE(strategy->is_available("broker-a"));
  EXPECT_TRUE(strategy->is_available("broker-b"));
  EXPECT_EQ(strategy->pick_one_at_least(), std::nullopt);
}

}  // namespace
}  // namespace mqkit::plugins::fault_strategies::testing
