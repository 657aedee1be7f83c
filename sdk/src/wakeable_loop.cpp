#include "wakeable_loop.hpp"

#include <algorithm>
#include <exception>

#include "client_threads.hpp"
#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

WakeableLoop::WakeableLoop(std::string name, std::chrono::milliseconds interval, std::function<void()> task)
    : name_(std::move(name)), interval_(interval), task_(std::move(task)) {}

WakeableLoop::~WakeableLoop() { stop(); }

void WakeableLoop::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { loop(); });
}

void WakeableLoop::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  cv_.notify_one();
}

void WakeableLoop::wake_after(std::chrono::milliseconds delay) {
  {
    std::lock_guard lock(mutex_);
    const auto at = std::chrono::steady_clock::now() + delay;
    if (!early_ || at < *early_) early_ = at;
  }
  cv_.notify_one();
}

void WakeableLoop::stop() {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  cv_.notify_one();
  if (thread.joinable()) thread.join();
}

void WakeableLoop::loop() {
  mark_client_thread(name_);
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      const auto regular = std::chrono::steady_clock::now() + interval_;
      while (!stopping_ && !woken_) {
        const auto until = early_ ? std::min(regular, *early_) : regular;
        if (std::chrono::steady_clock::now() >= until) break;
        cv_.wait_until(lock, until);  // woken, stopped, timed out, or an earlier wake_after()
      }
      if (stopping_) return;
      woken_ = false;
      early_.reset();
    }
    try {
      task_();
    } catch (const std::exception& e) {
      kernel::logger("client")->error("{} threw: {}", name_, e.what());
    } catch (...) {
      kernel::logger("client")->error("{} threw", name_);
    }
  }
}

}  // namespace mqkit::client
