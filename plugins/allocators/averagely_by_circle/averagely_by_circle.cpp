// AllocateMessageQueueAveragelyByCircle: deals the sorted queues out like cards, so consumer i
// owns every queue whose position p satisfies p % consumers == i. Spreads each broker's queues
// over the group instead of giving a consumer one broker's block.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "allocators/common/allocate_checks.hpp"
#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::allocators {

class AveragelyByCircle final : public QueueAllocator {
 public:
  static Result<std::unique_ptr<AveragelyByCircle>> create(const ConfigValues& /*config*/,
                                                           Host& /*host*/) {
    return std::make_unique<AveragelyByCircle>();
  }

  AllocateResult allocate(const AllocateContext& context) noexcept override {
    return allocate_checked(context, [&](std::size_t index) -> AllocateResult {
      const std::size_t stride = context.all_client_ids.size();
      std::vector<MessageQueue> owned;
      owned.reserve(context.all_queues.size() / stride + 1);
      for (std::size_t position = index; position < context.all_queues.size(); position += stride) {
        owned.push_back(context.all_queues[position]);
      }
      return owned;
    });
  }
};

constexpr const char* kAliases[] = {
    "AllocateMessageQueueAveragelyByCircle",
    "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle",
    "AVG_BY_CIRCLE",
    nullptr,
};
constexpr std::span<const plugin::v1::ConfigField> kSchema{};

}  // namespace mqkit::plugins::allocators

MQKIT_PLUGIN(QueueAllocator, mqkit::plugins::allocators::AveragelyByCircle, "averagely_by_circle",
             mqkit::plugins::allocators::kAliases, "1.0.0",
             "RocketMQ AVG_BY_CIRCLE: queues dealt round-robin over the sorted consumers",
             mqkit::plugins::allocators::kSchema)
