#include "pull_message_source.hpp"

#include <chrono>
#include <utility>

#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::bench {

using client::MessageQueue;
using client::PullResult;
using client::Result;
using client::Status;

namespace {

// The broker holds a pull this long when the queue has nothing new (long polling); a message
// arriving meanwhile answers it at once, so this bounds only how long stop() may wait.
constexpr std::int64_t kSuspendMs = 1000;
constexpr std::chrono::milliseconds kPullTimeout{kSuspendMs + 4000};
constexpr std::chrono::milliseconds kRetryPause{100};

}  // namespace

PullMessageSource::PullMessageSource(std::shared_ptr<client::ClientInstance> instance, std::vector<MessageQueue> queues,
                                     std::string group, int pull_batch)
    : instance_(std::move(instance)), group_(std::move(group)), pull_batch_(pull_batch) {
  for (auto& queue : queues) cursors_.push_back(Cursor{std::move(queue), {}, 0});
}

PullMessageSource::~PullMessageSource() { stop(); }

Status PullMessageSource::prepare() {
  for (Cursor& cursor : cursors_) {
    MQKIT_ASSIGN_OR_RETURN(QueueEnd end, queue_end(*instance_, cursor.queue));
    cursor.broker_address = std::move(end.broker_address);
    cursor.offset = end.offset;
  }
  return Status::ok();
}

Status PullMessageSource::start(MessageHandler handler) {
  handler_ = std::move(handler);
  retry_thread_ = std::thread([this] {
    plugin::v1::name_this_thread("BenchPullRetry");
    retry_loop();
  });
  for (std::size_t i = 0; i < cursors_.size(); ++i) pull(i);
  return Status::ok();
}

void PullMessageSource::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_.exchange(true)) return;
  }
  changed_.notify_all();
  if (retry_thread_.joinable()) retry_thread_.join();
  // Every pull calls back exactly once (at the latest at its timeout); none pulls again now.
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return in_flight_ == 0; });
}

void PullMessageSource::pull(std::size_t index) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    ++in_flight_;
  }
  const Cursor& cursor = cursors_[index];
  client::PullMessageRequest request;
  request.consumer_group = group_;
  request.topic = cursor.queue.topic;
  request.queue_id = cursor.queue.queue_id;
  request.queue_offset = cursor.offset;
  request.max_msg_nums = pull_batch_;
  request.sys_flag = client::pull_sys_flag::kSuspend | client::pull_sys_flag::kSubscription;
  request.suspend_timeout_ms = kSuspendMs;
  instance_->api().pull_message_async(cursor.broker_address, request, kPullTimeout,
                                      [this, index](Result<PullResult> result) { on_pulled(index, std::move(result)); });
}

void PullMessageSource::on_pulled(std::size_t index, Result<PullResult> result) {
  if (!stopping_) {
    if (result) {
      Cursor& cursor = cursors_[index];
      if (result->status == client::PullStatus::kFound && !result->messages.empty()) {
        handler_(cursor.queue, result->messages);
      }
      cursor.offset = result->next_begin_offset;
      pull(index);
    } else {
      retry_later(index);
    }
  }
  finished_one();
}

void PullMessageSource::retry_later(std::size_t index) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    retries_.push_back(index);
  }
  changed_.notify_all();
}

void PullMessageSource::finished_one() {
  // Notified under the lock: once stop() sees the last pull finished, the source may be destroyed,
  // and a notify after the unlock would touch a destroyed condition variable (TSan saw it).
  std::lock_guard lock(mutex_);
  --in_flight_;
  changed_.notify_all();
}

void PullMessageSource::retry_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    changed_.wait(lock, [this] { return stopping_ || !retries_.empty(); });
    if (stopping_) break;
    // A pause first, so a broker that refuses is not hammered.
    changed_.wait_for(lock, kRetryPause, [this] { return stopping_.load(); });
    std::vector<std::size_t> due;
    due.swap(retries_);
    lock.unlock();
    for (std::size_t index : due) pull(index);
    lock.lock();
  }
}

client::Result<std::vector<std::unique_ptr<MessageSource>>> make_pull_sources(const SourceSettings& settings) {
  MQKIT_ASSIGN_OR_RETURN(std::vector<ConsumerClient> clients, connect_consumers(settings));
  std::size_t next = 0;
  for (const MessageQueue& queue : all_queues(clients.front(), settings.topics)) {
    clients[next++ % clients.size()].queues.push_back(queue);
  }
  std::vector<std::unique_ptr<MessageSource>> sources;
  for (ConsumerClient& c : clients) {
    sources.push_back(
        std::make_unique<PullMessageSource>(c.instance, std::move(c.queues), settings.group, settings.pull_batch));
  }
  return sources;
}

}  // namespace mqkit::bench
