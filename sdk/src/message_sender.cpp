#include "message_sender.hpp"

#include <algorithm>
#include <exception>

#include "mqkit/client/response_status.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
using std::chrono::milliseconds;

namespace {

milliseconds since(MessageSender::Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(MessageSender::Clock::now() - start);
}

// Where a send stands after each attempt; shared by the sync loop and the async chain so both
// decide "again or give up" the same way.
struct Progress {
  int attempts = 0;
  int max_attempts = 1;
  std::string last_failed_broker{};
  std::vector<std::string> brokers_sent{};
  Status last_error{};
  bool timed_out = false;

  bool may_attempt(MessageSender::Clock::time_point deadline) {
    if (attempts >= max_attempts) return false;
    if (MessageSender::Clock::now() >= deadline) {
      timed_out = true;
      return false;
    }
    ++attempts;
    return true;
  }
  // Records a failed attempt; true when the failure is worth another attempt.
  bool failed(std::string broker, Status error) {
    last_error = std::move(error);
    if (!broker.empty()) {
      brokers_sent.push_back(broker);
      last_failed_broker = std::move(broker);
    }
    return is_retriable_send_failure(last_error);
  }
  // The error of a send that gave up (RocketMQ: "Send [n] times, still failed, cost [x]ms, ...").
  Status give_up(std::string_view topic, MessageSender::Clock::time_point started) const {
    if (attempts == 1 && !timed_out && !last_error.is_ok()) return last_error;
    std::string text = timed_out ? "send timed out (sendDefaultImpl call timeout) after " + std::to_string(attempts) +
                                       " attempts"
                                 : "Send [" + std::to_string(attempts) + "] times, still failed";
    text += ", cost [" + std::to_string(since(started).count()) + "]ms, Topic: " + std::string(topic) + ", BrokersSent: [";
    for (std::size_t i = 0; i < brokers_sent.size(); ++i) text += (i ? ", " : "") + brokers_sent[i];
    text += "]";
    if (!last_error.is_ok()) text += ": " + last_error.message();
    const StatusCode code = timed_out ? StatusCode::kTimeout
                                      : (last_error.is_ok() ? StatusCode::kUnavailable : last_error.code());
    return {code, std::move(text)};
  }
};

milliseconds time_left(MessageSender::Clock::time_point deadline) {
  return std::max(milliseconds(1),
                  std::chrono::duration_cast<milliseconds>(deadline - MessageSender::Clock::now()));
}

}  // namespace

struct MessageSender::AsyncSend {
  std::shared_ptr<const PreparedMessage> message;
  SendTarget target;
  std::shared_ptr<const TopicRouteInfo> route;
  Clock::time_point started;
  Clock::time_point deadline;
  Progress progress;
  SendCallback done;

  void finish(Result<SendResult> result) { call_send_callback(done, std::move(result)); }
};

void call_send_callback(const SendCallback& done, Result<SendResult> result) noexcept {
  try {
    done(std::move(result));
  } catch (const std::exception& e) {
    kernel::logger("client")->error("send callback threw: {}", e.what());
  } catch (...) {
    kernel::logger("client")->error("send callback threw");
  }
}

MessageSender::MessageSender(ClientInstance& instance, const ProducerConfig& config,
                             std::shared_ptr<v1::QueueSelector> default_selector,
                             std::shared_ptr<v1::FaultStrategy> fault_strategy, const SendHooks& hooks)
    : instance_(instance),
      config_(config),
      fallback_{config.create_topic_key, config.default_topic_queue_nums},
      default_selector_(std::move(default_selector)),
      fault_strategy_(std::move(fault_strategy)),
      hooks_(hooks) {
  route_observer_ = instance_.observe_routes([this](std::string_view topic, const TopicRouteInfo& route) {
    for (const std::string& broker : serving_brokers_.update(topic, route)) {
      kernel::logger("client")->info("{}: broker {} left the route of every topic of producer group {}",
                                     instance_.client_id(), broker, config_.group);
      fault_strategy_->remove(broker);
    }
  });
}

MessageSender::~MessageSender() { instance_.stop_observing_routes(route_observer_); }

int MessageSender::max_attempts(const SendTarget& target, int retries) const {
  if (target.queue || target.selector) return 1;
  return 1 + std::max(0, retries);
}

