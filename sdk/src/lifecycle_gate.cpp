#include "lifecycle_gate.hpp"

namespace mqkit::client {

void LifecycleGate::open() {
  std::lock_guard lock(mutex_);
  open_ = true;
}

bool LifecycleGate::enter() {
  std::lock_guard lock(mutex_);
  if (!open_) return false;
  ++inside_;
  return true;
}

void LifecycleGate::leave() noexcept {
  std::lock_guard lock(mutex_);
  if (--inside_ == 0) left_.notify_all();
}

bool LifecycleGate::close(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  open_ = false;
  return left_.wait_until(lock, deadline, [this] { return inside_ == 0; });
}

bool LifecycleGate::is_open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

}  // namespace mqkit::client
