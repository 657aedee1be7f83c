#include "send_window.hpp"

#include <algorithm>
#include <string>

namespace mqkit::client {

SendWindow::SendWindow(std::size_t max_messages, std::size_t max_bytes)
    : max_messages_(max_messages), max_bytes_(max_bytes) {}

bool SendWindow::fits(std::size_t bytes) const noexcept {
  if (messages_ >= max_messages_) return false;
  return messages_ == 0 || bytes_ + bytes <= max_bytes_;
}

bool SendWindow::worth_waking() const noexcept {
  if (messages_ == 0) return true;
  const std::size_t slack_messages = std::max<std::size_t>(1, max_messages_ / 4);
  return messages_ + slack_messages <= max_messages_ && bytes_ + max_bytes_ / 4 <= max_bytes_;
}

Status SendWindow::acquire(std::size_t bytes, Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  bool room = fits(bytes);
  if (!room) {
    ++waiting_;
    room = changed_.wait_until(lock, deadline, [&] { return fits(bytes); });
    --waiting_;
  }
  if (!room) {
    return Status::resource_exhausted("async send window full: " + std::to_string(messages_) + " messages (max " +
                                      std::to_string(max_messages_) + "), " + std::to_string(bytes_) +
                                      " bytes (max " + std::to_string(max_bytes_) +
                                      ") await their response; no room before the send timeout");
  }
  ++messages_;
  bytes_ += bytes;
  return Status::ok();
}

void SendWindow::release(std::size_t bytes) noexcept {
  // Notify under the lock: a waiter in wait_until_empty may destroy the window as soon as it
  // can take the lock, so nothing may touch it after the unlock.
  std::lock_guard lock(mutex_);
  --messages_;
  bytes_ -= bytes;
  if (waiting_ > 0 && worth_waking()) changed_.notify_all();
}

bool SendWindow::wait_until_empty(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  ++waiting_;
  const bool empty = changed_.wait_until(lock, deadline, [&] { return messages_ == 0; });
  --waiting_;
  return empty;
}

std::size_t SendWindow::messages_in_flight() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

std::size_t SendWindow::bytes_in_flight() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace mqkit::client
