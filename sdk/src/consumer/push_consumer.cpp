#include "mqkit/client/push_consumer.hpp"

#include "consume_service.hpp"
#include "consumer_startup.hpp"
#include "../lifecycle_gate.hpp"
#include "../namespaced_names.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/periodic_tasks.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/validation.hpp"
#include "offset_reset.hpp"
#include "pull_request.hpp"
#include "queue_broker.hpp"
#include "rebalancer.hpp"
#include "running_info.hpp"
#include "task_scheduler.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
using std::chrono::milliseconds;

namespace {

// A queue over its flow-control thresholds is looked at again after this (RocketMQ's 50 ms).
constexpr milliseconds kFlowControlDelay{50};
// Queues given up during a rebalance wait this long for their orderly listener.
constexpr milliseconds kRemoveOrderlyWait{1000};
// Shutdown waits at most this long for pull callbacks and rebalance rounds under way.
constexpr milliseconds kShutdownBound{60000};

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

// The next pull of one queue (RocketMQ's PullRequest).
struct PullRequest {
  MessageQueue queue;
  std::shared_ptr<ProcessQueue> process_queue;
  std::int64_t next_offset = 0;
};

}  // namespace

// Threads: start/shutdown from the owner; rebalance/persist_offsets from the instance's threads;
// delayed pulls on the scheduler thread, immediate ones on the transport thread that delivered
// the queue's previous answer, callbacks on transport threads; listeners on the consume
// service's pool. The gate keeps callbacks and rounds out of a consumer being shut down; pull
// callbacks hold a shared_ptr to the Impl because the transport may answer after shutdown.
class PushConsumer::Impl final : public ConsumerMember,
                                 public RebalanceListener,
                                 public OffsetResetTarget,
                                 public std::enable_shared_from_this<PushConsumer::Impl> {
 public:
  Impl(ConsumerConfig config, std::shared_ptr<ClientInstance> given)
      : config_(std::move(config)), given_instance_(std::move(given)) {}

  Status subscribe(const std::string& topic, const MessageSelector& selector);
  // Into concurrent_listener_ or orderly_listener_: one listener, before start().
  template <typename Listener>
  Status set_listener(Listener listener, Listener& slot);
  Status add_consume_hook(std::shared_ptr<ConsumeHook> hook) {
    std::lock_guard lock(lifecycle_mutex_);
    return add_hook(hooks_, std::move(hook), state_ != State::kCreated, "consumer " + config_.group);
  }
  Status start();
  void shutdown();

  // ConsumerMember
  std::string group() const override { return config_.group; }
  protocol::ConsumerData consumer_data() const override;
  std::vector<std::string> subscribed_topics() const override;
  void rebalance() override;
  void persist_offsets() override;
  protocol::ConsumerRunningInfo running_info() const override;
  std::map<MessageQueue, std::int64_t> offset_table(std::string_view topic) const override;

  // RebalanceListener
  void on_queue_added(const MessageQueue& queue, const std::shared_ptr<ProcessQueue>& process_queue,
                      std::int64_t next_offset) override;
  bool on_queue_removing(const MessageQueue& queue, ProcessQueue& process_queue) override;

  // OffsetResetTarget
  void reset_offsets(const std::string& topic, const std::map<MessageQueue, std::int64_t>& offsets) override;

  std::set<MessageQueue> owned_queues() const;
  std::map<MessageQueue, std::int64_t> consume_offsets() const;

  ConsumerConfig config_;
  std::shared_ptr<ClientInstance> given_instance_;

  mutable std::mutex lifecycle_mutex_;
  enum class State { kCreated, kRunning, kShutDown } state_ = State::kCreated;
  // Set before start(), read-only once running (heartbeats read it from the instance's threads).
  std::map<std::string, SubscriptionData> subscriptions_;
  ConcurrentListener concurrent_listener_;
  OrderlyListener orderly_listener_;
  std::shared_ptr<ClientInstance> instance_;

 private:
  bool orderly() const noexcept { return static_cast<bool>(orderly_listener_); }
  bool clustering() const noexcept { return config_.message_model == MessageModel::kClustering; }
  void pull(PullRequest request);
  void pull_later(PullRequest request, milliseconds delay);
  // From a pull's callback: the next pull of the queue, sent at once from this thread when there
  // is no delay (a thread handoff less between a message's arrival and the pull after it).
  void pull_next(PullRequest request, milliseconds delay);
  void on_pulled(PullRequest request, Result<PullResult> result);
  // RocketMQ's resetRetryAndNamespace: a message redelivered through the retry topic shows its
  // original topic, without the namespace; and the tag filter the broker could only apply by hash
  // code.
  std::vector<MessageExt> prepare(std::vector<MessageExt> messages, const MessageQueue& queue,
                                  const SubscriptionData& subscription) const;

  mutable LifecycleGate gate_;  // running_info() (const) passes it too
  std::shared_ptr<OffsetStore> offsets_;
  std::unique_ptr<Rebalancer> rebalancer_;
  std::unique_ptr<TaskScheduler> scheduler_;
  std::unique_ptr<trace::MessageTracer> tracer_;  // with enable_msg_trace; outlives consume_service_
  ConsumeHooks hooks_;  // the tracer first; fixed from start()
  std::unique_ptr<ConsumeService> consume_service_;
  PullFromWhichNode pull_from_;
  kernel::PeriodicTasks lock_task_;
  std::atomic<std::int64_t> start_timestamp_ms_{0};
};

