// Helpers shared by the selector conformance and parity tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/plugin.hpp"
#include "plugin_fixture.hpp"

namespace mqkit::plugins::selectors::testing {

namespace v1 = ::mqkit::plugin::v1;

// Whether the build produced selector `name` (MQKIT_PLUGIN_SELECTOR_<NAME> may switch it off).
inline bool is_built(std::string_view name) {
  return ("," + std::string(MQKIT_BUILT_SELECTORS) + ",").find("," + std::string(name) + ",") !=
         std::string::npos;
}

#define MQKIT_REQUIRE_SELECTOR(name)                                               \
  do {                                                                             \
    if (!::mqkit::plugins::selectors::testing::is_built(name)) {                   \
      GTEST_SKIP() << "selector '" << (name) << "' is switched off in this build"; \
    }                                                                              \
  } while (false)

// Queues of topic "T" in route order: {{"broker-a", 2}, {"broker-b", 3}} gives broker-a 0..1,
// then broker-b 0..2.
inline std::vector<v1::MessageQueue> make_queues(
    std::initializer_list<std::pair<std::string, int>> brokers, std::string topic = "T") {
  std::vector<v1::MessageQueue> queues;
  for (const auto& [broker, count] : brokers) {
    for (int id = 0; id < count; ++id) queues.push_back({topic, broker, id});
  }
  return queues;
}

inline std::vector<v1::MessageQueue> make_queues(int count) {
  return make_queues({{"broker-a", count}});
}

// A fault strategy's view in which the listed brokers are down.
class FakeAvailability final : public v1::BrokerAvailability {
 public:
  explicit FakeAvailability(std::set<std::string, std::less<>> down) : down_(std::move(down)) {}
  bool is_available(std::string_view broker_name) const noexcept override {
    return down_.find(broker_name) == down_.end();
  }

 private:
  std::set<std::string, std::less<>> down_;
};

inline v1::SelectContext context_with(v1::SelectArgument argument, std::string_view topic = "T") {
  v1::SelectContext context;
  context.topic = topic;
  context.argument = std::move(argument);
  return context;
}

// Selects and fails the test (returning SIZE_MAX) when the selector reports an error.
inline std::size_t select_ok(v1::QueueSelector& selector,
                             const std::vector<v1::MessageQueue>& queues,
                             const v1::SelectContext& context) {
  auto picked = selector.select(queues, context);
  if (!picked.is_ok()) {
    ADD_FAILURE() << "select failed: " << picked.status().to_string();
    return SIZE_MAX;
  }
  return *picked;
}

}  // namespace mqkit::plugins::selectors::testing
