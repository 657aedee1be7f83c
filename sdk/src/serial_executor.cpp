#include "serial_executor.hpp"

#include <exception>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

SerialExecutor::SerialExecutor(std::string name) : name_(std::move(name)), thread_([this] { loop(); }) {}

SerialExecutor::~SerialExecutor() { stop(); }

bool SerialExecutor::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

void SerialExecutor::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SerialExecutor::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      kernel::logger("client")->error("{} task threw: {}", name_, e.what());
    } catch (...) {
      kernel::logger("client")->error("{} task threw", name_);
    }
  }
}

}  // namespace mqkit::client
