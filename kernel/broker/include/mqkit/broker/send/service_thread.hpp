// What the broker's delivery services (delay levels, timer messages) share: a named thread that
// loops until stopped, with waits that stop() cuts short (RocketMQ's ServiceThread); a warning
// logged once while the same failure repeats tick after tick; and the broker's clock.
//
// Threads: start()/stop() from the owner's thread; stopping() and wait_for() from the service's
// own thread (or any); RepeatedWarning from one thread only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "mqkit/broker/broker_context.hpp"

namespace mqkit::broker {

class ServiceThread {
 public:
  ServiceThread() = default;
  ~ServiceThread() { stop(); }
  ServiceThread(const ServiceThread&) = delete;
  ServiceThread& operator=(const ServiceThread&) = delete;

  bool running() const noexcept { return thread_.joinable(); }
  // Runs `body` on a new thread called `name` (at most 15 characters: a Linux thread name).
  // Does nothing while a thread runs.
  void start(const char* name, std::function<void()> body);
  // Asks the thread to stop, wakes it and joins it. Idempotent.
  void stop();
  bool stopping() const;
  // Sleeps `timeout`, or less when stop() is called.
  void wait_for(std::chrono::milliseconds timeout);

 private:
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
};

// Logs "<prefix>: <message>" as a broker warning, unless it is the message logged last.
class RepeatedWarning {
 public:
  explicit RepeatedWarning(std::string prefix) : prefix_(std::move(prefix)) {}
  void operator()(const std::string& message);

 private:
  std::string prefix_;
  std::string last_;
};

// The broker's clock (context.clock), or the wall clock where a context has none.
std::int64_t broker_clock_ms(const BrokerContext& context);

}  // namespace mqkit::broker
