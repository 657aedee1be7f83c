// hash: RocketMQ SelectMessageQueueByHash, the usual selector for ordered messages: every message
// with the same key lands on the same queue, the same queue a Java producer would pick.
#include <cstdint>
#include <memory>
#include <span>

#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::selectors {

namespace v1 = ::mqkit::plugin::v1;

class Hash final : public v1::QueueSelector {
 public:
  static v1::Result<std::unique_ptr<Hash>> create(const v1::ConfigValues& /*config*/,
                                                  v1::Host& /*host*/) {
    return std::make_unique<Hash>();
  }

  // Java: value = arg.hashCode() % size; if (value < 0) value = Math.abs(value).
  // Availability and last_failed_broker are ignored on purpose: moving a key to another queue
  // would break the ordering the caller chose this selector for (RocketMQ does the same).
  v1::Result<std::size_t> select(std::span<const v1::MessageQueue> queues,
                                 const v1::SelectContext& context) noexcept override {
    if (queues.empty()) {
      return v1::Status::invalid_argument("hash selector: the topic has no queues");
    }
    std::int32_t hash = 0;
    switch (context.argument.kind) {
      case v1::SelectArgument::Kind::kInt32:
        hash = static_cast<std::int32_t>(context.argument.integer);
        break;
      case v1::SelectArgument::Kind::kInt64:
        hash = v1::java_long_hash(context.argument.integer);
        break;
      case v1::SelectArgument::Kind::kString:
        hash = v1::java_string_hash(context.argument.text);
        break;
      case v1::SelectArgument::Kind::kNone:
      default:
        return v1::Status::invalid_argument(
            "hash selector: no selector argument given; pass the ordering key (an int, long or "
            "string, as the Java `arg`) with the message");
    }
    // Java's int % int truncates toward zero like C++'s; widening keeps INT_MIN well defined.
    std::int64_t value = static_cast<std::int64_t>(hash) % static_cast<std::int64_t>(queues.size());
    if (value < 0) value = -value;
    return static_cast<std::size_t>(value);
  }
};

constexpr const char* kAliases[] = {
    "SelectMessageQueueByHash",
    "org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash", nullptr};
constexpr std::span<const v1::ConfigField> kSchema{};

}  // namespace mqkit::plugins::selectors

MQKIT_PLUGIN(QueueSelector, ::mqkit::plugins::selectors::Hash, "hash",
             ::mqkit::plugins::selectors::kAliases, "1.0.0",
             "Queue = abs(Java hashCode(arg) % queues), as SelectMessageQueueByHash",
             ::mqkit::plugins::selectors::kSchema)
