#include "mqkit/client/producer.hpp"

#include <exception>

#include "lifecycle_gate.hpp"
#include "message_sender.hpp"
#include "namespaced_names.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/timer.hpp"
#include "outgoing_message.hpp"
#include "pending_requests.hpp"
#include "request_message.hpp"
#include "plugin_loader.hpp"
#include "produce_accumulator.hpp"
#include "send_window.hpp"
#include "trace/message_tracer.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
using Clock = std::chrono::steady_clock;

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

// Releases an async send's room in the window however its callback ends.
class WindowSlot {
 public:
  WindowSlot(SendWindow& window, std::size_t bytes) : window_(window), bytes_(bytes) {}
  ~WindowSlot() { window_.release(bytes_); }
  WindowSlot(const WindowSlot&) = delete;
  WindowSlot& operator=(const WindowSlot&) = delete;

 private:
  SendWindow& window_;
  std::size_t bytes_;
};

// What an async send takes in the window: its frame, not just its body, so that a window no
// larger than the transport's send queue (both 64MiB by default) cannot overfill that queue
// while the broker is slow to read. The allowance covers the frame and header lengths, the
// fixed header part and the send header's other fields.
constexpr std::size_t kSendHeaderAllowance = 256;

std::size_t window_bytes_of(const PreparedMessage& message, const ProducerConfig& config) {
  return message.body->size() + message.properties.size() + message.topic.size() + config.group.size() +
         config.create_topic_key.size() + kSendHeaderAllowance;
}

}  // namespace

// Threads: start/shutdown from the owner; the send methods from any thread (guarded by gate_);
// async callbacks from transport threads and the client-async thread (window_ and sender_ stay
// alive until they all called back).
class Producer::Impl {
 public:
  Impl(ProducerConfig config, std::shared_ptr<ClientInstance> given)
      : name_space_(config.client.name_space),
        config_(std::move(config)),
        given_instance_(std::move(given)),
        window_(config_.max_in_flight_async_messages, config_.max_in_flight_async_bytes) {}

  Status start();
  Status add_send_hook(std::shared_ptr<SendHook> hook) {
    std::lock_guard lock(lifecycle_mutex_);
    return add_hook(hooks_, std::move(hook), state_ != State::kCreated, "producer " + config_.group);
  }
  // False when async sends are still pending after a generous bound (a transport that broke its
  // promise to call back): the object must then not be destroyed.
  bool shutdown();

  Result<SendResult> send(Result<PreparedMessage> prepared, const SendOptions& options, Clock::time_point started);
  Status send_async(Result<PreparedMessage> prepared, SendCallback callback, const SendOptions& options,
                    Clock::time_point started);
  Status send_oneway(Result<PreparedMessage> prepared, const SendOptions& options);
  // Sends `message` as a request whose reply goes to `callback`; its correlation id.
  Result<std::string> start_request(Message message, RequestCallback callback, std::chrono::milliseconds timeout,
                                    const SendOptions& options, Clock::time_point started);

  // Not config_'s: start() rewrites config_.client.
  const std::string& name_space() const noexcept { return name_space_; }
  // The application's view of a send result: its queue's topic without the namespace.
  SendResult for_application(SendResult result) const {
    result.message_queue = queue_without_namespace(name_space(), std::move(result.message_queue));
    return result;
  }

  Result<PreparedMessage> prepare(Message message) {
    run_before_send(hooks_, message);
    return prepare_message(std::move(message), config_);
  }
  Result<PreparedMessage> prepare(std::vector<Message> messages) {
    for (Message& message : messages) run_before_send(hooks_, message);
    return prepare_batch(std::move(messages), config_);
  }

  Status not_running() const {
    return Status::unavailable("producer " + config_.group + " is not running (start() it; it cannot be restarted)");
  }
  Clock::time_point deadline_of(const SendOptions& options, Clock::time_point started) const {
    return started + options.timeout.value_or(config_.send_msg_timeout);
  }

  const std::string name_space_;
  ProducerConfig config_;
  std::shared_ptr<ClientInstance> given_instance_;
  LifecycleGate gate_;
  SendWindow window_;
  bool safe_to_destroy_ = true;

  mutable std::mutex lifecycle_mutex_;
  enum class State { kCreated, kRunning, kShutDown } state_ = State::kCreated;
  std::shared_ptr<ClientInstance> instance_;
  std::unique_ptr<trace::MessageTracer> tracer_;  // with enable_msg_trace; outlives sender_
  SendHooks hooks_;  // the tracer first; fixed from start()
  std::unique_ptr<MessageSender> sender_;
  std::unique_ptr<ProduceAccumulator> accumulator_;  // with auto_batch

 private:
  // `topic` is the message's on the wire (wrapped); the options' queue is the application's.
  Result<SendTarget> target_of(const SendOptions& options, std::string_view topic) const;
};

