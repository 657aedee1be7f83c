#include "mqkit/client/lite_pull_consumer.hpp"

#include "../lifecycle_gate.hpp"
#include "../namespaced_names.hpp"
#include "consumer_startup.hpp"
#include "lite_pull_assignment.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/periodic_tasks.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/subscription_expression.hpp"
#include "mqkit/protocol/validation.hpp"
#include "offset_reset.hpp"
#include "pull_request.hpp"
#include "queue_broker.hpp"
#include "rebalancer.hpp"
#include "running_info.hpp"
#include "task_scheduler.hpp"
#include "topic_queue_watch.hpp"
#include "hook_calls.hpp"
#include "trace/message_tracer.hpp"

namespace mqkit::client {

using std::chrono::milliseconds;

namespace {

// Back-offs of a queue's pull loop (RocketMQ's lite pull consumer: PULL_TIME_DELAY_MILLS_WHEN_PAUSE
// and ..._WHEN_FLOW_CONTROL).
constexpr milliseconds kPausedDelay{1000};
constexpr milliseconds kFlowControlDelay{50};
// Shutdown waits at most this long for pull callbacks and calls under way.
constexpr milliseconds kShutdownBound{60000};

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

Status validate_queue(const MessageQueue& queue) {
  if (Status s = protocol::validate_topic(queue.topic); !s) return s.with_context("queue " + queue.to_string());
  if (queue.broker_name.empty() || queue.queue_id < 0) {
    return Status::invalid_argument("queue " + queue.to_string() + " needs a broker name and a queue id >= 0");
  }
  return Status::ok();
}

}  // namespace

// Threads: the application calls the public methods; the instance's threads call rebalance and
// persist_offsets; pull loops run on the scheduler thread and their answers on transport threads;
// queue change listeners run on the topic check thread.
// The gate keeps them all out of a consumer being shut down; pull answers hold a shared_ptr to the
// Impl because the transport may answer after shutdown.
class LitePullConsumer::Impl final : public ConsumerMember,
                                     public RebalanceListener,
                                     public OffsetResetTarget,
                                     public std::enable_shared_from_this<LitePullConsumer::Impl> {
 public:
  Impl(ConsumerConfig config, std::shared_ptr<ClientInstance> given)
      : name_space_(config.client.name_space), config_(std::move(config)), given_instance_(std::move(given)) {}

  // Not config_'s: start() rewrites config_.client while the API may be called.
  const std::string& name_space() const noexcept { return name_space_; }

  Status subscribe(const std::string& topic, const MessageSelector& selector);
  Status assign(const std::vector<MessageQueue>& queues);
  Status unsubscribe(const std::string& topic);
  Status watch_topic(const std::string& topic, TopicMessageQueueChangeListener listener);
  Status start();
  void shutdown();
  Status add_consume_hook(std::shared_ptr<ConsumeHook> hook) {
    std::lock_guard lock(lifecycle_mutex_);
    return add_hook(hooks_, std::move(hook), state_ != State::kCreated, "consumer " + config_.group);
  }

  Result<std::vector<MessageExt>> poll(milliseconds timeout);
  Status seek(const MessageQueue& queue, std::int64_t offset);
  Result<std::int64_t> min_offset(const MessageQueue& queue);
  Result<std::int64_t> max_offset(const MessageQueue& queue);
  Result<std::int64_t> offset_for_timestamp(const MessageQueue& queue, std::int64_t timestamp_ms);
  Status commit();
  Status commit(const std::map<MessageQueue, std::int64_t>& offsets);
  Result<std::int64_t> committed(const MessageQueue& queue);
  Status pause(const std::vector<MessageQueue>& queues);
  Status resume(const std::vector<MessageQueue>& queues);
  Result<std::vector<MessageQueue>> fetch_message_queues(const std::string& topic);
  std::set<MessageQueue> assignment() const { return assignment_.queues(); }

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

  const std::string name_space_;
  ConsumerConfig config_;
  std::shared_ptr<ClientInstance> given_instance_;
  mutable std::mutex lifecycle_mutex_;
  std::shared_ptr<ClientInstance> instance_;

 private:
  enum class State { kCreated, kRunning, kShutDown };
  // How the consumer gets its queues; fixed by the first subscribe() or assign().
  enum class Mode { kNone, kSubscribe, kAssign };

  Status not_running() const;
  // Adds / drops assigned queues to match `queues` (assign mode, running).
  void apply_assignment(const std::set<MessageQueue>& queues);
  // Forgets an owned queue: commits its poll position (auto_commit), persists and drops its offset.
  void release(const MessageQueue& queue);
  Status require_owned(const MessageQueue& queue) const;
  // The subscription pulls of `topic` carry: subscribed, or "*" for assigned queues.
  std::shared_ptr<const SubscriptionData> subscription_of(const std::string& topic) const;
  Status persist(const std::set<MessageQueue>& queues);
  // The readable queues of `topic` as the name server tells them now (the route is cached too).
  Result<std::vector<MessageQueue>> name_server_queues(const std::string& topic);
  TopicQueueWatch::QueueSource queue_source() {
    return [this](const std::string& topic) { return name_server_queues(topic); };
  }

  void start_loop(const MessageQueue& queue, std::uint64_t epoch) { pull_later(queue, epoch, milliseconds(0)); }
  void pull_later(const MessageQueue& queue, std::uint64_t epoch, milliseconds delay);
  void pull(const MessageQueue& queue, std::uint64_t epoch);
  // For a queue whose start is unknown (assigned): looks it up, then starts the loop of `epoch`.
  void find_start(const MessageQueue& queue, std::uint64_t epoch);
  void on_pulled(const MessageQueue& queue, std::uint64_t epoch, std::int64_t pulled_at, Result<PullResult> result);
  std::vector<MessageExt> filter(std::vector<MessageExt> messages, const MessageQueue& queue) const;

  mutable LifecycleGate gate_;  // running_info() (const) passes it too
  std::atomic<std::int64_t> start_timestamp_ms_{0};
  State state_ = State::kCreated;  // guarded by lifecycle_mutex_

  mutable std::mutex mode_mutex_;  // mode_, subscriptions_, assigned_, assigned_subscriptions_
  Mode mode_ = Mode::kNone;
  std::map<std::string, SubscriptionData> subscriptions_;
  std::set<MessageQueue> assigned_;
  std::map<std::string, std::shared_ptr<const SubscriptionData>> assigned_subscriptions_;

  LitePullAssignment assignment_;
  PullFromWhichNode pull_from_;
  std::mutex commit_mutex_;  // one commit at a time; guards next_auto_commit_
  std::chrono::steady_clock::time_point next_auto_commit_{};

  TopicQueueWatch queue_watch_;
  kernel::PeriodicTasks topic_check_;  // runs queue_watch_'s checks

  // Set by start(), dropped by shutdown().
  std::shared_ptr<OffsetStore> offsets_;
  std::unique_ptr<Rebalancer> rebalancer_;
  std::unique_ptr<TaskScheduler> scheduler_;
  std::unique_ptr<trace::MessageTracer> tracer_;  // with enable_msg_trace; kept after shutdown
  ConsumeHooks hooks_;  // the tracer first; fixed from start()
};

// ---- Setup ---------------------------------------------------------------------------------

Status LitePullConsumer::Impl::subscribe(const std::string& topic, const MessageSelector& selector) {
  MQKIT_ASSIGN_OR_RETURN(SubscriptionData subscription, make_subscription(topic, selector));
  std::lock_guard lifecycle(lifecycle_mutex_);
  if (state_ == State::kShutDown) return Status::unavailable("consumer " + config_.group + " is shut down");
  {
    std::lock_guard lock(mode_mutex_);
    if (mode_ == Mode::kAssign) {
      return Status::invalid_argument("consumer " + config_.group +
                                      " was assigned queues: subscribe and assign are mutually exclusive");
    }
    mode_ = Mode::kSubscribe;
    subscriptions_[topic] = subscription;
  }
  if (state_ != State::kRunning) return Status::ok();
  rebalancer_->set_subscription(std::move(subscription));
  announce_consumer(*instance_, config_.group, {topic});
  instance_->rebalance_now();
  return Status::ok();
}

Status LitePullConsumer::Impl::assign(const std::vector<MessageQueue>& queues) {
  for (const auto& queue : queues) MQKIT_RETURN_IF_ERROR(validate_queue(queue));
  std::lock_guard lifecycle(lifecycle_mutex_);
  if (state_ == State::kShutDown) return Status::unavailable("consumer " + config_.group + " is shut down");
  const std::set<MessageQueue> wanted(queues.begin(), queues.end());
  {
    std::lock_guard lock(mode_mutex_);
    if (mode_ == Mode::kSubscribe) {
      return Status::invalid_argument("consumer " + config_.group +
                                      " subscribed to topics: subscribe and assign are mutually exclusive");
    }
    mode_ = Mode::kAssign;
    assigned_ = wanted;
    for (const auto& queue : wanted) {
      if (!assigned_subscriptions_.contains(queue.topic)) {
        MQKIT_ASSIGN_OR_RETURN(SubscriptionData all, make_subscription(queue.topic, protocol::kSubscribeAll));
        assigned_subscriptions_[queue.topic] = std::make_shared<const SubscriptionData>(std::move(all));
      }
    }
  }
  if (state_ == State::kRunning) apply_assignment(wanted);
  return Status::ok();
}

Status LitePullConsumer::Impl::unsubscribe(const std::string& topic) {
  MQKIT_RETURN_IF_ERROR(protocol::validate_topic(topic));
  std::lock_guard lifecycle(lifecycle_mutex_);
  bool subscribed = false;
  bool assigned = false;
  std::set<MessageQueue> still_assigned;
  {
    std::lock_guard lock(mode_mutex_);
    subscribed = subscriptions_.erase(topic) > 0;
    assigned = std::erase_if(assigned_, [&topic](const MessageQueue& queue) { return queue.topic == topic; }) > 0;
    assigned_subscriptions_.erase(topic);
    still_assigned = assigned_;
  }
  if (state_ != State::kRunning) return Status::ok();
  if (subscribed) {
    rebalancer_->remove_subscription(topic);  // releases the topic's queues
    // The brokers learn it now rather than at the next periodic heartbeat.
    if (Status s = instance_->send_heartbeat_to_all_brokers(); !s) {
      log()->warn("consumer {}: heartbeat after unsubscribing {}: {}", config_.group, topic, s.to_string());
    }
  }
  if (assigned) apply_assignment(still_assigned);
  log()->info("consumer {} unsubscribed {}", config_.group, topic);
  return Status::ok();
}

Status LitePullConsumer::Impl::watch_topic(const std::string& topic, TopicMessageQueueChangeListener listener) {
  MQKIT_RETURN_IF_ERROR(protocol::validate_topic(topic));
  if (!listener) return Status::invalid_argument("the queue change listener of " + topic + " is empty");
  std::lock_guard lifecycle(lifecycle_mutex_);
  if (state_ == State::kShutDown) return Status::unavailable("consumer " + config_.group + " is shut down");
  // Running: changes count from the queues there are now. Before start(), start() looks.
  std::optional<std::set<MessageQueue>> seen;
  if (state_ == State::kRunning) seen = look_up_queues(queue_source(), topic);
  queue_watch_.watch(topic, std::move(listener), std::move(seen));
  return Status::ok();
}

void LitePullConsumer::Impl::apply_assignment(const std::set<MessageQueue>& queues) {
  for (const auto& queue : assignment_.queues()) {
    if (!queues.contains(queue)) release(queue);
  }
  for (const auto& queue : queues) {
    if (assignment_.contains(queue)) continue;
    // Where it starts is found by its pull loop (the broker is asked there, off this thread).
    start_loop(queue, assignment_.add(queue, std::make_shared<ProcessQueue>(), -1));
  }
}

Status LitePullConsumer::Impl::start() {
  std::lock_guard lock(lifecycle_mutex_);
  if (state_ != State::kCreated) {
    return Status::unavailable("consumer " + config_.group + " was started before (a consumer starts once)");
  }
  Mode mode;
  std::set<MessageQueue> assigned;
  {
    std::lock_guard mode_lock(mode_mutex_);
    mode = mode_;
    assigned = assigned_;
  }
  if (mode == Mode::kNone) {
    return Status::invalid_argument("consumer " + config_.group +
                                    " has no queues: call subscribe or assign before start");
  }
  // In assign mode the rebalancer never runs a round; it still knows where a new queue starts.
  MQKIT_ASSIGN_OR_RETURN(ConsumerParts parts, make_consumer_parts(config_, given_instance_, false, *this));
  offsets_ = std::move(parts.offsets);
  rebalancer_ = std::move(parts.rebalancer);
  {
    std::lock_guard mode_lock(mode_mutex_);
    for (const auto& [topic, subscription] : subscriptions_) rebalancer_->set_subscription(subscription);
  }
  scheduler_ = std::make_unique<TaskScheduler>("lite-pull-" + config_.group);
  if (Status registered = parts.instance->register_consumer(shared_from_this()); !registered) {
    scheduler_.reset();
    rebalancer_.reset();
    offsets_.reset();
    return registered;
  }
  instance_ = std::move(parts.instance);
  tracer_ = std::move(parts.tracer);
  if (tracer_) hooks_.insert(hooks_.begin(), unowned_hook<ConsumeHook>(*tracer_));
  serve_offset_resets(*instance_, config_.group, weak_from_this());
  state_ = State::kRunning;
  start_timestamp_ms_ = kernel::wall_clock_ms();
  next_auto_commit_ = std::chrono::steady_clock::now() + config_.auto_commit_interval;
  gate_.open();
  MQKIT_RETURN_IF_ERROR(instance_->start());
  announce_consumer(*instance_, config_.group, subscribed_topics());
  if (mode == Mode::kAssign) {
    apply_assignment(assigned);
  } else {
    instance_->rebalance_now();
  }
  queue_watch_.take_baseline(queue_source());
  topic_check_.add("topic-queue-check", config_.topic_metadata_check_interval, config_.topic_metadata_check_interval,
                   [this] {
                     GatePass pass(gate_);
                     if (pass && !queue_watch_.empty()) queue_watch_.check(queue_source());
                   });
  topic_check_.start("TopicQueueCheck");
  log()->info("lite pull consumer {} ({}, {}, {}) started in client {}", config_.group,
              to_string(config_.message_model), mode == Mode::kAssign ? "assigned queues" : "subscribed",
              to_string(config_.consume_from_where), instance_->client_id());
  return Status::ok();
}

void LitePullConsumer::Impl::shutdown() {
  {
    std::lock_guard lock(lifecycle_mutex_);
    const bool running = state_ == State::kRunning;
    state_ = State::kShutDown;
    if (!running) return;
  }
  assignment_.close();   // a waiting poll() returns
  topic_check_.stop();   // no listener call runs after
  scheduler_->stop();    // no more pulls start
  if (!gate_.close(std::chrono::steady_clock::now() + kShutdownBound)) {
    // Only a transport that broke its promise gets here; tearing down under it would crash.
    log()->error("consumer {}: calls still running after {} ms; leaving the consumer as it is", config_.group,
                 kShutdownBound.count());
    return;
  }
  // Every queue is released: its poll position committed (auto_commit) and persisted.
  rebalancer_->remove_all();  // the subscribed ones, through on_queue_removing
  for (const auto& queue : assignment_.queues()) release(queue);
  if (tracer_) tracer_->shutdown();  // the trace of the last polls goes out
  stop_serving_offset_resets(*instance_, config_.group);
  instance_->unregister_consumer(config_.group);
  log()->info("lite pull consumer {} shut down", config_.group);
  // Nothing may keep the instance alive from here: a pull answered later holds this object, and
  // the instance must not end up destroyed on a transport thread.
  std::lock_guard lock(lifecycle_mutex_);
  scheduler_.reset();
  rebalancer_.reset();
  offsets_.reset();
  instance_.reset();
  given_instance_.reset();  // the instance handed to the constructor, too
}

Status LitePullConsumer::Impl::not_running() const {
  return Status::unavailable("lite pull consumer " + config_.group + " is not running (call start; not after shutdown)");
}

// ---- ConsumerMember ------------------------------------------------------------------------

protocol::ConsumerData LitePullConsumer::Impl::consumer_data() const {
  std::lock_guard lock(mode_mutex_);
  return consumer_heartbeat_data(config_, "CONSUME_ACTIVELY", subscriptions_);
}

std::vector<std::string> LitePullConsumer::Impl::subscribed_topics() const {
  std::lock_guard lock(mode_mutex_);
  std::set<std::string> topics;
  for (const auto& [topic, subscription] : subscriptions_) topics.insert(topic);
  for (const auto& queue : assigned_) topics.insert(queue.topic);
  return {topics.begin(), topics.end()};
}

std::map<MessageQueue, std::int64_t> LitePullConsumer::Impl::offset_table(std::string_view topic) const {
  GatePass pass(gate_);
  if (!pass) return {};  // not running: no offsets held
  return offsets_->offsets(topic);
}

protocol::ConsumerRunningInfo LitePullConsumer::Impl::running_info() const {
  GatePass pass(gate_);
  if (!pass) return {};  // not running: no queues, no offsets to show
  std::map<std::string, SubscriptionData> subscriptions;
  {
    std::lock_guard lock(mode_mutex_);
    subscriptions = subscriptions_;
  }
  protocol::ConsumerRunningInfo info =
      consumer_running_info(config_, start_timestamp_ms_.load(), subscriptions, assignment_.process_queues(), *offsets_);
  auto& p = info.properties;
  p["autoCommit"] = config_.auto_commit ? "true" : "false";
  p["autoCommitIntervalMillis"] = std::to_string(config_.auto_commit_interval.count());
  p["pollTimeoutMillis"] = std::to_string(config_.poll_timeout.count());
  p["pullThresholdForAll"] = std::to_string(config_.pull_threshold_for_all);
  return info;
}

void LitePullConsumer::Impl::rebalance() {
  GatePass pass(gate_);
  if (!pass) return;
  bool subscribed = false;
  {
    std::lock_guard lock(mode_mutex_);
    subscribed = mode_ == Mode::kSubscribe;
  }
  if (subscribed) (void)rebalancer_->rebalance();
}

void LitePullConsumer::Impl::persist_offsets() {
  GatePass pass(gate_);
  if (pass) offsets_->persist_all(assignment_.queues());
}

// ---- RebalanceListener ---------------------------------------------------------------------

void LitePullConsumer::Impl::on_queue_added(const MessageQueue& queue,
                                            const std::shared_ptr<ProcessQueue>& process_queue,
                                            std::int64_t next_offset) {
  start_loop(queue, assignment_.add(queue, process_queue, next_offset));
}

bool LitePullConsumer::Impl::on_queue_removing(const MessageQueue& queue, ProcessQueue& /*process_queue*/) {
  release(queue);
  return true;
}

void LitePullConsumer::Impl::release(const MessageQueue& queue) {
  const std::optional<std::int64_t> position = assignment_.remove(queue);
  if (!position) return;
  if (config_.auto_commit && *position >= 0) offsets_->update(queue, *position, false);
  if (Status s = offsets_->persist(queue); !s) {
    log()->warn("{}: persisting the offset of {}: {}", config_.group, queue.to_string(), s.to_string());
  }
  offsets_->remove(queue);
}

// ---- Polling, seeking, committing ----------------------------------------------------------

Result<std::vector<MessageExt>> LitePullConsumer::Impl::poll(milliseconds timeout) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  if (timeout.count() < 0) return Status::invalid_argument("poll timeout must not be negative");
  if (config_.auto_commit) {
    bool due = false;
    {
      std::lock_guard lock(commit_mutex_);
      due = std::chrono::steady_clock::now() >= next_auto_commit_;
    }
    if (due) {
      if (Status s = commit(); !s) log()->warn("consumer {}: auto commit: {}", config_.group, s.to_string());
    }
  }
  auto batch = assignment_.take(std::chrono::steady_clock::now() + timeout);
  if (!batch) return std::vector<MessageExt>{};
  if (!hooks_.empty() && !batch->messages.empty()) {
    // As RocketMQ's lite pull consumer: the consume hooks see what poll() hands over, as consumed.
    const auto started = std::chrono::steady_clock::now();
    ConsumeHookCalls hooks(hooks_, config_.group, batch->queue, batch->messages);
    hooks.after(true, trace::ConsumeReturnType::kSuccess,
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started));
  }
  return std::move(batch->messages);
}

