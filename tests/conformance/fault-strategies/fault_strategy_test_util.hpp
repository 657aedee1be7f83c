// Helpers shared by the fault-strategy conformance and parity tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/plugin.hpp"
#include "plugin_fixture.hpp"

namespace mqkit::plugins::fault_strategies::testing {

namespace v1 = ::mqkit::plugin::v1;

// Whether the build produced strategy `name` (MQKIT_PLUGIN_FAULT_STRATEGY_<NAME> may switch it
// off).
inline bool is_built(std::string_view name) {
  return ("," + std::string(MQKIT_BUILT_FAULT_STRATEGIES) + ",")
             .find("," + std::string(name) + ",") != std::string::npos;
}

inline std::shared_ptr<v1::FaultStrategy> load_strategy(
    std::string_view name, const std::map<std::string, std::string>& config = {}) {
  return mqkit::testing::load_plugin<v1::FaultStrategy>(name, config);
}

}  // namespace mqkit::plugins::fault_strategies::testing
