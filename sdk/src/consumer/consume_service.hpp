// ConsumeService: how a push consumer hands pulled messages to its listener — concurrently
// (ConsumeMessageConcurrentlyService) or in queue order (ConsumeMessageOrderlyService). Both run
// listeners on their own pool of consume_thread_count threads and advance the offset store as
// batches complete.
//
// Threads: submit() from pull callbacks (transport threads); listeners on the pool; delayed
// retries through the TaskScheduler; the concurrent service's consume-timeout check on its
// background thread. shutdown() from the owner, once, after pulling stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <string_view>
#include <vector>

#include "mqkit/client/task_pool.hpp"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/offset_store.hpp"
#include "mqkit/client/process_queue.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/kernel/periodic_tasks.hpp"
#include "rebalancer.hpp"
#include "task_scheduler.hpp"
#include "hook_calls.hpp"
#include "trace/message_tracer.hpp"

namespace mqkit::client {

// What the consume services share with their push consumer; every object outlives the service.
struct ConsumeEnvironment {
  const ConsumerConfig& config;
  ClientInstance& instance;
  OffsetStore& offsets;
  Rebalancer& rebalancer;
  TaskScheduler& scheduler;
  const ConsumeHooks& hooks;  // the consumer's, the message trace first; fixed once it started
};

class ConsumeService {
 public:
  explicit ConsumeService(ConsumeEnvironment environment);
  virtual ~ConsumeService();
  ConsumeService(const ConsumeService&) = delete;
  ConsumeService& operator=(const ConsumeService&) = delete;

  // `messages` were just put into `process_queue`; `dispatch` is what put() returned.
  virtual void submit(std::vector<MessageExt> messages, std::shared_ptr<ProcessQueue> process_queue,
                      const MessageQueue& queue, bool dispatch) = 0;
  // Stops the background tasks; batches not started yet are not delivered (their messages stay
  // unconsumed); waits for running listener calls. Idempotent.
  void shutdown();

 protected:
  bool clustering() const noexcept { return env_.config.message_model == MessageModel::kClustering; }
  bool stopping() const noexcept { return stopping_.load(); }
  // CONSUMER_SEND_MSG_BACK of `message` to the broker of `queue`: redelivered through
  // %RETRY%<group> after `delay_level` (0: the broker picks), or dead-lettered (delay_level -1,
  // or reconsumed max_reconsume_times already).
  // When the broker cannot be reached (its master is down), the message goes to the group's
  // retry topic on any broker as a new message instead (RocketMQ's
  // sendMessageBackAsNormalMessage): delay level 3 + reconsume times, RETRY_TOPIC naming its topic.
  Status send_message_back(const MessageExt& message, const MessageQueue& queue, int delay_level,
                           int max_reconsume_times);

  ConsumeEnvironment env_;
  TaskPool pool_;
  // Periodic work of the service (its thread starts when a subclass adds a task and starts it).
  kernel::PeriodicTasks background_;

 private:
  Status send_back_to_broker(const MessageExt& message, const MessageQueue& queue, const std::string& origin_topic,
                             int delay_level, int max_reconsume_times);
  Status send_to_retry_topic(const MessageExt& message, const std::string& origin_topic, int delay_level,
                             int max_reconsume_times);

  std::atomic<bool> stopping_{false};
  std::atomic<bool> joined_{false};
};

void log_listener_exception(std::string_view group, const MessageQueue& queue, std::string_view what);

// Runs a listener call; a listener that throws is logged and answered `on_throw` (a retry), as
// RocketMQ treats an exception like RECONSUME_LATER / SUSPEND.
template <typename ConsumeStatus, typename Call>
ConsumeStatus call_listener_guarded(std::string_view group, const MessageQueue& queue, ConsumeStatus on_throw,
                                    Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    log_listener_exception(group, queue, e.what());
  } catch (...) {
    log_listener_exception(group, queue, "not a std::exception");
  }
  return on_throw;
}

// call_listener_guarded between the consume hooks' before_consume and after_consume. Both status
// enums hold a success and `on_throw`, the retry: anything but a retry is a success, as
// RocketMQ's CONSUME_SUCCESS and SUCCESS are.
template <typename ConsumeStatus, typename Call>
ConsumeStatus call_listener_hooked(const ConsumeEnvironment& env, const std::vector<MessageExt>& messages,
                                   const MessageQueue& queue, ConsumeStatus on_throw, Call&& call) {
  if (env.hooks.empty()) return call_listener_guarded(env.config.group, queue, on_throw, call);
  ConsumeHookCalls hooks(env.hooks, env.config.group, queue, messages);
  const auto started = std::chrono::steady_clock::now();
  bool threw = true;
  const ConsumeStatus status = call_listener_guarded(env.config.group, queue, on_throw, [&] {
    const ConsumeStatus answer = call();
    threw = false;
    return answer;
  });
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  const bool retry = status == on_throw;
  hooks.after(!retry, trace::consume_return_type(threw, retry, took, env.config.consume_timeout), took);
  return status;
}

std::unique_ptr<ConsumeService> make_concurrent_consume_service(ConsumeEnvironment environment,
                                                                ConcurrentListener listener);
std::unique_ptr<ConsumeService> make_orderly_consume_service(ConsumeEnvironment environment,
                                                             OrderlyListener listener);

}  // namespace mqkit::client