Status LitePullConsumer::Impl::require_owned(const MessageQueue& queue) const {
  if (assignment_.contains(queue)) return Status::ok();
  return Status::invalid_argument("queue " + queue.to_string() + " is not owned by consumer " + config_.group +
                                  " (not assigned, or being moved by a rebalance)");
}

Result<std::int64_t> LitePullConsumer::Impl::min_offset(const MessageQueue& queue) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(*instance_, queue));
  return instance_->api().get_min_offset(address, queue);
}

Result<std::int64_t> LitePullConsumer::Impl::max_offset(const MessageQueue& queue) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(*instance_, queue));
  return instance_->api().get_max_offset(address, queue);
}

Result<std::int64_t> LitePullConsumer::Impl::offset_for_timestamp(const MessageQueue& queue,
                                                                  std::int64_t timestamp_ms) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  MQKIT_RETURN_IF_ERROR(validate_queue(queue));
  MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(*instance_, queue));
  return instance_->api().search_offset(address, queue, timestamp_ms);
}

Status LitePullConsumer::Impl::seek(const MessageQueue& queue, std::int64_t offset) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  MQKIT_RETURN_IF_ERROR(require_owned(queue));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t min, min_offset(queue));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t max, max_offset(queue));
  if (offset < min || offset > max) {
    return Status::invalid_argument("seek offset " + std::to_string(offset) + " of " + queue.to_string() +
                                    " is outside the queue's offsets [" + std::to_string(min) + ", " +
                                    std::to_string(max) + "]");
  }
  const auto epoch = assignment_.seek(queue, offset);
  if (!epoch) return require_owned(queue);  // a rebalance took it meanwhile
  start_loop(queue, *epoch);
  return Status::ok();
}

