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

void PullFromWhichNode::update(const MessageQueue& queue, std::int64_t broker_id) {
  std::lock_guard lock(mutex_);
  table_[queue] = broker_id;
}

std::int64_t PullFromWhichNode::of(const MessageQueue& queue) const {
  std::lock_guard lock(mutex_);
  const auto it = table_.find(queue);
  return it == table_.end() ? 0 : it->second;
}

Result<BrokerAddress> pull_broker_of(ClientInstance& instance, const MessageQueue& queue, std::int64_t broker_id) {
  auto broker = instance.find_broker(queue.broker_name, broker_id, false);
  if (!broker) {
    (void)instance.update_route(queue.topic);
    broker = instance.find_broker(queue.broker_name, broker_id, false);
  }
  if (!broker) {
    return Status::unavailable("no address of broker " + queue.broker_name + " (queue " + queue.to_string() +
                               ") is known");
  }
  return *broker;
}

Result<std::string> offset_broker_of(ClientInstance& instance, const MessageQueue& queue) {
  if (auto master = master_of(instance, queue)) return master;  // has refreshed the route
  MQKIT_ASSIGN_OR_RETURN(const BrokerAddress broker, pull_broker_of(instance, queue, 0));
  return broker.address;
}

}  // namespace mqkit::client
