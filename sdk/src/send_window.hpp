// SendWindow: bounds what async sends keep in memory — at most `max_messages` messages and
// `max_bytes` body bytes awaiting their response. acquire() waits for room (back-pressure on the
// sending thread) until a deadline; release() comes from the response callback.
//
// A message larger than the byte budget still fits an empty window, so it can be sent at all.
// A waiting sender is woken once a quarter of the window is free again (or it is empty), not by
// every response: it then sends a run of messages that the transport writes together, instead
// of waking for each single slot.
// Threads: any; acquire() blocks, release() never does.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

class SendWindow {
 public:
  using Clock = std::chrono::steady_clock;

  SendWindow(std::size_t max_messages, std::size_t max_bytes);

  // ResourceExhausted when there is still no room at `deadline`.
  Status acquire(std::size_t bytes, Clock::time_point deadline);
  void release(std::size_t bytes) noexcept;
  // True once nothing is in flight; false when `deadline` passes first.
  bool wait_until_empty(Clock::time_point deadline);

  std::size_t messages_in_flight() const;
  std::size_t bytes_in_flight() const;

 private:
  bool fits(std::size_t bytes) const noexcept;
  bool worth_waking() const noexcept;

  const std::size_t max_messages_;
  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t messages_ = 0;
  std::size_t bytes_ = 0;
  std::size_t waiting_ = 0;  // threads in acquire() or wait_until_empty()
};

}  // namespace mqkit::client
