// ServiceThread: a named background thread that sleeps between rounds of work and can be woken
// early or stopped (RocketMQ's ServiceThread). The commitlog store's flusher, file allocator and
// housekeeping loop and the broker's delay-level and timer services are built on it; plugins
// may use it too.
//
// Threads: start()/stop() from the owner's thread; wakeup() from any thread; wait_for() and
// stopping() from the service's own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace mqkit::plugin::v1 {

class ServiceThread {
 public:
  ServiceThread() = default;
  ~ServiceThread() { stop(); }
  ServiceThread(const ServiceThread&) = delete;
  ServiceThread& operator=(const ServiceThread&) = delete;

  // Runs `body` on a new thread named `name` (name_this_thread); the body loops until
  // stopping() and sleeps with wait_for(). Does nothing while a thread runs.
  void start(std::string name, std::function<void()> body);
  // Asks the body to finish, wakes it and joins. Idempotent.
  void stop();
  // Cheap when a wakeup is already pending (no lock, no system call): appenders call it often.
  void wakeup();
  // Sleeps until `timeout` passes, wakeup() is called or stop() is called. A wakeup that came
  // while the body was busy is not lost: the next wait returns at once.
  void wait_for(std::chrono::steady_clock::duration timeout);
  bool stopping() const;
  bool running() const noexcept { return thread_.joinable(); }

 private:
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;                 // guarded by mutex_
  std::atomic<bool> notified_{false};     // set before mutex_ is taken to notify: no lost wakeup
  std::thread thread_;
};

}  // namespace mqkit::plugin::v1
