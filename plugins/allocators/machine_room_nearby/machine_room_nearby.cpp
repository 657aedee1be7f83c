// AllocateMachineRoomNearby: keeps consumption inside a machine room whenever that room has a
// live consumer, and falls back to sharing a room's queues with the whole group when it has
// none. The actual split is delegated to another allocator (`inner`).
//
// Rooms (RocketMQ leaves this to a user-supplied MachineRoomResolver; mqkit fixes a convention):
//   * a broker's room is the part of its name before the first '@' ("hz1@broker-a" -> "hz1");
//   * a consumer's room is the third '@'-separated field of its client id, which is where
//     RocketMQ's buildMQClientId puts the unit name ("10.0.0.7@4242@hz1" -> "hz1");
//   * a name without those parts is in the unnamed room "". Such brokers and consumers are
//     treated like any other room (RocketMQ's resolver contract forbids them and throws), so an
//     ungrouped deployment behaves exactly like the inner allocator.
//
// For the current consumer the result is: the inner split of its own room's queues among its
// room's consumers, then, room by room in name order, the inner split among all consumers of
// each room that has queues but no consumer.
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocators/common/allocate_checks.hpp"
#include "allocators/common/machine_room.hpp"
#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::allocators {

class MachineRoomNearby final : public QueueAllocator {
 public:
  static Result<std::unique_ptr<MachineRoomNearby>> create(const ConfigValues& config,
                                                           Host& host) {
    const std::string& inner_name = config.get_string("inner");
    auto inner =
        plugin::v1::create_plugin_as<QueueAllocator>(host, Category::kAllocator, inner_name);
    if (!inner.is_ok()) {
      return inner.status().with_context("creating inner allocator '" + inner_name + "'");
    }
    return std::unique_ptr<MachineRoomNearby>(new MachineRoomNearby(std::move(inner).value()));
  }

  AllocateResult allocate(const AllocateContext& context) noexcept override {
    return allocate_checked(context, [&](std::size_t /*index*/) -> AllocateResult {
      // std::map: rooms without consumers are visited in name order, as RocketMQ's TreeMap does.
      std::map<std::string_view, std::vector<MessageQueue>> queues_by_room;
      for (const MessageQueue& queue : context.all_queues) {
        queues_by_room[broker_room(queue.broker_name)].push_back(queue);
      }
      std::map<std::string_view, std::vector<std::string>> consumers_by_room;
      for (const std::string& client_id : context.all_client_ids) {
        consumers_by_room[consumer_room(client_id)].push_back(client_id);
      }

      std::vector<MessageQueue> owned;
      const auto split = [&](std::span<const MessageQueue> queues,
                             std::span<const std::string> consumers) -> plugin::v1::Status {
        AllocateContext part = context;
        part.all_queues = queues;
        part.all_client_ids = consumers;
        MQKIT_ASSIGN_OR_RETURN(std::vector<MessageQueue> mine, inner_->allocate(part));
        owned.insert(owned.end(), mine.begin(), mine.end());
        return plugin::v1::Status::ok();
      };

      const std::string_view own_room = consumer_room(context.current_client_id);
      if (const auto own = queues_by_room.find(own_room); own != queues_by_room.end()) {
        MQKIT_RETURN_IF_ERROR(split(own->second, consumers_by_room[own_room]));
        queues_by_room.erase(own);
      }
      for (const auto& [room, queues] : queues_by_room) {
        if (!consumers_by_room.contains(room)) {
          MQKIT_RETURN_IF_ERROR(split(queues, context.all_client_ids));
        }
      }
      return owned;
    });
  }

 private:
  explicit MachineRoomNearby(std::shared_ptr<QueueAllocator> inner) : inner_(std::move(inner)) {}

  static std::string_view broker_room(std::string_view broker_name) noexcept {
    const auto parsed = split_room_qualified_name(broker_name);
    return parsed ? parsed->room : std::string_view{};
  }

  // "<ip>@<instanceName>@<unitName>[@...]" -> unitName; "" when the id has no third field.
  static std::string_view consumer_room(std::string_view client_id) noexcept {
    const auto first = client_id.find('@');
    if (first == std::string_view::npos) return {};
    const auto second = client_id.find('@', first + 1);
    if (second == std::string_view::npos) return {};
    const std::string_view rest = client_id.substr(second + 1);
    return rest.substr(0, rest.find('@'));
  }

  std::shared_ptr<QueueAllocator> inner_;
};

constexpr const char* kAliases[] = {
    "AllocateMachineRoomNearby",
    "org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby",
    "MACHINE_ROOM_NEARBY",
    nullptr,
};
constexpr ConfigField kSchema[] = {
    {.key = "inner",
     .type = ValueType::kString,
     .default_value = "averagely",
     .description = "Allocator (name or alias) that splits each room's queues among its "
                    "consumers; created with its default configuration"},
};

}  // namespace mqkit::plugins::allocators

MQKIT_PLUGIN(QueueAllocator, mqkit::plugins::allocators::MachineRoomNearby, "machine_room_nearby",
             mqkit::plugins::allocators::kAliases, "1.0.0",
             "RocketMQ MACHINE_ROOM_NEARBY: queues stay in their machine room when it has "
             "consumers, wrapping another allocator",
             mqkit::plugins::allocators::kSchema)