Result<SendTarget> Producer::Impl::target_of(const SendOptions& options, std::string_view topic) const {
  if (options.queue && options.selector) {
    return Status::invalid_argument("send options name both a queue and a selector; choose one");
  }
  std::optional<MessageQueue> queue;
  if (options.queue) queue = queue_with_namespace(name_space(), *options.queue);
  if (queue && queue->topic != topic) {
    return Status::invalid_argument("message's topic not equal mq's topic: " + std::string(topic) + " vs " +
                                    queue->topic);
  }
  return SendTarget{.queue = std::move(queue), .selector = options.selector, .argument = options.argument};
}

Status Producer::Impl::start() {
  std::lock_guard lock(lifecycle_mutex_);
  if (state_ != State::kCreated) {
    return Status::unavailable("producer " + config_.group + " was started before (a producer starts once)");
  }
  if (given_instance_) {
    ClientConfig client = given_instance_->config();
    client.selector = config_.client.selector;
    client.fault_strategy = config_.client.fault_strategy;
    client.name_space = config_.client.name_space;
    config_.client = std::move(client);
  } else {
    config_.client = config_.client.resolved();
  }
  MQKIT_RETURN_IF_ERROR(config_.validate());
  // As RocketMQ's start(): the group is named with the namespace from here on (sends, heartbeats,
  // PGROUP of half messages, transaction checks).
  config_.group = protocol::wrap_namespace(name_space(), config_.group);
  std::shared_ptr<ClientInstance> instance = given_instance_;
  if (!instance) {
    MQKIT_ASSIGN_OR_RETURN(instance, ClientInstance::get_or_create(config_.client));
  }
  MQKIT_ASSIGN_OR_RETURN(auto selector, instance->make_plugin<v1::QueueSelector>(config_.client.selector));
  MQKIT_ASSIGN_OR_RETURN(auto fault_strategy, instance->make_plugin<v1::FaultStrategy>(config_.client.fault_strategy));
  MQKIT_RETURN_IF_ERROR(instance->register_producer(config_.group));
  MQKIT_RETURN_IF_ERROR(instance->start());
  if (config_.enable_msg_trace) {
    tracer_ = trace::MessageTracer::start(config_.client, config_.group, trace::TracedRole::kProduce,
                                          config_.customized_trace_topic);
  }
  if (tracer_) hooks_.insert(hooks_.begin(), unowned_hook<SendHook>(*tracer_));
  sender_ = std::make_unique<MessageSender>(*instance, config_, std::move(selector), std::move(fault_strategy), hooks_);
  if (config_.auto_batch) accumulator_ = std::make_unique<ProduceAccumulator>(*sender_, *instance, window_, config_);
  instance_ = std::move(instance);
  state_ = State::kRunning;
  gate_.open();
  (void)instance_->send_heartbeat_to_all_brokers();
  log()->info("producer {} started in client {}", config_.group, instance_->client_id());
  return Status::ok();
}

bool Producer::Impl::shutdown() {
  {
    std::lock_guard lock(lifecycle_mutex_);
    const bool running = state_ == State::kRunning;
    state_ = State::kShutDown;
    if (!running) return true;
  }
  // Every send ends by its deadline and the transport calls back within it; this bound only
  // guards against a transport that breaks that promise.
  const auto bound = Clock::now() + 2 * config_.send_msg_timeout + std::chrono::seconds(15);
  const bool closed = gate_.close(bound);
  if (closed && accumulator_) accumulator_->flush();
  if (!closed || !window_.wait_until_empty(bound)) {
    log()->error("producer {}: sends still pending after shutdown waited; leaking the producer to stay safe",
                 config_.group);
    safe_to_destroy_ = false;
    return false;
  }
  instance_->unregister_producer(config_.group);
  // The trace of the last sends goes out (bounded by the trace producer's send timeout); not under
  // the lifecycle lock, which instance() takes.
  if (tracer_) tracer_->shutdown();
  std::lock_guard lock(lifecycle_mutex_);
  accumulator_.reset();
  sender_.reset();
  log()->info("producer {} shut down", config_.group);
  instance_.reset();
  given_instance_.reset();  // the instance handed to the constructor, too
  return true;
}

Result<SendResult> Producer::Impl::send(Result<PreparedMessage> prepared, const SendOptions& options,
                                        Clock::time_point started) {
  if (!prepared) return prepared.status();
  MQKIT_ASSIGN_OR_RETURN(const SendTarget target, target_of(options, prepared->topic));
  MQKIT_ASSIGN_OR_RETURN(SendResult result,
                         sender_->send(std::make_shared<const PreparedMessage>(std::move(prepared).value()), target,
                                       started, deadline_of(options, started)));
  return for_application(std::move(result));
}