void LitePullConsumer::Impl::reset_offsets(const std::string& topic,
                                           const std::map<MessageQueue, std::int64_t>& offsets) {
  GatePass pass(gate_);
  if (!pass) return;
  // The broker holds the new offsets already; what was pulled or polled past them must not be
  // committed over them. Owned queues resume there as after a seek; the others are not ours.
  for (const auto& [queue, offset] : offsets) {
    if (queue.topic != topic) continue;
    const auto epoch = assignment_.seek(queue, offset);
    if (!epoch) continue;
    offsets_->update(queue, offset, false);
    if (Status s = offsets_->persist(queue); !s) {
      log()->warn("{}: persisting the reset offset of {}: {}", config_.group, queue.to_string(), s.to_string());
    }
    start_loop(queue, *epoch);
  }
  log()->info("{}: offsets of {} reset; polling resumes from them", config_.group, topic);
}

Status LitePullConsumer::Impl::persist(const std::set<MessageQueue>& queues) {
  Status first = Status::ok();
  for (const auto& queue : queues) {
    if (Status s = offsets_->persist(queue); !s && first) {
      first = s.with_context("committing the offset of " + queue.to_string());
    }
  }
  return first;
}

Status LitePullConsumer::Impl::commit() {
  GatePass pass(gate_);
  if (!pass) return not_running();
  std::lock_guard lock(commit_mutex_);
  next_auto_commit_ = std::chrono::steady_clock::now() + config_.auto_commit_interval;
  std::set<MessageQueue> queues;
  for (const auto& [queue, position] : assignment_.poll_positions()) {
    offsets_->update(queue, position, false);
    queues.insert(queue);
  }
  return persist(queues);
}