// ---- Setup ---------------------------------------------------------------------------------

Status PushConsumer::Impl::subscribe(const std::string& topic, const MessageSelector& selector) {
  const std::string wrapped = protocol::wrap_namespace(config_.client.name_space, topic);
  MQKIT_ASSIGN_OR_RETURN(SubscriptionData subscription, make_subscription(wrapped, selector));
  std::lock_guard lock(lifecycle_mutex_);
  if (state_ != State::kCreated) return Status::unavailable("subscribe before start(): consumer " + config_.group);
  subscriptions_[wrapped] = std::move(subscription);
  return Status::ok();
}

template <typename Listener>
Status PushConsumer::Impl::set_listener(Listener listener, Listener& slot) {
  if (!listener) return Status::invalid_argument("the listener is empty");
  std::lock_guard lock(lifecycle_mutex_);
  if (state_ != State::kCreated) return Status::unavailable("register the listener before start()");
  if (concurrent_listener_ || orderly_listener_) return Status::already_exists("a listener is registered already");
  slot = std::move(listener);
  return Status::ok();
}

Status PushConsumer::Impl::start() {
  std::lock_guard lock(lifecycle_mutex_);
  if (state_ != State::kCreated) {
    return Status::unavailable("consumer " + config_.group + " was started before (a consumer starts once)");
  }
  if (!concurrent_listener_ && !orderly_listener_) {
    return Status::invalid_argument("consumer " + config_.group + " has no listener: call register_listener first");
  }
  if (subscriptions_.empty()) {
    return Status::invalid_argument("consumer " + config_.group + " subscribes to nothing: call subscribe first");
  }
  MQKIT_ASSIGN_OR_RETURN(ConsumerParts parts, make_consumer_parts(config_, given_instance_, orderly(), *this));
  std::shared_ptr<ClientInstance> instance = std::move(parts.instance);
  offsets_ = std::move(parts.offsets);
  rebalancer_ = std::move(parts.rebalancer);
  if (clustering()) {
    SubscriptionData retry = retry_subscription(config_.group);
    subscriptions_[retry.topic] = std::move(retry);
  }
  for (const auto& [topic, subscription] : subscriptions_) rebalancer_->set_subscription(subscription);
  scheduler_ = std::make_unique<TaskScheduler>("pull-" + config_.group);
  tracer_ = std::move(parts.tracer);
  if (tracer_) hooks_.insert(hooks_.begin(), unowned_hook<ConsumeHook>(*tracer_));
  const ConsumeEnvironment environment{config_, *instance, *offsets_, *rebalancer_, *scheduler_, hooks_};
  consume_service_ = orderly() ? make_orderly_consume_service(environment, orderly_listener_)
                               : make_concurrent_consume_service(environment, concurrent_listener_);
  if (Status registered = instance->register_consumer(shared_from_this()); !registered) {
    consume_service_.reset();
    scheduler_.reset();
    rebalancer_.reset();
    return registered;
  }
  instance_ = std::move(instance);
  serve_offset_resets(*instance_, config_.group, weak_from_this());
  state_ = State::kRunning;
  start_timestamp_ms_ = kernel::wall_clock_ms();
  gate_.open();
  if (orderly() && clustering()) {
    lock_task_.add("lock-queues", config_.lock_interval, config_.lock_interval, [this] {
      GatePass pass(gate_);
      if (pass) rebalancer_->lock_all();
    });
    lock_task_.start();
  }
  MQKIT_RETURN_IF_ERROR(instance_->start());
  announce_consumer(*instance_, config_.group, subscribed_topics());
  instance_->rebalance_now();
  log()->info("consumer {} ({}, {}, {}) started in client {}", config_.group, to_string(config_.message_model),
              orderly() ? "orderly" : "concurrently", to_string(config_.consume_from_where), instance_->client_id());
  return Status::ok();
}

