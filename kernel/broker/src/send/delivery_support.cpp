#include "mqkit/broker/send/delivery_support.hpp"

#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::broker {

void RepeatedWarning::operator()(const std::string& message) {
  if (message == last_) return;
  last_ = message;
  kernel::logger("broker")->warn("{}: {}", prefix_, message);
}

std::int64_t broker_clock_ms(const BrokerContext& context) {
  return context.clock ? context.clock() : kernel::wall_clock_ms();
}

}  // namespace mqkit::broker