Status LitePullConsumer::Impl::commit(const std::map<MessageQueue, std::int64_t>& offsets) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  for (const auto& [queue, offset] : offsets) {
    MQKIT_RETURN_IF_ERROR(require_owned(queue));
    if (offset < 0) {
      return Status::invalid_argument("commit offset " + std::to_string(offset) + " of " + queue.to_string() +
                                      " is negative");
    }
  }
  std::lock_guard lock(commit_mutex_);
  std::set<MessageQueue> queues;
  for (const auto& [queue, offset] : offsets) {
    offsets_->update(queue, offset, false);
    queues.insert(queue);
  }
  return persist(queues);
}

Result<std::int64_t> LitePullConsumer::Impl::committed(const MessageQueue& queue) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  MQKIT_RETURN_IF_ERROR(validate_queue(queue));
  return offsets_->read(queue, ReadOffsetType::kStore);
}

Status LitePullConsumer::Impl::pause(const std::vector<MessageQueue>& queues) {
  {
    std::lock_guard lock(mode_mutex_);
    for (const auto& queue : queues) {
      MQKIT_RETURN_IF_ERROR(validate_queue(queue));
      const bool known = subscriptions_.contains(queue.topic) || assigned_subscriptions_.contains(queue.topic);
      if (!known) {
        return Status::invalid_argument("queue " + queue.to_string() + " is of a topic consumer " + config_.group +
                                        " neither subscribed to nor was assigned");
      }
    }
  }
  assignment_.pause(queues);
  return Status::ok();
}

