#include "service_thread.hpp"

namespace mqkit::plugins::stores::commitlog {

void ServiceThread::start(std::function<void()> body) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
    notified_ = false;
  }
  thread_ = std::thread(std::move(body));
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
  {
    std::lock_guard lock(mutex_);
    notified_ = true;
  }
  wake_.notify_all();
}

void ServiceThread::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, timeout, [this] { return stopping_ || notified_; });
  notified_ = false;
}

bool ServiceThread::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

}  // namespace mqkit::plugins::stores::commitlog
