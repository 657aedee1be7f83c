// AllocateMessageQueueByConfig: the consumer owns a fixed, configured set of queues whatever the
// rest of the group does. Not a partitioning strategy: two consumers configured with the same
// queue both consume it, and a queue nobody lists is consumed by nobody.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "allocators/common/allocate_checks.hpp"
#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::allocators {

class ByConfig final : public QueueAllocator {
 public:
  static Result<std::unique_ptr<ByConfig>> create(const ConfigValues& config, Host& /*host*/) {
    QueueIdsByBroker configured;
    for (const std::string& entry : config.get_list("queues")) {
      if (entry.empty()) continue;  // "" is how an empty list may arrive from the command line
      MQKIT_RETURN_IF_ERROR(add_entry(entry, configured));
    }
    return std::unique_ptr<ByConfig>(new ByConfig(std::move(configured)));
  }

  // Keeps the configured queues the route still has, in all_queues order: a queue the topic no
  // longer has (broker gone, queue count shrunk) cannot be pulled, and reporting owned queues in
  // the caller's sorted order keeps the result deterministic like every other allocator's.
  AllocateResult allocate(const AllocateContext& context) noexcept override {
    return allocate_checked(context, [&](std::size_t /*index*/) -> AllocateResult {
      std::vector<MessageQueue> owned;
      for (const MessageQueue& queue : context.all_queues) {
        const auto broker = configured_.find(queue.broker_name);
        if (broker != configured_.end() && broker->second.contains(queue.queue_id)) {
          owned.push_back(queue);
        }
      }
      return owned;
    });
  }

 private:
  using QueueIdsByBroker = std::map<std::string, std::set<std::int32_t>, std::less<>>;

  explicit ByConfig(QueueIdsByBroker configured) : configured_(std::move(configured)) {}

  // Parses "<brokerName>:<queueId>". The last ':' separates, so broker names may contain ':'.
  static Status add_entry(std::string_view entry, QueueIdsByBroker& configured) {
    const auto colon = entry.rfind(':');
    const auto malformed = [&](std::string_view why) {
      return Status::invalid_argument("queues entry '" + std::string(entry) +
                                      "' is not <brokerName>:<queueId>: " + std::string(why));
    };
    if (colon == std::string_view::npos) return malformed("no ':'");
    const std::string_view broker_name = entry.substr(0, colon);
    const std::string_view queue_id_text = entry.substr(colon + 1);
    if (broker_name.empty()) return malformed("empty broker name");
    std::int32_t queue_id = 0;
    const auto [end, error] = std::from_chars(
        queue_id_text.data(), queue_id_text.data() + queue_id_text.size(), queue_id);
    if (error != std::errc() || end != queue_id_text.data() + queue_id_text.size() ||
        queue_id_text.empty() || queue_id < 0) {
      return malformed("queue id must be a non-negative 32-bit integer");
    }
    configured[std::string(broker_name)].insert(queue_id);
    return Status::ok();
  }

  QueueIdsByBroker configured_;
};

constexpr const char* kAliases[] = {
    "AllocateMessageQueueByConfig",
    "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig",
    "CONFIG",
    nullptr,
};
constexpr ConfigField kSchema[] = {
    {.key = "queues",
     .type = ValueType::kStringList,
     .default_value = "",
     .description = "Queues this consumer owns, each \"<brokerName>:<queueId>\", applied to "
                    "every topic it allocates; queues the route lacks are ignored"},
};

}  // namespace mqkit::plugins::allocators

MQKIT_PLUGIN(QueueAllocator, mqkit::plugins::allocators::ByConfig, "by_config",
             mqkit::plugins::allocators::kAliases, "1.0.0",
             "RocketMQ CONFIG: a fixed, configured list of queues",
             mqkit::plugins::allocators::kSchema)
