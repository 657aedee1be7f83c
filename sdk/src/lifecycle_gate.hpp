// LifecycleGate: lets calls into a client object (send, pull, ...) run only while it is started,
// and lets shutdown wait until the calls already inside have left, so nothing they use is torn
// down under them. Calls never block on the gate.
//
// Threads: enter()/leave() from any thread; open()/close() from the owner's start/shutdown.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace mqkit::client {

class LifecycleGate {
 public:
  void open();
  // False when the gate is not open (not started, or shutting down): the call must not proceed.
  bool enter();
  void leave() noexcept;
  // Closes the gate (later enter() fail) and waits until every call inside has left; false when
  // some are still inside at `deadline`.
  bool close(std::chrono::steady_clock::time_point deadline);
  bool is_open() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable left_;
  bool open_ = false;
  std::size_t inside_ = 0;
};

// Leaves the gate when it goes out of scope.
class GatePass {
 public:
  explicit GatePass(LifecycleGate& gate) : gate_(gate), entered_(gate.enter()) {}
  ~GatePass() {
    if (entered_) gate_.leave();
  }
  GatePass(const GatePass&) = delete;
  GatePass& operator=(const GatePass&) = delete;
  explicit operator bool() const noexcept { return entered_; }

 private:
  LifecycleGate& gate_;
  bool entered_;
};

}  // namespace mqkit::client
