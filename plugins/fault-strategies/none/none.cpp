// none: fault tolerance off (RocketMQ's default, sendLatencyFaultEnable=false). Every broker is
// always available, so the selector only steers away from the broker of a failed attempt.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::fault_strategies {

namespace v1 = ::mqkit::plugin::v1;

class None final : public v1::FaultStrategy {
 public:
  static v1::Result<std::unique_ptr<None>> create(const v1::ConfigValues& /*config*/,
                                                  v1::Host& /*host*/) {
    return std::make_unique<None>();
  }

  bool is_available(std::string_view /*broker_name*/) const noexcept override { return true; }
  void update(std::string_view /*broker_name*/, std::int64_t /*latency_ms*/,
              bool /*isolation*/) noexcept override {}
  // Knows no broker, so has none to suggest.
  std::optional<std::string> pick_one_at_least() noexcept override { return std::nullopt; }
  void remove(std::string_view /*broker_name*/) noexcept override {}
};

constexpr const char* kAliases[] = {"None", "disabled", nullptr};
constexpr std::span<const v1::ConfigField> kSchema{};

}  // namespace mqkit::plugins::fault_strategies

MQKIT_PLUGIN(FaultStrategy, ::mqkit::plugins::fault_strategies::None, "none",
             ::mqkit::plugins::fault_strategies::kAliases, "1.0.0",
             "No fault tolerance: every broker is always available",
             ::mqkit::plugins::fault_strategies::kSchema)