Status LitePullConsumer::Impl::resume(const std::vector<MessageQueue>& queues) {
  for (const auto& queue : queues) MQKIT_RETURN_IF_ERROR(validate_queue(queue));
  GatePass pass(gate_);
  const auto restarted = assignment_.resume(queues);
  // Before start() nothing pulls yet; the loops start with the queues.
  if (pass) {
    for (const auto& [queue, epoch] : restarted) start_loop(queue, epoch);
  }
  return Status::ok();
}

Result<std::vector<MessageQueue>> LitePullConsumer::Impl::name_server_queues(const std::string& topic) {
  MQKIT_RETURN_IF_ERROR(instance_->update_route(topic));
  const auto route = instance_->cached_route(topic);
  if (!route) return Status::not_found("no route of " + topic);
  return route->subscribe_queues;
}

Result<std::vector<MessageQueue>> LitePullConsumer::Impl::fetch_message_queues(const std::string& topic) {
  GatePass pass(gate_);
  if (!pass) return not_running();
  if (Status s = protocol::validate_topic(topic); !s) return s;
  return name_server_queues(topic);  // asked each time, as RocketMQ's fetchMessageQueues does
}

// ---- Pulling -------------------------------------------------------------------------------

std::shared_ptr<const SubscriptionData> LitePullConsumer::Impl::subscription_of(const std::string& topic) const {
  {
    std::lock_guard lock(mode_mutex_);
    const auto it = assigned_subscriptions_.find(topic);
    if (it != assigned_subscriptions_.end()) return it->second;
  }
  return rebalancer_->subscription(topic);
}

