// AllocateMessageQueueByMachineRoom: consumers only take queues on brokers in their own machine
// rooms (IDCs), e.g. Alipay's logical rooms. Broker names follow "<room>@<name>"; the queues
// whose room is in `consumer_idcs` are shared out in blocks of |kept| / consumers, and the
// |kept| % consumers left over at the end go one each to the first consumers.
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocators/common/allocate_checks.hpp"
#include "allocators/common/machine_room.hpp"
#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::allocators {

class ByMachineRoom final : public QueueAllocator {
 public:
  static Result<std::unique_ptr<ByMachineRoom>> create(const ConfigValues& config, Host& host) {
    RoomSet rooms;
    for (const std::string& room : config.get_list("consumer_idcs")) {
      if (!room.empty()) rooms.insert(room);
    }
    if (rooms.empty()) {
      host.log(LogLevel::kWarn, "by_machine_room",
               "consumer_idcs is empty: this consumer will own no queues");
    }
    return std::unique_ptr<ByMachineRoom>(new ByMachineRoom(std::move(rooms)));
  }

  AllocateResult allocate(const AllocateContext& context) noexcept override {
    return allocate_checked(context, [&](std::size_t index) -> AllocateResult {
      std::vector<const MessageQueue*> kept;
      for (const MessageQueue& queue : context.all_queues) {
        if (in_consumer_rooms(queue.broker_name)) kept.push_back(&queue);
      }
      const std::size_t consumer_count = context.all_client_ids.size();
      const std::size_t block = kept.size() / consumer_count;
      const std::size_t leftover = kept.size() % consumer_count;
      std::vector<MessageQueue> owned;
      for (std::size_t position = index * block; position < index * block + block; ++position) {
        owned.push_back(*kept[position]);
      }
      if (index < leftover) owned.push_back(*kept[block * consumer_count + index]);
      return owned;
    });
  }

 private:
  using RoomSet = std::set<std::string, std::less<>>;

  explicit ByMachineRoom(RoomSet rooms) : rooms_(std::move(rooms)) {}

  // RocketMQ requires brokerName.split("@") to have exactly two parts; Java's split drops a
  // trailing empty part, so "room@a@b" and "room@" belong to no room.
  bool in_consumer_rooms(std::string_view broker_name) const noexcept {
    const auto parsed = split_room_qualified_name(broker_name);
    if (!parsed || parsed->name.empty() || parsed->name.find('@') != std::string_view::npos) {
      return false;
    }
    return rooms_.contains(parsed->room);
  }

  RoomSet rooms_;
};

constexpr const char* kAliases[] = {
    "AllocateMessageQueueByMachineRoom",
    "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom",
    "MACHINE_ROOM",
    nullptr,
};
constexpr ConfigField kSchema[] = {
    {.key = "consumer_idcs",
     .type = ValueType::kStringList,
     .default_value = "",
     .description = "Machine rooms this consumer group serves (RocketMQ consumeridcs); only "
                    "queues on brokers named \"<room>@<name>\" with a listed room are allocated"},
};

}  // namespace mqkit::plugins::allocators

MQKIT_PLUGIN(QueueAllocator, mqkit::plugins::allocators::ByMachineRoom, "by_machine_room",
             mqkit::plugins::allocators::kAliases, "1.0.0",
             "RocketMQ MACHINE_ROOM: blocks of the queues on brokers in the consumer's rooms",
             mqkit::plugins::allocators::kSchema)
