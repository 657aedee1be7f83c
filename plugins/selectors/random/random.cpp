// random: RocketMQ SelectMessageQueueByRandom, a uniformly random queue per message.
#include <cstdint>
#include <memory>
#include <random>
#include <span>

#include "mqkit/plugin/v1/plugin.hpp"
#include "selectors/common/random.hpp"

namespace mqkit::plugins::selectors {

namespace v1 = ::mqkit::plugin::v1;

class Random final : public v1::QueueSelector {
 public:
  static v1::Result<std::unique_ptr<Random>> create(const v1::ConfigValues& /*config*/,
                                                    v1::Host& /*host*/) {
    return std::make_unique<Random>();
  }

  // Availability and last_failed_broker are ignored, as in RocketMQ: an application selector
  // owns the choice, and the producer does not retry selector sends on another broker.
  v1::Result<std::size_t> select(std::span<const v1::MessageQueue> queues,
                                 const v1::SelectContext& /*context*/) noexcept override {
    if (queues.empty()) {
      return v1::Status::invalid_argument("random selector: the topic has no queues");
    }
    // A thread-local generator keeps concurrent senders lock-free; the distribution is unbiased
    // (no modulo skew) for any queue count.
    std::uniform_int_distribution<std::size_t> pick(0, queues.size() - 1);
    return pick(thread_rng());
  }
};

constexpr const char* kAliases[] = {
    "SelectMessageQueueByRandom",
    "org.apache.rocketmq.client.producer.selector.SelectMessageQueueByRandom", nullptr};
constexpr std::span<const v1::ConfigField> kSchema{};

}  // namespace mqkit::plugins::selectors

MQKIT_PLUGIN(QueueSelector, ::mqkit::plugins::selectors::Random, "random",
             ::mqkit::plugins::selectors::kAliases, "1.0.0",
             "Uniformly random queue, as SelectMessageQueueByRandom",
             ::mqkit::plugins::selectors::kSchema)
