// Concurrent consumption (RocketMQ's ConsumeMessageConcurrentlyService): batches of up to
// consume_message_batch_max_size messages run on the pool in any order; each completed batch
// leaves the process queue, whose smallest remaining offset becomes the queue's consume offset.
// A batch answered RECONSUME_LATER is sent back message by message (clustering); a message whose
// send-back fails stays in the queue and is delivered again locally after a pause.
// Consume timeout (RocketMQ's cleanExpireMsg): every consume_timeout, the head of each process
// queue whose listener started more than consume_timeout ago is sent back with delay level 3 and
// removed, so a stuck listener cannot hold the queue's offset back; its call is not interrupted
// and what it answers later changes nothing for that message but a second send-back on failure.
#include "consume_service.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "../namespaced_names.hpp"

namespace mqkit::client {

namespace {

constexpr std::chrono::milliseconds kLocalRetryDelay{5000};
// RocketMQ sends an expired message back with delay level 3 (10 s with the default levels).
constexpr int kExpiredDelayLevel = 3;
// Expired messages handled per queue and check, as RocketMQ.
constexpr int kMaxExpiredPerCheck = 16;

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

class ConcurrentConsumeService final : public ConsumeService {
 public:
  ConcurrentConsumeService(ConsumeEnvironment environment, ConcurrentListener listener)
      : ConsumeService(environment), listener_(std::move(listener)) {
    const auto period = env_.config.consume_timeout;
    background_.add("consume-timeout", period, period, [this] { clean_expired(); });
    background_.start();
  }
  ~ConcurrentConsumeService() override { shutdown(); }

  void submit(std::vector<MessageExt> messages, std::shared_ptr<ProcessQueue> process_queue, const MessageQueue& queue,
              bool /*dispatch*/) override {
    const auto batch = static_cast<std::size_t>(env_.config.consume_message_batch_max_size);
    for (std::size_t begin = 0; begin < messages.size(); begin += batch) {
      const auto end = std::min(messages.size(), begin + batch);
      std::vector<MessageExt> part(std::make_move_iterator(messages.begin() + static_cast<std::ptrdiff_t>(begin)),
                                   std::make_move_iterator(messages.begin() + static_cast<std::ptrdiff_t>(end)));
      pool_.post([this, part = std::move(part), process_queue, queue]() mutable {
        consume(std::move(part), process_queue, queue);
      });
    }
  }

 private:
  void consume(std::vector<MessageExt> messages, const std::shared_ptr<ProcessQueue>& process_queue,
               const MessageQueue& queue) {
    if (stopping() || process_queue->dropped()) return;
    process_queue->mark_consume_started(messages);
    ConsumeConcurrentlyContext context{queue_without_namespace(env_.config.client.name_space, queue)};
    const auto status = call_listener_hooked(env_, messages, queue, ConsumeConcurrentlyStatus::kReconsumeLater,
                                             [&] { return listener_(messages, context); });
    if (process_queue->dropped()) return;  // the queue moved on; its new owner delivers again

    std::vector<MessageExt> done;
    std::vector<MessageExt> again;
    if (status == ConsumeConcurrentlyStatus::kConsumeSuccess) {
      done = std::move(messages);
    } else if (!clustering()) {
      // Broadcasting has no retry topic: RocketMQ drops the batch too.
      log()->warn("{}: broadcasting listener failed {} messages of {}; they are not redelivered",
                  env_.config.group, messages.size(), queue.to_string());
      done = std::move(messages);
    } else {
      const int max_times = env_.config.effective_max_reconsume_times(false);
      for (auto& message : messages) {
        if (Status s = send_message_back(message, queue, context.delay_level_when_next_consume, max_times); !s) {
          log()->warn("{}: sending back {}: {}; consuming it again locally", env_.config.group, message.msg_id(),
                      s.to_string());
          message.reconsume_times = plugin::v1::next_reconsume_times(message.reconsume_times);
          again.push_back(std::move(message));
        } else {
          done.push_back(std::move(message));
        }
      }
    }
    const std::int64_t offset = process_queue->remove(done);
    if (offset >= 0 && !process_queue->dropped()) env_.offsets.update(queue, offset, true);
    if (!again.empty()) {
      env_.scheduler.post_after(kLocalRetryDelay, [this, again = std::move(again), process_queue, queue]() mutable {
        submit(std::move(again), process_queue, queue, false);
      });
    }
  }

  void clean_expired() {
    for (const auto& [queue, process_queue] : env_.rebalancer.process_queues()) {
      for (int i = 0; i < kMaxExpiredPerCheck && !stopping() && !process_queue->dropped(); ++i) {
        const auto expired = process_queue->expired_head(env_.config.consume_timeout);
        if (!expired) break;
        if (!expire(*expired, *process_queue, queue)) break;
      }
    }
  }

  // False when the message stays (its send-back failed): the next check tries again.
  bool expire(const MessageExt& message, ProcessQueue& process_queue, const MessageQueue& queue) {
    if (clustering()) {
      const int max_times = env_.config.effective_max_reconsume_times(false);
      if (Status s = send_message_back(message, queue, kExpiredDelayLevel, max_times); !s) {
        log()->warn("{}: {} of {} is consumed for longer than {} ms; sending it back: {}", env_.config.group,
                    message.msg_id(), queue.to_string(), env_.config.consume_timeout.count(), s.to_string());
        return false;
      }
    }
    // Broadcasting has no retry topic: the message is only let go, as a failed one is.
    log()->info("{}: {} at offset {} of {} is consumed for longer than {} ms; {}", env_.config.group,
                message.msg_id(), message.queue_offset, queue.to_string(), env_.config.consume_timeout.count(),
                clustering() ? "sent back for redelivery" : "no longer waited for");
    const std::int64_t offset = process_queue.remove({message});
    if (offset >= 0 && !process_queue.dropped()) env_.offsets.update(queue, offset, true);
    return true;
  }

  ConcurrentListener listener_;
};

}  // namespace

std::unique_ptr<ConsumeService> make_concurrent_consume_service(ConsumeEnvironment environment,
                                                                ConcurrentListener listener) {
  return std::make_unique<ConcurrentConsumeService>(environment, std::move(listener));
}

}  // namespace mqkit::client
