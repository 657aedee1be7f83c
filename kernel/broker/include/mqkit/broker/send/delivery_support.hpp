// What the broker's delivery services (delay levels, timer messages) share: a named thread that
// loops until stopped (plugin::v1::ServiceThread, RocketMQ's ServiceThread); a warning logged
// once while the same failure repeats tick after tick; and the broker's clock.
//
// Threads: RepeatedWarning from one thread only.
#pragma once

#include <cstdint>
#include <string>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/plugin/v1/service_thread.hpp"

namespace mqkit::broker {

// The thread the services run on (plugin-api's, shared with the stores).
using plugin::v1::ServiceThread;

// Logs "<prefix>: <message>" as a broker warning, unless it is the message logged last.
class RepeatedWarning {
 public:
  explicit RepeatedWarning(std::string prefix) : prefix_(std::move(prefix)) {}
  void operator()(const std::string& message);

 private:
  std::string prefix_;
  std::string last_;
};

// The broker's clock (context.clock), or the wall clock where a context has none.
std::int64_t broker_clock_ms(const BrokerContext& context);

}  // namespace mqkit::broker
