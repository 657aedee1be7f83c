// ProduceAccumulator: auto batching of async sends (RocketMQ 5's ProduceAccumulator behind
// DefaultMQProducer#setAutoBatch). Async sends of single batchable messages are kept per queue
// and sent as one SEND_BATCH_MESSAGE; each message's callback gets its own SendResult (its
// UNIQ_KEY, its offset id, first queue offset + its index), a failure reaches every callback.
//
// When a batch goes out ("natural batching"): a queue has at most one request in flight. A
// message to a queue without one is sent at once (or after batch_max_delay, if set, unless
// batch_max_bytes fill up first); messages arriving meanwhile wait and go together, up to
// batch_max_bytes, as soon as the answer comes. So batches grow with the load, a low rate
// costs no delay, and each queue stores its messages in the order they were sent (the broker's
// workers could reorder two requests to one queue in flight at once). A batch whose first
// attempt fails may be retried on another queue, as any async send without a fixed queue.
// Memory: what waits is bounded by total_batch_max_bytes (add() waits for room until the
// message's deadline), what is in flight by the producer's async window.
//
// Threads: add() from any thread; callbacks run on transport threads, the client-async thread
// or the timer thread. The owner keeps the accumulator (and the sender) alive until every
// callback ran: after flush(), the producer's window drains.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "message_sender.hpp"
#include "send_window.hpp"

namespace mqkit::client {

class ProduceAccumulator {
 public:
  using Clock = std::chrono::steady_clock;

  // `window` holds the room of every added message: it is released after the message's callback.
  ProduceAccumulator(MessageSender& sender, ClientInstance& instance, SendWindow& window, const ProducerConfig& config);
  ~ProduceAccumulator();  // stops the timer thread
  ProduceAccumulator(const ProduceAccumulator&) = delete;
  ProduceAccumulator& operator=(const ProduceAccumulator&) = delete;

  // Takes a batchable message (PreparedMessage::batchable) that holds `window_bytes` of the
  // window. `done` is called exactly once, and the room released after it, unless an error is
  // returned (no queue to send to; no room before `deadline`): the room is then the caller's.
  Status add(std::shared_ptr<const PreparedMessage> message, const SendTarget& target, Clock::time_point started,
             Clock::time_point deadline, SendCallback done, std::size_t window_bytes);
  // Sends every held batch now and holds none from now on (shutdown).
  void flush();

 private:
  struct Item {
    std::shared_ptr<const PreparedMessage> message;
    SendCallback done;
    Clock::time_point started;
    Clock::time_point deadline;
    bool fixed_queue = false;  // the application chose the queue: one attempt
    std::size_t bytes = 0;         // in the batch body
    std::size_t window_bytes = 0;  // held in the producer's window
  };
  struct Waiting {
    std::deque<Item> items;
    std::size_t bytes = 0;
    bool in_flight = false;
    bool held = false;  // waits for batch_max_delay
    Clock::time_point hold_until{};
  };
  struct Batch {
    MessageQueue queue;
    std::vector<Item> items;
    std::vector<Item> expired;  // past their deadline while waiting
  };

  bool should_hold(const Waiting& waiting) const;
  // Moves the next batch of `waiting` out (the queue is then in flight). Under the lock.
  Batch take_batch(const MessageQueue& queue, Waiting& waiting, Clock::time_point now);
  void send(Batch batch);
  // The answer of `queue`'s request came: its next batch goes out, or the queue is idle.
  void answered(const MessageQueue& queue);
  void run_timer();

  // Call each item's callback and release its room in `window` after it. Static: the
  // accumulator may be gone once the last room is released (the producer's shutdown waits).
  static void deliver(std::vector<Item>& items, const Result<SendResult>& result, SendWindow& window);
  static void fail(std::vector<Item>& items, const Status& status, SendWindow& window);

  MessageSender& sender_;
  ClientInstance& instance_;
  SendWindow& window_;
  const std::chrono::milliseconds max_delay_;
  const std::size_t batch_max_bytes_;
  const std::size_t total_max_bytes_;

  std::mutex mutex_;
  std::condition_variable room_;   // total bytes waiting fell
  std::condition_variable timer_;  // a hold began, or stopping / flushing
  std::map<MessageQueue, Waiting> queues_;
  std::size_t total_bytes_ = 0;
  bool flushed_ = false;
  bool stopping_ = false;
  std::thread timer_thread_;  // only with a max delay
};

}  // namespace mqkit::client
