// FaultStrategy: remembers which brokers were slow or failing and says which are available.
// The producer reports every send attempt's latency to it and consults it when choosing a
// queue (RocketMQ's LatencyFaultTolerance / MQFaultStrategy). Thread-safe: many sending
// threads call it concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mqkit::plugin::v1 {

// A read-only view of broker availability, handed to selectors.
class BrokerAvailability {
 public:
  virtual bool is_available(std::string_view broker_name) const noexcept = 0;

 protected:
  ~BrokerAvailability() = default;
};

class FaultStrategy : public BrokerAvailability {
 public:
  virtual ~FaultStrategy() = default;

  // Records the outcome of a send to `broker_name`. `latency_ms` is how long the attempt took;
  // `isolation` is true when the attempt failed with an error (the broker is then isolated as
  // if it had answered with the strategy's configured failure latency).
  virtual void update(std::string_view broker_name, std::int64_t latency_ms,
                      bool isolation) noexcept = 0;

  // When no broker is available, the broker least bad to try anyway (RocketMQ's
  // pickOneAtLeast), or nullopt when the strategy knows no broker.
  virtual std::optional<std::string> pick_one_at_least() noexcept = 0;

  // Forgets a broker (it left the route).
  virtual void remove(std::string_view broker_name) noexcept = 0;

  // Escape hatch for additions after v1 froze (see ABI_POLICY.md); nullptr when unknown.
  virtual void* extension(std::string_view /*id*/) noexcept { return nullptr; }
};

}  // namespace mqkit::plugin::v1
