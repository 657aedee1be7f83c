// Optional extensions through which a store and a transport report what RocketMQ's
// GET_BROKER_RUNTIME_INFO shows and operators watch in `mqadmin clusterList` (#PCWait and the
// LOAD of #InTPS / #OutTPS). A broker asks for them with `extension(id)`; a plugin that returns
// nullptr simply leaves those figures out.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace mqkit::plugin::v1 {

// MessageStore::extension(kPutLockClockId) → PutLockClock*: how long the append holding the
// store's write lock has held it so far. It is RocketMQ's pageCacheLockTimeMills: a store stalled
// on page faults or I/O holds up every writer behind it.
inline constexpr std::string_view kPutLockClockId = "mqkit.store.put-lock-clock.v1";

class PutLockClock {
 public:
  // Milliseconds since the current holder took the lock; 0 when no append holds it. `now_ms` is
  // a wall-clock time, as the store stamps records.
  std::int64_t held_ms(std::int64_t now_ms) const noexcept {
    const std::int64_t since = since_ms_.load(std::memory_order_relaxed);
    return since == 0 ? 0 : std::max<std::int64_t>(0, now_ms - since);
  }

  // Marks the lock held from `now_ms` until the scope ends; create it right after taking the lock.
  class Held {
   public:
    Held(PutLockClock& clock, std::int64_t now_ms) noexcept : clock_(clock) {
      clock_.since_ms_.store(now_ms, std::memory_order_relaxed);
    }
    ~Held() { clock_.since_ms_.store(0, std::memory_order_relaxed); }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    PutLockClock& clock_;
  };

 private:
  std::atomic<std::int64_t> since_ms_{0};
};

// Transport::extension(kRequestQueueId) → RequestQueue*: the server side's requests waiting for
// a worker thread (RocketMQ's sendThreadPoolQueueSize, ...HeadWaitTimeMills).
inline constexpr std::string_view kRequestQueueId = "mqkit.transport.request-queue.v1";

struct RequestQueueFigures {
  std::int64_t queued = 0;        // requests waiting for a worker
  std::int64_t head_wait_ms = 0;  // how long the oldest of them has waited; 0 when none waits
};

class RequestQueue {
 public:
  virtual RequestQueueFigures figures() const noexcept = 0;

 protected:
  ~RequestQueue() = default;
};

}  // namespace mqkit::plugin::v1
