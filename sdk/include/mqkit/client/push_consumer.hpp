// PushConsumer: RocketMQ's DefaultMQPushConsumer. Subscribe to topics with tag expressions,
// register one listener, start: the consumer owns queues as the group's rebalance gives them,
// long-polls each with PULL_MESSAGE, and hands the messages to the listener on its own threads.
//
//   ConsumerConfig config;
//   config.group = "my_group";
//   config.client.namesrv_addresses = {"127.0.0.1:9876"};
//   PushConsumer consumer(config);
//   consumer.subscribe("TopicTest", "TagA || TagB");
//   consumer.register_listener([](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
//     for (const auto& m : messages) handle(m);
//     return ConsumeConcurrentlyStatus::kConsumeSuccess;
//   });
//   if (Status s = consumer.start(); !s) ...
//
// Delivery is at least once: a message is redelivered when its listener asked for it, when its
// queue moved to another consumer before its offset was persisted, or after a crash.
//
// Concurrent listeners run on consume_thread_count threads, several batches of one queue at once;
// a batch answered RECONSUME_LATER (or a listener that throws) is sent back to the broker
// (CONSUMER_SEND_MSG_BACK), which redelivers it through %RETRY%<group> after a growing delay and
// moves it to %DLQ%<group> after max_reconsume_times. Orderly listeners see one queue's messages
// in queue order, one batch at a time, only while this consumer holds the queue's broker lock;
// SUSPEND_CURRENT_QUEUE_A_MOMENT retries the same batch after suspend_current_queue_time.
//
// With config.client.name_space (RocketMQ's namespace), topics and the group (so its retry topic)
// are named "<namespace>%<name>" on the wire; listeners see messages and queues, and
// owned_queues()/consume_offsets() show queues, in the application's names (docs/sdk.md
// "Namespaces").
//
// Threads: every method is thread-safe. Listeners run on the consumer's threads and may block
// (that is back-pressure: the queue stops being pulled once its cache is full).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>

#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/hooks.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/subscription.hpp"

namespace mqkit::client {

enum class ConsumeConcurrentlyStatus : std::uint8_t { kConsumeSuccess, kReconsumeLater };
enum class ConsumeOrderlyStatus : std::uint8_t { kSuccess, kSuspendCurrentQueueAMoment };

struct ConsumeConcurrentlyContext {
  MessageQueue queue{};
  // For RECONSUME_LATER: the delay level of the redelivery; 0 lets the broker pick
  // 3 + times reconsumed, -1 sends the batch straight to %DLQ%<group>.
  int delay_level_when_next_consume = 0;
};

struct ConsumeOrderlyContext {
  MessageQueue queue{};
  // For SUSPEND_CURRENT_QUEUE_A_MOMENT: how long to wait before retrying (0: the config's
  // suspend_current_queue_time).
  std::chrono::milliseconds suspend_current_queue_time{0};
};

using ConcurrentListener =
    std::function<ConsumeConcurrentlyStatus(std::span<const MessageExt> messages, ConsumeConcurrentlyContext& context)>;
using OrderlyListener =
    std::function<ConsumeOrderlyStatus(std::span<const MessageExt> messages, ConsumeOrderlyContext& context)>;

class PushConsumer {
 public:
  explicit PushConsumer(ConsumerConfig config);
  // Uses `instance` (tests, embedding): its ClientConfig replaces config.client, except the
  // allocator choice.
  PushConsumer(ConsumerConfig config, std::shared_ptr<ClientInstance> instance);
  ~PushConsumer();  // shutdown()
  PushConsumer(const PushConsumer&) = delete;
  PushConsumer& operator=(const PushConsumer&) = delete;

  // Before start(): subscribes `topic` with a TAG expression ("*", "TagA || TagB"); again for the
  // same topic replaces the expression. InvalidArgument for a bad topic or expression.
  Status subscribe(const std::string& topic, const std::string& expression);
  // The same with a MessageSelector: by_tag, or by_sql (the brokers must enable_property_filter).
  Status subscribe(const std::string& topic, const MessageSelector& selector);
  // Before start(), exactly one listener. AlreadyExists when one is registered.
  Status register_listener(ConcurrentListener listener);
  Status register_listener(OrderlyListener listener);
  // Before start(): runs around every listener call (hooks.hpp; RocketMQ's
  // registerConsumeMessageHook), after the message trace when enable_msg_trace is on.
  Status register_consume_hook(std::shared_ptr<ConsumeHook> hook);

  // Validates the config, loads the allocator, opens the offset store (broadcasting: the local
  // file; a corrupt one fails here), registers the group, heartbeats and rebalances at once.
  // A consumer starts once: FailedPrecondition-like Unavailable when started before.
  Status start();
  // Stops pulling, lets running listener calls finish (queued batches are not delivered: they
  // come again later), persists offsets, releases orderly locks and unregisters the group.
  // Idempotent; blocks until in-flight listener calls return.
  void shutdown();

  const ConsumerConfig& config() const noexcept;
  std::shared_ptr<ClientInstance> instance() const;
  // The queues this consumer owns now (retry topic included).
  std::set<MessageQueue> owned_queues() const;
  // The offsets this consumer would commit now, per owned queue (-1 when unknown).
  std::map<MessageQueue, std::int64_t> consume_offsets() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mqkit::client