void PushConsumer::Impl::shutdown() {
  {
    std::lock_guard lock(lifecycle_mutex_);
    const bool running = state_ == State::kRunning;
    state_ = State::kShutDown;
    if (!running) return;
  }
  lock_task_.stop();
  scheduler_->stop();  // no more pulls start
  if (!gate_.close(std::chrono::steady_clock::now() + kShutdownBound)) {
    // Only a transport that broke its promise gets here; tearing down under it would crash.
    log()->error("consumer {}: pull callbacks still running after {} ms; leaving the consumer as it is",
                 config_.group, kShutdownBound.count());
    return;
  }
  consume_service_->shutdown();  // running listeners finish and commit
  if (tracer_) tracer_->shutdown();  // the trace of the last listener calls goes out
  rebalancer_->remove_all();     // persists every offset, releases orderly locks
  stop_serving_offset_resets(*instance_, config_.group);
  instance_->unregister_consumer(config_.group);
  log()->info("consumer {} shut down", config_.group);
  // Nothing may keep the instance alive from here: a pull answered later holds this object, and
  // the instance must not end up destroyed on a transport thread.
  std::lock_guard lock(lifecycle_mutex_);
  consume_service_.reset();
  scheduler_.reset();
  rebalancer_.reset();
  offsets_.reset();
  instance_.reset();
  given_instance_.reset();  // the instance handed to the constructor, too
}

// ---- ConsumerMember ------------------------------------------------------------------------

protocol::ConsumerData PushConsumer::Impl::consumer_data() const {
  return consumer_heartbeat_data(config_, "CONSUME_PASSIVELY", subscriptions_);
}

std::vector<std::string> PushConsumer::Impl::subscribed_topics() const {
  std::vector<std::string> topics;
  for (const auto& [topic, subscription] : subscriptions_) topics.push_back(topic);
  return topics;
}

void PushConsumer::Impl::rebalance() {
  GatePass pass(gate_);
  if (pass) (void)rebalancer_->rebalance();
}

void PushConsumer::Impl::persist_offsets() {
  GatePass pass(gate_);
  if (pass) offsets_->persist_all(rebalancer_->owned_queues());
}

std::map<MessageQueue, std::int64_t> PushConsumer::Impl::offset_table(std::string_view topic) const {
  GatePass pass(gate_);
  if (!pass) return {};  // not running: no offsets held
  return offsets_->offsets(topic);
}