Result<std::shared_ptr<const TopicRouteInfo>> MessageSender::route_for(const PreparedMessage& message,
                                                                        const SendTarget& target) {
  MQKIT_ASSIGN_OR_RETURN(auto route, instance_.publish_route(message.topic, fallback_));
  serving_brokers_.track(message.topic, *route);
  if (!target.queue && route->publish.queues.empty()) {
    return Status::not_found("No route info of this topic: " + message.topic + " (no writable queue with a master)");
  }
  return route;
}

Result<const MessageQueue*> MessageSender::select(const PreparedMessage& message, const SendTarget& target,
                                                  const TopicRouteInfo& route, std::string_view last_failed_broker) {
  if (target.queue) return &*target.queue;
  if (target.first_queue && last_failed_broker.empty()) return &*target.first_queue;
  const auto& queues = route.publish.queues;
  v1::SelectContext context;
  context.topic = message.topic;
  context.tags = message.tags;
  context.keys = message.keys;
  context.argument = target.argument;
  context.last_failed_broker = last_failed_broker;
  context.availability = fault_strategy_.get();
  auto& selector = target.selector ? *target.selector : *default_selector_;
  MQKIT_ASSIGN_OR_RETURN(const std::size_t index, selector.select(queues, context));
  if (index >= queues.size()) {
    return Status::internal("the selector chose queue " + std::to_string(index) + " of " +
                            std::to_string(queues.size()));
  }
  return &queues[index];
}

Result<MessageSender::Chosen> MessageSender::choose(const PreparedMessage& message, const SendTarget& target,
                                                    const TopicRouteInfo& route, std::string_view last_failed_broker) {
  Chosen chosen;
  MQKIT_ASSIGN_OR_RETURN(const MessageQueue* queue, select(message, target, route, last_failed_broker));
  chosen.queue = *queue;
  chosen.address = instance_.find_broker_master(chosen.queue.broker_name);
  if (chosen.address.empty()) {
    // The route may name a broker whose address arrived since (RocketMQ re-reads the route).
    (void)instance_.update_route(message.topic);
    chosen.address = instance_.find_broker_master(chosen.queue.broker_name);
  }
  if (chosen.address.empty()) {
    return Status::not_found("The broker[" + chosen.queue.broker_name + "] not exist (no master address known)");
  }
  return chosen;
}

void MessageSender::report(const std::string& broker, Clock::time_point attempt_started, bool failed) {
  fault_strategy_->update(broker, since(attempt_started).count(), failed);
}

void MessageSender::after_attempt(const PreparedMessage& message, const MessageQueue& queue, const std::string& address,
                                  const Result<SendResult>* result, const Status& sent,
                                  Clock::time_point attempt_started) const {
  if (hooks_.empty()) return;
  SendHookContext attempt;
  attempt.producer_group = config_.group;
  attempt.topic = message.topic;
  attempt.tags = message.tags;
  attempt.keys = message.keys;
  attempt.body_size = message.body ? message.body->size() : 0;
  attempt.batch = message.batch;
  if ((message.sys_flag & plugin::v1::sys_flag::kTransactionPrepared) != 0) {
    attempt.message_type = trace::TraceMessageType::kTransactionHalf;
  } else if (message.delayed) {
    attempt.message_type = trace::TraceMessageType::kDelay;
  }
  attempt.queue = queue;
  attempt.broker_address = address;
  attempt.oneway = result == nullptr;
  if (result != nullptr && result->is_ok()) attempt.result = &result->value();
  attempt.error = result != nullptr ? result->status() : sent;
  attempt.attempt_started = attempt_started;
  attempt.took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - attempt_started);
  run_after_send(hooks_, attempt);
}

// ---- Sync ----------------------------------------------------------------------------------

Result<SendResult> MessageSender::send(std::shared_ptr<const PreparedMessage> message, const SendTarget& target,
                                       Clock::time_point started, Clock::time_point deadline) {
  MQKIT_ASSIGN_OR_RETURN(auto route, route_for(*message, target));
  Progress progress;
  progress.max_attempts = max_attempts(target, config_.retry_times_when_send_failed);
  std::optional<SendResult> stored_not_ok;
  while (progress.may_attempt(deadline)) {
    auto chosen = choose(*message, target, *route, progress.last_failed_broker);
    if (!chosen) {
      if (progress.failed({}, chosen.status())) continue;
      break;
    }
    const auto attempt_started = Clock::now();
    auto result = instance_.api().send_message(chosen->address, chosen->queue.broker_name,
                                               send_request_for(*message, config_, chosen->queue.queue_id), time_left(deadline));
    report(chosen->queue.broker_name, attempt_started, !result.is_ok());
    after_attempt(*message, chosen->queue, chosen->address, &result, Status::ok(), attempt_started);
    if (result) {
      if (result->status == SendStatus::kSendOk || !config_.retry_another_broker_when_not_store_ok) return result;
      stored_not_ok = std::move(result).value();
      progress.last_failed_broker = chosen->queue.broker_name;
      progress.brokers_sent.push_back(chosen->queue.broker_name);
      continue;
    }
    if (!progress.failed(chosen->queue.broker_name, result.status())) break;
  }
  if (stored_not_ok) return *stored_not_ok;
  return progress.give_up(message->topic, started);
}

