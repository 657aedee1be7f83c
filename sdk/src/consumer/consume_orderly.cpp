// Orderly consumption (RocketMQ's ConsumeMessageOrderlyService): at most one pool thread works
// on a queue at a time (the process queue dispatches one consumer until its cache runs dry), it
// takes messages in offset order, and — in clustering — only while this client holds the queue's
// lock on its broker. SUSPEND_CURRENT_QUEUE_A_MOMENT puts the batch back and retries it after a
// pause; a message suspended max_reconsume_times times is sent to %DLQ%<group> and skipped.
#include "consume_service.hpp"
#include "../namespaced_names.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {

namespace {

using Clock = std::chrono::steady_clock;

// A queue is worked on at most this long in one go, so that other queues get threads.
constexpr std::chrono::milliseconds kMaxTimeConsumeContinuously{60000};
constexpr std::chrono::milliseconds kRetryLockDelay{100};
constexpr std::chrono::milliseconds kResubmitDelay{10};

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

class OrderlyConsumeService final : public ConsumeService {
 public:
  OrderlyConsumeService(ConsumeEnvironment environment, OrderlyListener listener)
      : ConsumeService(environment), listener_(std::move(listener)) {}
  ~OrderlyConsumeService() override { shutdown(); }

  void submit(std::vector<MessageExt> /*messages*/, std::shared_ptr<ProcessQueue> process_queue,
              const MessageQueue& queue, bool dispatch) override {
    if (dispatch) start(std::move(process_queue), queue);
  }

 private:
  void start(std::shared_ptr<ProcessQueue> process_queue, const MessageQueue& queue) {
    pool_.post([this, process_queue = std::move(process_queue), queue] { run(process_queue, queue); });
  }

  void start_later(std::shared_ptr<ProcessQueue> process_queue, const MessageQueue& queue,
                   std::chrono::milliseconds delay) {
    env_.scheduler.post_after(delay, [this, process_queue = std::move(process_queue), queue]() mutable {
      start(std::move(process_queue), queue);
    });
  }

  // The lock expired or was lost: ask the broker again off the scheduler thread, then resume.
  void lock_later(std::shared_ptr<ProcessQueue> process_queue, const MessageQueue& queue) {
    env_.scheduler.post_after(kRetryLockDelay, [this, process_queue = std::move(process_queue), queue] {
      pool_.post([this, process_queue, queue] {
        if (stopping() || process_queue->dropped()) return;
        const bool locked = env_.rebalancer.lock(queue);
        start_later(process_queue, queue, locked ? kResubmitDelay : env_.config.pull_time_delay_when_exception);
      });
    });
  }

  bool holds_queue(const ProcessQueue& process_queue) const {
    return !clustering() || process_queue.lock_valid();
  }

  // Raises the reconsume count of the batch's messages; one that reached the maximum is
  // dead-lettered instead. True when some message must be retried (the batch is then suspended).
  bool must_suspend(std::vector<MessageExt>& messages, const MessageQueue& queue) {
    const int max_times = env_.config.effective_max_reconsume_times(true);
    bool suspend = false;
    for (auto& message : messages) {
      if (message.reconsume_times >= max_times) {
        if (Status s = send_message_back(message, queue, -1, max_times); s) {
          log()->warn("{}: {} was suspended {} times; moved to the dead letter queue", env_.config.group,
                      message.msg_id(), message.reconsume_times);
          continue;
        } else {
          log()->warn("{}: dead-lettering {}: {}", env_.config.group, message.msg_id(), s.to_string());
        }
      }
      message.reconsume_times = plugin::v1::next_reconsume_times(message.reconsume_times);
      suspend = true;
    }
    return suspend;
  }

  void run(const std::shared_ptr<ProcessQueue>& process_queue, const MessageQueue& queue) {
    const auto began = Clock::now();
    const auto batch = static_cast<std::size_t>(env_.config.consume_message_batch_max_size);
    for (;;) {
      if (stopping() || process_queue->dropped()) return;
      if (!holds_queue(*process_queue)) return lock_later(process_queue, queue);
      if (Clock::now() - began > kMaxTimeConsumeContinuously) return start_later(process_queue, queue, kResubmitDelay);

      std::unique_lock consuming(process_queue->consume_mutex());
      if (process_queue->dropped()) return;
      std::vector<MessageExt> messages = process_queue->take_messages(batch);
      if (messages.empty()) return;  // dry: the next put dispatches a consumer again
      ConsumeOrderlyContext context{queue_without_namespace(env_.config.client.name_space, queue)};
      const auto status = call_listener_hooked(env_, messages, queue, ConsumeOrderlyStatus::kSuspendCurrentQueueAMoment,
                                               [&] { return listener_(messages, context); });
      consuming.unlock();

      if (status == ConsumeOrderlyStatus::kSuspendCurrentQueueAMoment && must_suspend(messages, queue)) {
        process_queue->make_messages_to_consume_again(messages);
        const auto pause = context.suspend_current_queue_time.count() > 0 ? context.suspend_current_queue_time
                                                                          : env_.config.suspend_current_queue_time;
        return start_later(process_queue, queue, pause);
      }
      const std::int64_t offset = process_queue->commit();
      if (offset >= 0 && !process_queue->dropped()) env_.offsets.update(queue, offset, false);
    }
  }

  OrderlyListener listener_;
};

}  // namespace

std::unique_ptr<ConsumeService> make_orderly_consume_service(ConsumeEnvironment environment,
                                                             OrderlyListener listener) {
  return std::make_unique<OrderlyConsumeService>(environment, std::move(listener));
}

}  // namespace mqkit::client