protocol::ConsumerRunningInfo PushConsumer::Impl::running_info() const {
  GatePass pass(gate_);
  if (!pass) return {};  // not running: no queues, no offsets to show
  protocol::ConsumerRunningInfo info =
      consumer_running_info(config_, start_timestamp_ms_.load(), subscriptions_, rebalancer_->process_queues(), *offsets_);
  auto& p = info.properties;
  const std::string threads = std::to_string(config_.consume_thread_count);
  p["consumeMessageBatchMaxSize"] = std::to_string(config_.consume_message_batch_max_size);
  p["consumeConcurrentlyMaxSpan"] = std::to_string(config_.consume_concurrently_max_span);
  p["maxReconsumeTimes"] = std::to_string(config_.effective_max_reconsume_times(orderly()));
  p["consumeThreadMin"] = threads;
  p["consumeThreadMax"] = threads;
  // Minutes, as RocketMQ; a timeout set in code below a minute shows as its milliseconds.
  const auto timeout_ms = config_.consume_timeout.count();
  p["consumeTimeout"] = timeout_ms % 60000 == 0 ? std::to_string(timeout_ms / 60000) : std::to_string(timeout_ms) + "ms";
  p["pullInterval"] = std::to_string(config_.pull_interval.count());
  p["suspendCurrentQueueTimeMillis"] = std::to_string(config_.suspend_current_queue_time.count());
  p[std::string(protocol::ConsumerRunningInfo::kPropConsumeOrderly)] = orderly() ? "true" : "false";
  p[std::string(protocol::ConsumerRunningInfo::kPropThreadPoolCoreSize)] = threads;
  return info;
}

// ---- RebalanceListener ---------------------------------------------------------------------

void PushConsumer::Impl::on_queue_added(const MessageQueue& queue, const std::shared_ptr<ProcessQueue>& process_queue,
                                        std::int64_t next_offset) {
  pull_later(PullRequest{queue, process_queue, next_offset}, milliseconds(0));
}

bool PushConsumer::Impl::on_queue_removing(const MessageQueue& queue, ProcessQueue& process_queue) {
  std::unique_lock<std::timed_mutex> consuming(process_queue.consume_mutex(), std::defer_lock);
  // Until a system_clock time: try_lock_for waits with pthread_mutex_clocklock, which GCC 12's
  // ThreadSanitizer does not see (it then reports the unlock as one of an unlocked mutex); a wall
  // clock step during this one-second wait only shortens or stretches it.
  if (orderly() && clustering() &&
      !consuming.try_lock_until(std::chrono::system_clock::now() + kRemoveOrderlyWait)) {
    log()->info("{}: {} is still being consumed; giving it up on a later rebalance", config_.group,
                queue.to_string());
    return false;
  }
  if (Status s = offsets_->persist(queue); !s) {
    log()->warn("{}: persisting the offset of {}: {}", config_.group, queue.to_string(), s.to_string());
  }
  offsets_->remove(queue);
  return true;
}

void PushConsumer::Impl::reset_offsets(const std::string& topic,
                                       const std::map<MessageQueue, std::int64_t>& offsets) {
  GatePass pass(gate_);
  if (!pass) return;
  // What is cached or being consumed belongs to the old offsets: drop it, take the new ones
  // (the broker has them already; a local file gets them now), and rebalance to resume there.
  // Each broker sends its own notice, naming only its queues; the others are left alone.
  std::set<MessageQueue> queues;
  for (const auto& [queue, offset] : offsets) {
    if (queue.topic == topic) queues.insert(queue);
  }
  rebalancer_->forget(topic, queues);
  for (const auto& [queue, offset] : offsets) {
    if (queue.topic != topic) continue;
    offsets_->update(queue, offset, false);
    if (Status s = offsets_->persist(queue); !s) {
      log()->warn("{}: persisting the reset offset of {}: {}", config_.group, queue.to_string(), s.to_string());
    }
  }
  log()->info("{}: offsets of {} reset; resuming from them", config_.group, topic);
  instance_->rebalance_now();
}

std::set<MessageQueue> PushConsumer::Impl::owned_queues() const {
  std::lock_guard lock(lifecycle_mutex_);
  if (!rebalancer_) return {};
  return converted_queues(rebalancer_->owned_queues(), config_.client.name_space, queue_without_namespace);
}

