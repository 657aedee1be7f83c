#include "queue_broker.hpp"

namespace mqkit::client {

Result<std::string> master_of(ClientInstance& instance, const MessageQueue& queue) {
  std::string address = instance.find_broker_master(queue.broker_name);
  if (address.empty()) {
    (void)instance.update_route(queue.topic);
    address = instance.find_broker_master(queue.broker_name);
  }
  if (address.empty()) {
    return Status::unavailable("the master of broker " + queue.broker_name + " (queue " + queue.to_string() +
                               ") is not known");
  }
  return address;
}

}  // namespace mqkit::client

namespace mqkit::client {

Result<BrokerAddress> pull_broker_of(ClientInstance& instance, const MessageQueue& queue) {
  auto broker = instance.find_broker(queue.broker_name, 0, false);
  if (!broker) {
    (void)instance.update_route(queue.topic);
    broker = instance.find_broker(queue.broker_name, 0, false);
  }
  if (!broker) {
    return Status::unavailable("no address of broker " + queue.broker_name + " (queue " + queue.to_string() +
                               ") is known");
  }
  return *broker;
}

}  // namespace mqkit::client