void LitePullConsumer::Impl::pull_later(const MessageQueue& queue, std::uint64_t epoch, milliseconds delay) {
  scheduler_->post_after(delay, [this, queue, epoch] { pull(queue, epoch); });
}

void LitePullConsumer::Impl::find_start(const MessageQueue& queue, std::uint64_t epoch) {
  // The broker is asked on the client-async thread, so a slow one holds up no other queue's pulls.
  const bool queued = instance_->execute([self = shared_from_this(), queue, epoch] {
    GatePass pass(self->gate_);
    if (!pass) return;
    auto start = self->rebalancer_->compute_pull_from_where(queue);
    if (!start) {
      log()->warn("{}: starting offset of {}: {}", self->config_.group, queue.to_string(), start.status().to_string());
      return self->pull_later(queue, epoch, self->config_.pull_time_delay_when_exception);
    }
    if (self->assignment_.set_pull_offset(queue, epoch, *start)) self->start_loop(queue, epoch);
  });
  if (!queued) log()->debug("{}: instance shutting down; {} not started", config_.group, queue.to_string());
}

void LitePullConsumer::Impl::pull(const MessageQueue& queue, std::uint64_t epoch) {
  GatePass pass(gate_);
  if (!pass) return;
  auto position = assignment_.position(queue, epoch);
  if (!position) return;  // sought, resumed or given up since: a newer loop (or none) runs
  if (position->paused) return pull_later(queue, epoch, kPausedDelay);
  ProcessQueue& process_queue = *position->process_queue;
  process_queue.mark_pulled();
  // Flow control: the application is behind; look again shortly.
  if (process_queue.message_count() >= static_cast<std::size_t>(config_.pull_threshold_for_queue) ||
      process_queue.message_bytes() >= config_.pull_threshold_size_for_queue ||
      assignment_.waiting_messages() >= static_cast<std::size_t>(config_.pull_threshold_for_all)) {
    return pull_later(queue, epoch, kFlowControlDelay);
  }
  if (position->pull_offset < 0) return find_start(queue, epoch);
  const auto subscription = subscription_of(queue.topic);
  if (!subscription) return pull_later(queue, epoch, config_.pull_time_delay_when_exception);
  auto broker = pull_broker_of(*instance_, queue, pull_from_.of(queue));
  if (!broker) {
    log()->warn("{}: {}; pulling {} later", config_.group, broker.status().to_string(), queue.to_string());
    return pull_later(queue, epoch, config_.pull_time_delay_when_exception);
  }
  // Offsets are committed by commit(), never piggybacked on pulls: poll positions are not commits.
  PullMessageRequest request = make_pull_request(config_, queue, position->pull_offset, *subscription);
  request.sys_flag |= pull_sys_flag::kLitePull;
  instance_->api().pull_message_async(
      broker->address, request, config_.consumer_timeout_when_suspend,
      [self = shared_from_this(), queue, epoch, pulled_at = request.queue_offset](Result<PullResult> result) {
        self->on_pulled(queue, epoch, pulled_at, std::move(result));
      });
}

