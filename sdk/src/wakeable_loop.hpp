// WakeableLoop: one thread running a task every `interval`, or at once when woken (RocketMQ's
// RebalanceService: rebalance every 20 s, and immediately when a broker says a group changed).
// Wake-ups that arrive while the task runs make it run once more, not once per wake-up.
// wake_after() brings the next run forward to a given delay (never later than the interval).
//
// Threads: wake() and stop() from any thread (wake() never blocks); the task runs on the loop's
// thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace mqkit::client {

class WakeableLoop {
 public:
  WakeableLoop(std::string name, std::chrono::milliseconds interval, std::function<void()> task);
  ~WakeableLoop();  // stop()
  WakeableLoop(const WakeableLoop&) = delete;
  WakeableLoop& operator=(const WakeableLoop&) = delete;

  void start();
  void wake();
  void wake_after(std::chrono::milliseconds delay);
  // Waits for a running task to finish, then joins. Idempotent.
  void stop();

 private:
  void loop();

  std::string name_;
  std::chrono::milliseconds interval_;
  std::function<void()> task_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool woken_ = false;
  std::optional<std::chrono::steady_clock::time_point> early_;  // wake_after()'s earliest run
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mqkit::client
