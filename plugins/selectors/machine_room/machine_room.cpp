// machine_room: send to brokers in the producer's own machine room (data centre) when there are
// any. RocketMQ's SelectMessageQueueByMachineRoom is a stub that returns null; this one works,
// using the "<room>@<broker>" broker naming that AllocateMachineRoomNearby also relies on.
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/plugin.hpp"
#include "selectors/common/queue_rotation.hpp"

namespace mqkit::plugins::selectors {

namespace v1 = ::mqkit::plugin::v1;

class MachineRoom final : public v1::QueueSelector {
 public:
  static v1::Result<std::unique_ptr<MachineRoom>> create(const v1::ConfigValues& config,
                                                         v1::Host& /*host*/) {
    const std::string& room = config.get_string("machine_room");
    // No room configured: every queue is local, which makes this plain round robin.
    std::string prefix = room.empty() ? std::string() : room + config.get_string("room_separator");
    return std::make_unique<MachineRoom>(std::move(prefix));
  }

  explicit MachineRoom(std::string local_prefix) : local_prefix_(std::move(local_prefix)) {}

  // Round robin over the local room's queues; when the local room has none, or none on an
  // available broker, the other rooms' queues (see pick_in_rotation for the exact order).
  v1::Result<std::size_t> select(std::span<const v1::MessageQueue> queues,
                                 const v1::SelectContext& context) noexcept override {
    if (queues.empty()) {
      return v1::Status::invalid_argument("machine_room selector: the topic has no queues");
    }
    return pick_in_rotation(queues, context, index_.next(context.topic),
                            [this](const v1::MessageQueue& queue) {
                              return std::string_view(queue.broker_name).starts_with(local_prefix_);
                            });
  }

 private:
  const std::string local_prefix_;
  ThreadLocalIndex index_;
};

constexpr const char* kAliases[] = {
    "SelectMessageQueueByMachineRoom",
    "org.apache.rocketmq.client.producer.selector.SelectMessageQueueByMachineRoom", nullptr};

constexpr v1::ConfigField kSchema[] = {
    {.key = "machine_room",
     .type = v1::ValueType::kString,
     .default_value = "",
     .description = "The producer's machine room; queues of brokers named "
                    "\"<machine_room><room_separator>...\" are preferred (empty: no preference)"},
    {.key = "room_separator",
     .type = v1::ValueType::kString,
     .default_value = "@",
     .description = "What follows the room in a broker name (\"room-a@broker-1\"); empty means "
                    "the room is a plain prefix of the broker name"},
};

}  // namespace mqkit::plugins::selectors

MQKIT_PLUGIN(QueueSelector, ::mqkit::plugins::selectors::MachineRoom, "machine_room",
             ::mqkit::plugins::selectors::kAliases, "1.0.0",
             "Round robin over the local machine room's brokers, falling back to all brokers",
             ::mqkit::plugins::selectors::kSchema)