std::map<MessageQueue, std::int64_t> PushConsumer::Impl::consume_offsets() const {
  std::lock_guard lock(lifecycle_mutex_);
  std::map<MessageQueue, std::int64_t> out;
  if (!rebalancer_) return out;
  for (const auto& queue : rebalancer_->owned_queues()) {
    auto offset = offsets_->read(queue, ReadOffsetType::kMemory);
    out[queue_without_namespace(config_.client.name_space, queue)] = offset ? *offset : -1;
  }
  return out;
}

// ---- Pulling -------------------------------------------------------------------------------

void PushConsumer::Impl::pull_later(PullRequest request, milliseconds delay) {
  scheduler_->post_after(delay, [this, request = std::move(request)]() mutable { pull(std::move(request)); });
}

namespace {
// Set while pull() sends: a pull answered on the sending thread (a failure, or a transport
// without threads) must not pull again from inside the send.
thread_local bool sending_pull = false;
}  // namespace

void PushConsumer::Impl::pull_next(PullRequest request, milliseconds delay) {
  // pull() blocks only to look a broker up at the name server: that stays on the scheduler.
  if (delay.count() == 0 && !sending_pull &&
      instance_->find_broker(request.queue.broker_name, 0, false).has_value()) {
    return pull(std::move(request));
  }
  pull_later(std::move(request), delay);
}

void PushConsumer::Impl::pull(PullRequest request) {
  GatePass pass(gate_);
  if (!pass) return;
  ProcessQueue& process_queue = *request.process_queue;
  if (process_queue.dropped()) return;
  process_queue.mark_pulled();
  // Flow control: the listener is behind; look again shortly.
  if (process_queue.message_count() > static_cast<std::size_t>(config_.pull_threshold_for_queue) ||
      process_queue.message_bytes() > config_.pull_threshold_size_for_queue ||
      (!orderly() && process_queue.max_span() > config_.consume_concurrently_max_span)) {
    return pull_later(std::move(request), kFlowControlDelay);
  }
  if (orderly() && clustering() && !process_queue.locked()) {
    return pull_later(std::move(request), config_.pull_time_delay_when_exception);
  }
  const auto subscription = rebalancer_->subscription(request.queue.topic);
  if (!subscription) return pull_later(std::move(request), config_.pull_time_delay_when_exception);
  auto broker = pull_broker_of(*instance_, request.queue, pull_from_.of(request.queue));
  if (!broker) {
    log()->warn("{}: {}; pulling {} later", config_.group, broker.status().to_string(), request.queue.to_string());
    return pull_later(std::move(request), config_.pull_time_delay_when_exception);
  }
  PullMessageRequest pull = make_pull_request(config_, request.queue, request.next_offset, *subscription);
  // A slave stores no offsets: they reach the master by UPDATE_CONSUMER_OFFSET.
  if (clustering() && !broker->slave) {
    auto committed = offsets_->read(request.queue, ReadOffsetType::kMemory);
    if (committed && *committed > 0) {
      pull.commit_offset = *committed;
      pull.sys_flag |= pull_sys_flag::kCommitOffset;
    }
  }
  sending_pull = true;
  instance_->api().pull_message_async(
      broker->address, pull, config_.consumer_timeout_when_suspend,
      [self = shared_from_this(), request = std::move(request)](Result<PullResult> result) mutable {
        self->on_pulled(std::move(request), std::move(result));
      });
  sending_pull = false;
}

std::vector<MessageExt> PushConsumer::Impl::prepare(std::vector<MessageExt> messages, const MessageQueue& queue,
                                                    const SubscriptionData& subscription) const {
  std::vector<MessageExt> out;
  out.reserve(messages.size());
  const std::string retry_topic = protocol::retry_topic(config_.group);
  for (auto& message : messages) {
    if (!tag_matches(subscription, message.tags())) continue;
    message.broker_name = queue.broker_name;
    if (message.topic() == retry_topic) {
      if (auto original = message.property(v1::property::kRetryTopic)) message.set_topic(std::string(*original));
    }
    strip_namespace(config_.client.name_space, message);
    out.push_back(std::move(message));
  }
  return out;
}

