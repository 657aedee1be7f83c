#include "mqkit/plugin/v1/service_thread.hpp"

#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::plugin::v1 {

void ServiceThread::start(std::string name, std::function<void()> body) {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
    notified_.store(false);
  }
  thread_ = std::thread([name = std::move(name), body = std::move(body)] {
    name_this_thread(name);
    body();
  });
}

void ServiceThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ServiceThread::wakeup() {
  if (notified_.exchange(true, std::memory_order_acq_rel)) return;
  // Taking the lock orders this notify after a waiter's predicate check.
  { std::lock_guard lock(mutex_); }
  wake_.notify_all();
}

void ServiceThread::wait_for(std::chrono::steady_clock::duration timeout) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, timeout, [this] { return stopping_ || notified_.load(std::memory_order_acquire); });
  notified_.store(false, std::memory_order_release);
}

bool ServiceThread::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

}  // namespace mqkit::plugin::v1
