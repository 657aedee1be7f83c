// The broker's request processors, wired in one place.
#include "mqkit/broker/broker_controller.hpp"

namespace mqkit::broker {

plugin::v1::Result<std::shared_ptr<void>> install_processors(BrokerRequestHandler& handler, BrokerContext& context,
                                                             MetadataFiles& files) {
  (void)handler;
  (void)context;
  (void)files;
  return std::shared_ptr<void>();
}

void stop_processor_services(const std::shared_ptr<void>& services) noexcept { (void)services; }

}  // namespace mqkit::broker