void PushConsumer::Impl::on_pulled(PullRequest request, Result<PullResult> result) {
  GatePass pass(gate_);
  if (!pass || request.process_queue->dropped()) return;
  if (!result) {
    log()->warn("{}: pulling {} at {}: {}", config_.group, request.queue.to_string(), request.next_offset,
                result.status().to_string());
    return pull_later(std::move(request), config_.pull_time_delay_when_exception);
  }
  pull_from_.update(request.queue, result->suggest_which_broker_id);
  const std::int64_t pulled_at = request.next_offset;
  request.next_offset = result->next_begin_offset;
  switch (result->status) {
    case PullStatus::kFound: {
      const auto subscription = rebalancer_->subscription(request.queue.topic);
      std::vector<MessageExt> messages =
          subscription ? prepare(std::move(result->messages), request.queue, *subscription) : std::vector<MessageExt>{};
      if (messages.empty()) return pull_next(std::move(request), milliseconds(0));
      const bool dispatch = request.process_queue->put(messages);
      consume_service_->submit(std::move(messages), request.process_queue, request.queue, dispatch);
      return pull_next(std::move(request), config_.pull_interval);
    }
    case PullStatus::kNoNewMsg:
    case PullStatus::kNoMatchedMsg:
      // Nothing to consume up to next_begin_offset: with an empty cache that is the offset to
      // commit (RocketMQ's correctTagsOffset).
      if (request.process_queue->message_count() == 0) {
        offsets_->update(request.queue, request.next_offset, true);
      }
      return pull_next(std::move(request), milliseconds(0));
    case PullStatus::kOffsetIllegal:
      log()->warn("{}: offset {} of {} is illegal; continuing at {}", config_.group, pulled_at,
                  request.queue.to_string(), request.next_offset);
      offsets_->update(request.queue, request.next_offset, false);
      if (Status s = offsets_->persist(request.queue); !s) {
        log()->warn("{}: persisting the corrected offset of {}: {}", config_.group, request.queue.to_string(),
                    s.to_string());
      }
      return pull_later(std::move(request), config_.pull_time_delay_when_exception);
  }
}

// ---- PushConsumer --------------------------------------------------------------------------

PushConsumer::PushConsumer(ConsumerConfig config) : impl_(std::make_shared<Impl>(std::move(config), nullptr)) {}

PushConsumer::PushConsumer(ConsumerConfig config, std::shared_ptr<ClientInstance> instance)
    : impl_(std::make_shared<Impl>(std::move(config), std::move(instance))) {}

PushConsumer::~PushConsumer() { impl_->shutdown(); }

Status PushConsumer::subscribe(const std::string& topic, const std::string& expression) {
  return impl_->subscribe(topic, MessageSelector::by_tag(expression));
}

Status PushConsumer::subscribe(const std::string& topic, const MessageSelector& selector) {
  return impl_->subscribe(topic, selector);
}

Status PushConsumer::register_listener(ConcurrentListener listener) {
  return impl_->set_listener(std::move(listener), impl_->concurrent_listener_);
}

Status PushConsumer::register_listener(OrderlyListener listener) {
  return impl_->set_listener(std::move(listener), impl_->orderly_listener_);
}

Status PushConsumer::register_consume_hook(std::shared_ptr<ConsumeHook> hook) {
  return impl_->add_consume_hook(std::move(hook));
}

Status PushConsumer::start() { return impl_->start(); }

void PushConsumer::shutdown() { impl_->shutdown(); }

const ConsumerConfig& PushConsumer::config() const noexcept { return impl_->config_; }

std::shared_ptr<ClientInstance> PushConsumer::instance() const {
  std::lock_guard lock(impl_->lifecycle_mutex_);
  return impl_->instance_;
}

std::set<MessageQueue> PushConsumer::owned_queues() const { return impl_->owned_queues(); }

std::map<MessageQueue, std::int64_t> PushConsumer::consume_offsets() const { return impl_->consume_offsets(); }

}  // namespace mqkit::client
