// round_robin: the producer's default queue choice when the application passes no selector
// (RocketMQ TopicPublishInfo.selectOneMessageQueue with MQFaultStrategy on top).
#include <memory>
#include <span>

#include "mqkit/plugin/v1/plugin.hpp"
#include "selectors/common/queue_rotation.hpp"

namespace mqkit::plugins::selectors {

namespace v1 = ::mqkit::plugin::v1;

class RoundRobin final : public v1::QueueSelector {
 public:
  static v1::Result<std::unique_ptr<RoundRobin>> create(const v1::ConfigValues& /*config*/,
                                                        v1::Host& /*host*/) {
    return std::make_unique<RoundRobin>();
  }

  v1::Result<std::size_t> select(std::span<const v1::MessageQueue> queues,
                                 const v1::SelectContext& context) noexcept override {
    if (queues.empty()) {
      return v1::Status::invalid_argument("round_robin selector: the topic has no queues");
    }
    return pick_in_rotation(queues, context, index_.next(context.topic),
                            [](const v1::MessageQueue&) { return true; });
  }

 private:
  ThreadLocalIndex index_;
};

// RocketMQ has no class for this selector (it is built into the producer), so no Java aliases.
constexpr const char* kAliases[] = {nullptr};
constexpr std::span<const v1::ConfigField> kSchema{};

}  // namespace mqkit::plugins::selectors

MQKIT_PLUGIN(QueueSelector, ::mqkit::plugins::selectors::RoundRobin, "round_robin",
             ::mqkit::plugins::selectors::kAliases, "1.0.0",
             "Per-thread round robin avoiding the last failed and unavailable brokers "
             "(the producer's default)",
             ::mqkit::plugins::selectors::kSchema)
