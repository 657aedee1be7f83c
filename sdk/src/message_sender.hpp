// MessageSender: RocketMQ's send algorithm (sendDefaultImpl, rocketmq-facts §4.2) for sync,
// async and one-way sends of a prepared message.
//
//   1. The topic's publish queues (the create-topic key's route for a topic without one).
//   2. Up to max attempts, all within the deadline: pick a queue (the default selector gets the
//      fault strategy's availability and the broker the previous attempt failed on), send to
//      its broker's master, report the attempt's latency to the fault strategy (isolating the
//      broker on failure), and try again on retriable failures (response_status.hpp).
//   3. A stored-but-not-OK answer (FLUSH_*_TIMEOUT, SLAVE_NOT_AVAILABLE) is returned, or retried
//      elsewhere with retry_another_broker_when_not_store_ok (sync only).
// A fixed queue or an application selector means one attempt, as in RocketMQ: an ordered
// message must not move to another queue.
//
// Every attempt is shown to the producer's send hooks (hooks.hpp), the message trace among them.
//
// A broker that a refreshed route shows no longer hosting any topic this sender sent to is
// forgotten by the fault strategy (serving_brokers.hpp).
//
// Threads: any number of sending threads. Async attempts after the first run on the client's
// async thread; the final callback runs on a transport thread or that thread. The owner keeps
// the sender alive until every async send has called back.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/producer_config.hpp"
#include "mqkit/plugin/v1/fault_strategy.hpp"
#include "mqkit/plugin/v1/selector.hpp"
#include "hook_calls.hpp"
#include "outgoing_message.hpp"
#include "serving_brokers.hpp"

namespace mqkit::client {

// How the queue of a send is chosen.
struct SendTarget {
  std::optional<MessageQueue> queue{};                      // exactly this queue
  // The first attempt's queue when neither `queue` nor `selector` is set: retries choose as
  // usual (an auto batch keeps the queue its messages were accumulated for).
  std::optional<MessageQueue> first_queue{};
  std::shared_ptr<plugin::v1::QueueSelector> selector{};   // this selector (one attempt)
  plugin::v1::SelectArgument argument{};
};

// Calls a send's final callback; what it throws is logged, never passed on.
void call_send_callback(const SendCallback& done, Result<SendResult> result) noexcept;

class MessageSender {
 public:
  using Clock = std::chrono::steady_clock;

  MessageSender(ClientInstance& instance, const ProducerConfig& config,
                std::shared_ptr<plugin::v1::QueueSelector> default_selector,
                std::shared_ptr<plugin::v1::FaultStrategy> fault_strategy, const SendHooks& hooks);
  ~MessageSender();
  MessageSender(const MessageSender&) = delete;
  MessageSender& operator=(const MessageSender&) = delete;

  Result<SendResult> send(std::shared_ptr<const PreparedMessage> message, const SendTarget& target,
                          Clock::time_point started, Clock::time_point deadline);
  // `done` is called exactly once, possibly on the calling thread (no route, nothing sendable).
  void send_async(std::shared_ptr<const PreparedMessage> message, SendTarget target, Clock::time_point started,
                  Clock::time_point deadline, SendCallback done);
  Status send_oneway(std::shared_ptr<const PreparedMessage> message, const SendTarget& target);
  // The queue a send of `message` would go to first (no request is sent): one of `route`'s
  // publish queues, or the target's own queue (then `route` is null and `queue` points into
  // `target`). Not copied: an auto batch picks one for every message.
  struct PickedQueue {
    std::shared_ptr<const TopicRouteInfo> route;
    const MessageQueue* queue = nullptr;
  };
  Result<PickedQueue> pick_queue(const PreparedMessage& message, const SendTarget& target);

  // The route topics without one borrow (create_topic_key, default_topic_queue_nums).
  const DefaultTopicRoute& fallback() const noexcept { return fallback_; }

 private:
  struct Chosen {
    MessageQueue queue;
    std::string address;
  };
  struct AsyncSend;

  Result<std::shared_ptr<const TopicRouteInfo>> route_for(const PreparedMessage& message, const SendTarget& target);
  // The queue only (choose() adds its broker's address): an element of `route` or `target`.
  Result<const MessageQueue*> select(const PreparedMessage& message, const SendTarget& target, const TopicRouteInfo& route,
                              std::string_view last_failed_broker);
  Result<Chosen> choose(const PreparedMessage& message, const SendTarget& target, const TopicRouteInfo& route,
                        std::string_view last_failed_broker);
  int max_attempts(const SendTarget& target, int retries) const;
  void report(const std::string& broker, Clock::time_point attempt_started, bool failed);
  void attempt_async(const std::shared_ptr<AsyncSend>& send);
  void on_async_response(const std::shared_ptr<AsyncSend>& send, const MessageQueue& queue, const std::string& address,
                         Clock::time_point attempt_started, Result<SendResult> result);
  // The send hooks' after_send of one attempt (`result` null for a one-way send).
  void after_attempt(const PreparedMessage& message, const MessageQueue& queue, const std::string& address,
                     const Result<SendResult>* result, const Status& sent, Clock::time_point attempt_started) const;

  ClientInstance& instance_;
  const ProducerConfig& config_;
  const DefaultTopicRoute fallback_;
  std::shared_ptr<plugin::v1::QueueSelector> default_selector_;
  std::shared_ptr<plugin::v1::FaultStrategy> fault_strategy_;
  const SendHooks& hooks_;  // the producer's; fixed once it started
  ServingBrokers serving_brokers_;
  std::uint64_t route_observer_ = 0;
};

}  // namespace mqkit::client
