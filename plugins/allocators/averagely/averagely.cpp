// AllocateMessageQueueAveragely: RocketMQ's default strategy. Each consumer takes one contiguous
// block of the sorted queue list; the first (queues % consumers) consumers take one extra queue.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "allocators/common/allocate_checks.hpp"
#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::allocators {

class Averagely final : public QueueAllocator {
 public:
  static Result<std::unique_ptr<Averagely>> create(const ConfigValues& /*config*/, Host& /*host*/) {
    return std::make_unique<Averagely>();
  }

  AllocateResult allocate(const AllocateContext& context) noexcept override {
    return allocate_checked(context, [&](std::size_t index) -> AllocateResult {
      const std::span<const MessageQueue> queues = context.all_queues;
      const std::size_t queue_count = queues.size();
      const std::size_t consumer_count = context.all_client_ids.size();
      const std::size_t remainder = queue_count % consumer_count;
      const bool takes_extra = index < remainder;
      const std::size_t block =
          queue_count <= consumer_count ? 1 : queue_count / consumer_count + (takes_extra ? 1 : 0);
      // Consumers after the first `remainder` start `remainder` further on, past the extras.
      const std::size_t start = takes_extra ? index * block : index * block + remainder;
      if (start >= queue_count) return std::vector<MessageQueue>{};
      const auto owned = queues.subspan(start, std::min(block, queue_count - start));
      return std::vector<MessageQueue>(owned.begin(), owned.end());
    });
  }
};

constexpr const char* kAliases[] = {
    "AllocateMessageQueueAveragely",
    "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely",
    "AVG",
    nullptr,
};
constexpr std::span<const plugin::v1::ConfigField> kSchema{};

}  // namespace mqkit::plugins::allocators

MQKIT_PLUGIN(QueueAllocator, mqkit::plugins::allocators::Averagely, "averagely",
             mqkit::plugins::allocators::kAliases, "1.0.0",
             "RocketMQ AVG: one contiguous block of the sorted queues per consumer",
             mqkit::plugins::allocators::kSchema)
