// What every queue selector must do, run against each built-in selector plugin.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "selector_test_util.hpp"

namespace mqkit::plugins::selectors::testing {
namespace {

struct SelectorCase {
  const char* name;
  std::vector<const char*> aliases;
  // round_robin and machine_room steer away from unavailable brokers. hash and random do not, by
  // RocketMQ's design: an application's MessageQueueSelector owns the choice (moving an order key
  // to another queue would break its ordering), and selector sends are not retried elsewhere.
  bool honours_availability;
};

void PrintTo(const SelectorCase& c, std::ostream* out) { *out << c.name; }

const std::vector<SelectorCase>& all_cases() {
  static const std::vector<SelectorCase> cases = {
      {"round_robin", {}, true},
      {"hash",
       {"SelectMessageQueueByHash",
        "org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash"},
       false},
      {"random",
       {"SelectMessageQueueByRandom",
        "org.apache.rocketmq.client.producer.selector.SelectMessageQueueByRandom"},
       false},
      {"machine_room",
       {"SelectMessageQueueByMachineRoom",
        "org.apache.rocketmq.client.producer.selector.SelectMessageQueueByMachineRoom"},
       true},
  };
  return cases;
}

std::vector<SelectorCase> built_cases() {
  std::vector<SelectorCase> built;
  for (const auto& c : all_cases()) {
    if (is_built(c.name)) built.push_back(c);
  }
  return built;
}

// Arguments of every kind, so that the hash selector (which needs one) is exercised fully and
// the others are shown to accept any.
v1::SelectArgument argument_for(int i) {
  switch (i % 3) {
    case 0:
      return v1::SelectArgument::int32(i * 7919 - 50'000);
    case 1:
      return v1::SelectArgument::int64(static_cast<std::int64_t>(i) * 3'000'000'017LL);
    default:
      return v1::SelectArgument::string("key-" + std::to_string(i));
  }
}

class SelectorConformance : public ::testing::TestWithParam<SelectorCase> {
 protected:
  void SetUp() override {
    selector_ = mqkit::testing::load_plugin<v1::QueueSelector>(GetParam().name);
    ASSERT_NE(selector_, nullptr);
  }

  std::shared_ptr<v1::QueueSelector> selector_;
};

TEST_P(SelectorConformance, ReturnsAValidIndexForOneToSixteenQueues) {
  for (int n = 1; n <= 16; ++n) {
    const auto queues = make_queues({{"broker-a", (n + 1) / 2}, {"broker-b", n / 2}});
    ASSERT_EQ(queues.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < 64; ++i) {
      const std::size_t picked = select_ok(*selector_, queues, context_with(argument_for(i)));
      ASSERT_LT(picked, queues.size()) << "n=" << n << " i=" << i;
    }
  }
}

TEST_P(SelectorConformance, EmptyRouteIsInvalidArgument) {
  const std::vector<v1::MessageQueue> none;
  auto picked = selector_->select(none, context_with(v1::SelectArgument::int32(1)));
  ASSERT_FALSE(picked.is_ok());
  EXPECT_EQ(picked.status().code(), v1::StatusCode::kInvalidArgument);
  EXPECT_NE(picked.status().message().find("no queues"), std::string::npos)
      << picked.status().message();
}

TEST_P(SelectorConformance, WithoutArgumentEitherPicksOrSaysInvalidArgument) {
  const auto queues = make_queues(4);
  auto picked = selector_->select(queues, context_with(v1::SelectArgument::none()));
  if (picked.is_ok()) {
    EXPECT_LT(*picked, queues.size());
  } else {
    EXPECT_EQ(picked.status().code(), v1::StatusCode::kInvalidArgument);
    EXPECT_FALSE(picked.status().message().empty());
  }
}

TEST_P(SelectorConformance, IsSafeToCallFromManyThreads) {
  const auto queues = make_queues({{"broker-a", 4}, {"broker-b", 4}, {"broker-c", 3}});
  const FakeAvailability availability({"broker-b"});
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10'000; ++i) {
        v1::SelectContext context = context_with(argument_for(t * 10'000 + i), t % 2 ? "T" : "U");
        if (i % 5 == 0) context.last_failed_broker = "broker-a";
        if (i % 3 == 0) context.availability = &availability;
        auto picked = selector_->select(queues, context);
        if (!picked.is_ok() || *picked >= queues.size()) failures.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(SelectorConformance, NeverPicksAnUnavailableBrokerWhenAnotherIsAvailable) {
  if (!GetParam().honours_availability) {
    GTEST_SKIP() << GetParam().name
                 << " ignores broker availability by RocketMQ design (application selector)";
  }
  const auto queues = make_queues({{"broker-a", 3}, {"broker-b", 2}, {"broker-c", 4}});
  for (const auto& down : std::vector<std::set<std::string, std::less<>>>{
           {"broker-a"}, {"broker-a", "broker-c"}, {"broker-b", "broker-c"}}) {
    const FakeAvailability availability(down);
    for (int i = 0; i < 200; ++i) {
      v1::SelectContext context = context_with(argument_for(i));
      context.availability = &availability;
      const std::size_t picked = select_ok(*selector_, queues, context);
      ASSERT_LT(picked, queues.size());
      EXPECT_TRUE(availability.is_available(queues[picked].broker_name))
          << "picked " << queues[picked].to_string();
    }
  }
}

TEST_P(SelectorConformance, StillPicksWhenNoBrokerIsAvailable) {
  const auto queues = make_queues({{"broker-a", 2}, {"broker-b", 2}});
  const FakeAvailability availability({"broker-a", "broker-b"});
  for (int i = 0; i < 50; ++i) {
    v1::SelectContext context = context_with(argument_for(i));
    context.availability = &availability;
    context.last_failed_broker = "broker-a";
    EXPECT_LT(select_ok(*selector_, queues, context), queues.size());
  }
}

TEST_P(SelectorConformance, EveryAliasLoadsTheSamePlugin) {
  const auto& canonical = typeid(*selector_);
  for (const char* alias : GetParam().aliases) {
    auto by_alias = mqkit::testing::load_plugin<v1::QueueSelector>(alias);
    ASSERT_NE(by_alias, nullptr) << alias;
    EXPECT_EQ(typeid(*by_alias), canonical) << alias;
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltIn, SelectorConformance, ::testing::ValuesIn(built_cases()),
                         [](const ::testing::TestParamInfo<SelectorCase>& param) {
                           return std::string(param.param.name);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SelectorConformance);

}  // namespace
}  // namespace mqkit::plugins::selectors::testing
