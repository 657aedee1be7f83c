// LongPollingService: pulls that found nothing wait here (RocketMQ's PullRequestHoldService).
// A held pull is retried as soon as a message for its queue is dispatched past the offset it
// asked for, or when its deadline passes, whichever is first; the retry callback runs exactly
// once, on the dispatch thread or the service's timer thread, and must not block.
//
// It is also a kernel Dispatcher: the dispatch pipeline tells it about every new record.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::broker {

// The longest a client may ask a request to be held (a pull's suspendTimeoutMillis, a pop's
// pollTime) or a popped message to stay invisible: far beyond any client's (RocketMQ's proxy
// allows 12 h), and small enough that "now + it" cannot overflow.
inline constexpr std::int64_t kMaxRequestedWaitMs = 7LL * 24 * 3600 * 1000;

class LongPollingService final : public plugin::v1::Dispatcher {
 public:
  using Retry = std::function<void()>;
  using Clock = std::function<std::int64_t()>;

  explicit LongPollingService(Clock clock);
  ~LongPollingService() override;

  // Starts the timer thread that retries expired pulls (checks every `tick_ms`).
  void start(std::int64_t tick_ms = 100);
  // Retries every held pull now (so each gets its answer) and stops the timer thread.
  void stop();

  // Holds a pull on (topic, queue) that wants `offset` until deadline_ms. A hold at
  // kAnyNotice is woken by every notify of the queue, wake_pops included.
  static constexpr std::int64_t kAnyNotice = -1;
  void hold(const std::string& topic, std::int32_t queue_id, std::int64_t offset, std::int64_t deadline_ms,
            Retry retry);
  // A message with queue offset `max_offset - 1` arrived: retries pulls waiting for it.
  void notify(std::string_view topic, std::int32_t queue_id, std::int64_t max_offset);
  // Retries the holds at kAnyNotice alone (held pops: something in the queue may be poppable
  // again although nothing arrived); pulls waiting for offsets stay.
  void wake_any_notice(std::string_view topic, std::int32_t queue_id) { notify(topic, queue_id, kAnyNotice + 1); }
  std::size_t held() const;

  std::string_view name() const noexcept override { return "long-polling"; }
  plugin::v1::Status dispatch(const plugin::v1::DispatchRecord& record) noexcept override;

 private:
  struct Held {
    std::int64_t offset;
    std::int64_t deadline_ms;
    Retry retry;
  };
  void run(std::int64_t tick_ms);
  void retry_expired();

  using QueueKey = std::pair<std::string, std::int32_t>;
  // Looks keys up by (string_view, queue id) too: dispatch notifies once per message, without
  // copying the topic.
  struct QueueKeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const noexcept {
      return std::pair<std::string_view, std::int32_t>(a.first, a.second) <
             std::pair<std::string_view, std::int32_t>(b.first, b.second);
    }
  };

  Clock clock_;
  mutable std::mutex mutex_;
  std::map<QueueKey, std::vector<Held>, QueueKeyLess> held_;
  std::thread timer_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
};

}  // namespace mqkit::broker