// ---- Async ---------------------------------------------------------------------------------

void MessageSender::send_async(std::shared_ptr<const PreparedMessage> message, SendTarget target,
                               Clock::time_point started, Clock::time_point deadline, SendCallback done) {
  auto send = std::make_shared<AsyncSend>();
  send->done = std::move(done);
  auto route = route_for(*message, target);
  if (!route) return send->finish(route.status());
  send->message = std::move(message);
  send->target = std::move(target);
  send->route = std::move(route).value();
  send->started = started;
  send->deadline = deadline;
  send->progress.max_attempts = max_attempts(send->target, config_.retry_times_when_send_async_failed);
  attempt_async(send);
}

void MessageSender::attempt_async(const std::shared_ptr<AsyncSend>& send) {
  while (send->progress.may_attempt(send->deadline)) {
    auto chosen = choose(*send->message, send->target, *send->route, send->progress.last_failed_broker);
    if (!chosen) {
      if (send->progress.failed({}, chosen.status())) continue;
      break;
    }
    const auto attempt_started = Clock::now();
    instance_.api().send_message_async(
        chosen->address, chosen->queue.broker_name, send_request_for(*send->message, config_, chosen->queue.queue_id), time_left(send->deadline),
        [this, send, queue = chosen->queue, address = chosen->address, attempt_started](Result<SendResult> result) {
          on_async_response(send, queue, address, attempt_started, std::move(result));
        });
    return;
  }
  send->finish(send->progress.give_up(send->message->topic, send->started));
}

void MessageSender::on_async_response(const std::shared_ptr<AsyncSend>& send, const MessageQueue& queue,
                                      const std::string& address, Clock::time_point attempt_started,
                                      Result<SendResult> result) {
  const std::string& broker = queue.broker_name;
  report(broker, attempt_started, !result.is_ok());
  after_attempt(*send->message, queue, address, &result, Status::ok(), attempt_started);
  if (result) return send->finish(std::move(result));
  Progress& progress = send->progress;
  if (!progress.failed(broker, result.status()) || progress.attempts >= progress.max_attempts) {
    return send->finish(progress.give_up(send->message->topic, send->started));
  }
  // Not on this transport thread: choosing may refresh a route and reaching another broker may
  // open a connection, both of which block. attempt_async also gives up at the deadline.
  if (!instance_.execute([this, send] { attempt_async(send); })) {
    send->finish(progress.give_up(send->message->topic, send->started));
  }
}

Result<MessageSender::PickedQueue> MessageSender::pick_queue(const PreparedMessage& message,
                                                             const SendTarget& target) {
  if (target.queue) return PickedQueue{nullptr, &*target.queue};
  PickedQueue picked;
  MQKIT_ASSIGN_OR_RETURN(picked.route, route_for(message, target));
  // The broker's address is looked up when the batch goes out.
  MQKIT_ASSIGN_OR_RETURN(picked.queue, select(message, target, *picked.route, {}));
  return picked;
}

// ---- One-way -------------------------------------------------------------------------------

Status MessageSender::send_oneway(std::shared_ptr<const PreparedMessage> message, const SendTarget& target) {
  MQKIT_ASSIGN_OR_RETURN(auto route, route_for(*message, target));
  MQKIT_ASSIGN_OR_RETURN(const Chosen chosen, choose(*message, target, *route, {}));
  const auto attempt_started = Clock::now();
  Status sent = instance_.api().send_message_oneway(chosen.address, send_request_for(*message, config_, chosen.queue.queue_id));
  report(chosen.queue.broker_name, attempt_started, !sent.is_ok());
  after_attempt(*message, chosen.queue, chosen.address, nullptr, sent, attempt_started);
  return sent;
}

}  // namespace mqkit::client