Status Producer::Impl::send_async(Result<PreparedMessage> prepared, SendCallback callback,
                                  const SendOptions& options, Clock::time_point started) {
  if (!callback) return Status::invalid_argument("send_async needs a callback");
  if (!prepared) return prepared.status();
  if (!name_space().empty()) {
    callback = [this, callback = std::move(callback)](Result<SendResult> result) {
      callback(result ? Result<SendResult>(for_application(std::move(result).value())) : std::move(result));
    };
  }
  MQKIT_ASSIGN_OR_RETURN(SendTarget target, target_of(options, prepared->topic));
  const auto deadline = deadline_of(options, started);
  const std::size_t bytes = window_bytes_of(*prepared, config_);
  MQKIT_RETURN_IF_ERROR(window_.acquire(bytes, deadline));
  auto message = std::make_shared<const PreparedMessage>(std::move(prepared).value());
  if (accumulator_ && message->batchable && !message->batch) {
    // The accumulator releases the room after the callback, as `finish` below does.
    Status added = accumulator_->add(std::move(message), target, started, deadline, std::move(callback), bytes);
    if (!added) window_.release(bytes);  // the callback will not be called
    return added;
  }
  SendCallback finish = [this, bytes, callback = std::move(callback)](Result<SendResult> result) {
    // Released after the callback: once shutdown's drain ends, no callback runs.
    WindowSlot slot(window_, bytes);
    callback(std::move(result));
  };
  sender_->send_async(std::move(message), std::move(target), started, deadline, std::move(finish));
  return Status::ok();
}

Status Producer::Impl::send_oneway(Result<PreparedMessage> prepared, const SendOptions& options) {
  if (!prepared) return prepared.status();
  MQKIT_ASSIGN_OR_RETURN(const SendTarget target, target_of(options, prepared->topic));
  return sender_->send_oneway(std::make_shared<const PreparedMessage>(std::move(prepared).value()), target);
}

Result<std::string> Producer::Impl::start_request(Message message, RequestCallback callback,
                                                  std::chrono::milliseconds timeout, const SendOptions& options,
                                                  Clock::time_point started) {
  if (!callback) return Status::invalid_argument("request_async needs a callback");
  if (timeout <= std::chrono::milliseconds::zero()) {
    return Status::invalid_argument("a request needs a positive timeout, not " + std::to_string(timeout.count()) + " ms");
  }
  if (options.timeout) {
    return Status::invalid_argument("a request's timeout is its own argument: leave SendOptions::timeout unset");
  }
  apply_namespace(name_space(), message);
  MQKIT_RETURN_IF_ERROR(validate_message(message, config_));
  if (!name_space().empty()) {
    // The reply comes on the responder's reply topic, named with its (the same) namespace.
    callback = [name_space = name_space(), callback = std::move(callback)](Result<MessageExt> reply) {
      if (reply) strip_namespace(name_space, *reply);
      callback(std::move(reply));
    };
  }
  // As RocketMQ's prepareSendRequest: a topic new to this client gets its route and a heartbeat
  // first, so the brokers know this client's connection before a reply has to find it.
  if (!instance_->cached_route(message.topic())) {
    (void)instance_->publish_route(message.topic(), sender_->fallback());
    (void)instance_->send_heartbeat_to_all_brokers();
  }
  std::string correlation_id = tag_request(message, instance_->client_id(), timeout);
  const std::string topic = message.topic();
  const std::shared_ptr<PendingRequests> pending = instance_->pending_requests();
  MQKIT_RETURN_IF_ERROR(pending->add(correlation_id, topic, started, timeout, std::move(callback)));
  SendOptions send_options = options;
  send_options.timeout = timeout;
  // Only a failed send ends the request here; a reply may even arrive before the send's answer.
  SendCallback on_sent = [pending, correlation_id, topic](Result<SendResult> sent) {
    if (!sent) {
      pending->fail(correlation_id, Status(sent.status().code(), "send request message to <" + topic +
                                                                     "> fail: " + sent.status().message()));
    }
  };
  if (Status queued = send_async(prepare(std::move(message)), std::move(on_sent), send_options, started);
      !queued) {
    pending->forget(correlation_id);  // the caller gets `queued` instead of a callback
    return queued;
  }
  return correlation_id;
}

// ---- Producer ------------------------------------------------------------------------------

Producer::Producer(ProducerConfig config) : impl_(std::make_unique<Impl>(std::move(config), nullptr)) {}

Producer::Producer(ProducerConfig config, std::shared_ptr<ClientInstance> instance)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(instance))) {}

Producer::~Producer() {
  impl_->shutdown();
  if (!impl_->safe_to_destroy_) (void)impl_.release();  // see Impl::shutdown
}

Status Producer::start() { return impl_->start(); }

Status Producer::register_send_hook(std::shared_ptr<SendHook> hook) { return impl_->add_send_hook(std::move(hook)); }