std::vector<MessageExt> LitePullConsumer::Impl::filter(std::vector<MessageExt> messages,
                                                       const MessageQueue& queue) const {
  const auto subscription = subscription_of(queue.topic);
  std::vector<MessageExt> out;
  out.reserve(messages.size());
  for (auto& message : messages) {
    if (subscription && !tag_matches(*subscription, message.tags())) continue;
    message.broker_name = queue.broker_name;
    out.push_back(std::move(message));
  }
  return out;
}

void LitePullConsumer::Impl::on_pulled(const MessageQueue& queue, std::uint64_t epoch, std::int64_t pulled_at,
                                       Result<PullResult> result) {
  GatePass pass(gate_);
  if (!pass) return;
  if (!result) {
    log()->warn("{}: pulling {} at {}: {}", config_.group, queue.to_string(), pulled_at, result.status().to_string());
    return pull_later(queue, epoch, config_.pull_time_delay_when_exception);
  }
  pull_from_.update(queue, result->suggest_which_broker_id);
  std::vector<MessageExt> messages;
  switch (result->status) {
    case PullStatus::kFound:
      messages = filter(std::move(result->messages), queue);
      break;
    case PullStatus::kNoNewMsg:
    case PullStatus::kNoMatchedMsg:
      break;
    case PullStatus::kOffsetIllegal:
      log()->warn("{}: offset {} of {} is illegal; continuing at {}", config_.group, pulled_at, queue.to_string(),
                  result->next_begin_offset);
      break;
  }
  if (!assignment_.accept(queue, epoch, pulled_at, result->next_begin_offset, std::move(messages))) return;
  pull_later(queue, epoch, config_.pull_interval);
}

// ---- LitePullConsumer ----------------------------------------------------------------------

LitePullConsumer::LitePullConsumer(ConsumerConfig config)
    : impl_(std::make_shared<Impl>(std::move(config), nullptr)) {}

LitePullConsumer::LitePullConsumer(ConsumerConfig config, std::shared_ptr<ClientInstance> instance)
    : impl_(std::make_shared<Impl>(std::move(config), std::move(instance))) {}

LitePullConsumer::~LitePullConsumer() { impl_->shutdown(); }

// The application names topics and queues without the namespace; Impl works with the names on the
// wire. Everything is converted here, at the API, as RocketMQ's DefaultLitePullConsumer does.
namespace {

std::vector<MessageQueue> wrapped(std::string_view name_space, const std::vector<MessageQueue>& queues) {
  return converted_queues(queues, name_space, queue_with_namespace);
}

}  // namespace

Status LitePullConsumer::subscribe(const std::string& topic, const std::string& expression) {
  return subscribe(topic, MessageSelector::by_tag(expression));
}

Status LitePullConsumer::subscribe(const std::string& topic, const MessageSelector& selector) {
  return impl_->subscribe(protocol::wrap_namespace(impl_->name_space(), topic), selector);
}