void Producer::shutdown() { (void)impl_->shutdown(); }

Result<SendResult> Producer::send(Message message, const SendOptions& options) {
  const auto started = Clock::now();
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  return impl_->send(impl_->prepare(std::move(message)), options, started);
}

Result<SendResult> Producer::send_batch(std::vector<Message> messages, const SendOptions& options) {
  const auto started = Clock::now();
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  return impl_->send(impl_->prepare(std::move(messages)), options, started);
}

Status Producer::send_async(Message message, SendCallback callback, const SendOptions& options) {
  const auto started = Clock::now();
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  return impl_->send_async(impl_->prepare(std::move(message)), std::move(callback), options, started);
}

std::future<Result<SendResult>> Producer::send_async(Message message, const SendOptions& options) {
  auto promise = std::make_shared<std::promise<Result<SendResult>>>();
  auto future = promise->get_future();
  const Status queued = send_async(
      std::move(message), [promise](Result<SendResult> result) { promise->set_value(std::move(result)); }, options);
  if (!queued) promise->set_value(queued);
  return future;
}

Status Producer::send_batch_async(std::vector<Message> messages, SendCallback callback, const SendOptions& options) {
  const auto started = Clock::now();
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  return impl_->send_async(impl_->prepare(std::move(messages)), std::move(callback), options, started);
}

Status Producer::send_oneway(Message message, const SendOptions& options) {
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  return impl_->send_oneway(impl_->prepare(std::move(message)), options);
}

Result<MessageExt> Producer::request(Message message, std::chrono::milliseconds timeout, const SendOptions& options) {
  const auto started = Clock::now();
  auto promise = std::make_shared<std::promise<Result<MessageExt>>>();
  auto reply = promise->get_future();
  std::shared_ptr<PendingRequests> pending;
  std::string correlation_id;
  {
    GatePass pass(impl_->gate_);
    if (!pass) return impl_->not_running();
    auto started_request = impl_->start_request(
        std::move(message), [promise](Result<MessageExt> result) { promise->set_value(std::move(result)); }, timeout,
        options, started);
    if (!started_request) return started_request.status();
    correlation_id = std::move(started_request).value();
    pending = impl_->instance_->pending_requests();
  }
  // Ends it at its deadline rather than at the periodic expiry up to a second later; when a reply
  // or a failure ended it meanwhile, the future is ready already.
  if (reply.wait_until(started + timeout) != std::future_status::ready) pending->time_out(correlation_id);
  return reply.get();
}

Status Producer::request_async(Message message, RequestCallback callback, std::chrono::milliseconds timeout,
                               const SendOptions& options) {
  const auto started = Clock::now();
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  auto started_request = impl_->start_request(std::move(message), std::move(callback), timeout, options, started);
  return started_request ? Status::ok() : started_request.status();
}

Result<std::shared_ptr<QueueSelector>> Producer::make_selector(const PluginChoice& choice) const {
  return create_plugin_as<QueueSelector>(impl_->config_.client.plugin_dirs, choice);
}

Result<std::string> Producer::recall_message(std::string_view topic, std::string_view recall_handle) {
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  MQKIT_ASSIGN_OR_RETURN(const protocol::timer::RecallHandle handle, protocol::timer::decode_recall_handle(recall_handle));
  const std::string wrapped = protocol::wrap_namespace(impl_->name_space(), topic);
  // The broker holding the message may be unknown to this client yet: learn the topic's route.
  MQKIT_RETURN_IF_ERROR(impl_->instance_->publish_route(wrapped, impl_->sender_->fallback()).status());
  const std::string address = impl_->instance_->find_broker_master(handle.broker_name);
  if (address.empty()) return Status::not_found("no master address for broker " + handle.broker_name);
  return impl_->instance_->api().recall_message(address, impl_->config_.group, wrapped, recall_handle,
                                               impl_->config_.send_msg_timeout);
}

Result<std::vector<MessageQueue>> Producer::fetch_publish_message_queues(std::string_view topic) {
  GatePass pass(impl_->gate_);
  if (!pass) return impl_->not_running();
  const std::string& name_space = impl_->name_space();
  MQKIT_ASSIGN_OR_RETURN(auto route, impl_->instance_->publish_route(protocol::wrap_namespace(name_space, topic),
                                                                     impl_->sender_->fallback()));
  return converted_queues(route->publish.queues, name_space, queue_without_namespace);
}

const ProducerConfig& Producer::config() const noexcept { return impl_->config_; }

std::shared_ptr<ClientInstance> Producer::instance() const {
  std::lock_guard lock(impl_->lifecycle_mutex_);
  return impl_->instance_;
}

std::size_t Producer::async_in_flight() const { return impl_->window_.messages_in_flight(); }

trace::MessageTracer* Producer::tracer() const noexcept { return impl_->tracer_.get(); }

}  // namespace mqkit::client