Status LitePullConsumer::assign(const std::vector<MessageQueue>& queues) {
  return impl_->assign(wrapped(impl_->name_space(), queues));
}

Status LitePullConsumer::unsubscribe(const std::string& topic) {
  return impl_->unsubscribe(protocol::wrap_namespace(impl_->name_space(), topic));
}

Status LitePullConsumer::register_consume_hook(std::shared_ptr<ConsumeHook> hook) {
  return impl_->add_consume_hook(std::move(hook));
}

Status LitePullConsumer::register_topic_message_queue_change_listener(const std::string& topic,
                                                                      TopicMessageQueueChangeListener listener) {
  const std::string& name_space = impl_->name_space();
  if (listener && !name_space.empty()) {
    listener = [name_space, listener = std::move(listener)](const std::string& changed,
                                                            const std::set<MessageQueue>& queues) {
      listener(protocol::without_namespace(changed, name_space),
               converted_queues(queues, name_space, queue_without_namespace));
    };
  }
  return impl_->watch_topic(protocol::wrap_namespace(name_space, topic), std::move(listener));
}

Status LitePullConsumer::start() { return impl_->start(); }

void LitePullConsumer::shutdown() { impl_->shutdown(); }

Result<std::vector<MessageExt>> LitePullConsumer::poll() { return poll(impl_->config_.poll_timeout); }

Result<std::vector<MessageExt>> LitePullConsumer::poll(milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(std::vector<MessageExt> messages, impl_->poll(timeout));
  for (MessageExt& message : messages) strip_namespace(impl_->name_space(), message);
  return messages;
}

Status LitePullConsumer::seek(const MessageQueue& queue, std::int64_t offset) {
  return impl_->seek(queue_with_namespace(impl_->name_space(), queue), offset);
}

Status LitePullConsumer::seek_to_begin(const MessageQueue& queue) {
  const MessageQueue on_wire = queue_with_namespace(impl_->name_space(), queue);
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t offset, impl_->min_offset(on_wire));
  return impl_->seek(on_wire, offset);
}

Status LitePullConsumer::seek_to_end(const MessageQueue& queue) {
  const MessageQueue on_wire = queue_with_namespace(impl_->name_space(), queue);
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t offset, impl_->max_offset(on_wire));
  return impl_->seek(on_wire, offset);
}

Status LitePullConsumer::seek_to_timestamp(const MessageQueue& queue, std::int64_t timestamp_ms) {
  const MessageQueue on_wire = queue_with_namespace(impl_->name_space(), queue);
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t offset, impl_->offset_for_timestamp(on_wire, timestamp_ms));
  return impl_->seek(on_wire, offset);
}

Result<std::int64_t> LitePullConsumer::offset_for_timestamp(const MessageQueue& queue, std::int64_t timestamp_ms) {
  return impl_->offset_for_timestamp(queue_with_namespace(impl_->name_space(), queue), timestamp_ms);
}

Status LitePullConsumer::commit() { return impl_->commit(); }

Status LitePullConsumer::commit(const std::map<MessageQueue, std::int64_t>& offsets) {
  std::map<MessageQueue, std::int64_t> on_wire;
  for (const auto& [queue, offset] : offsets) on_wire[queue_with_namespace(impl_->name_space(), queue)] = offset;
  return impl_->commit(on_wire);
}

Result<std::int64_t> LitePullConsumer::committed(const MessageQueue& queue) {
  return impl_->committed(queue_with_namespace(impl_->name_space(), queue));
}

Status LitePullConsumer::pause(const std::vector<MessageQueue>& queues) {
  return impl_->pause(wrapped(impl_->name_space(), queues));
}

Status LitePullConsumer::resume(const std::vector<MessageQueue>& queues) {
  return impl_->resume(wrapped(impl_->name_space(), queues));
}

Result<std::vector<MessageQueue>> LitePullConsumer::fetch_message_queues(const std::string& topic) {
  const std::string& name_space = impl_->name_space();
  MQKIT_ASSIGN_OR_RETURN(std::vector<MessageQueue> queues,
                         impl_->fetch_message_queues(protocol::wrap_namespace(name_space, topic)));
  return converted_queues(queues, name_space, queue_without_namespace);
}

std::set<MessageQueue> LitePullConsumer::assignment() const {
  return converted_queues(impl_->assignment(), impl_->name_space(), queue_without_namespace);
}

const ConsumerConfig& LitePullConsumer::config() const noexcept { return impl_->config_; }

std::shared_ptr<ClientInstance> LitePullConsumer::instance() const {
  std::lock_guard lock(impl_->lifecycle_mutex_);
  return impl_->instance_;
}

}  // namespace mqkit::client
