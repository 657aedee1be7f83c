#include "mqkit/kernel/periodic_tasks.hpp"

#include <algorithm>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::kernel {

PeriodicTasks::~PeriodicTasks() { stop(); }

void PeriodicTasks::add(std::string name, std::chrono::milliseconds initial_delay, std::chrono::milliseconds interval,
                        std::function<void()> task) {
  tasks_.push_back({std::move(name), interval, std::move(task), std::chrono::steady_clock::now() + initial_delay});
}

void PeriodicTasks::start(std::string thread_name) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([this, thread_name = std::move(thread_name)] {
    plugin::v1::name_this_thread(thread_name);
    loop();
  });
}

void PeriodicTasks::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicTasks::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto due = std::min_element(tasks_.begin(), tasks_.end(),
                                [](const Task& a, const Task& b) { return a.next < b.next; });
    if (due == tasks_.end()) {
      wake_.wait(lock, [this] { return stopping_; });
      return;
    }
    if (wake_.wait_until(lock, due->next, [this] { return stopping_; })) return;
    lock.unlock();
    try {
      due->run();
    } catch (const std::exception& e) {
      logger("tasks")->error("periodic task {} failed: {}", due->name, e.what());
    }
    lock.lock();
    due->next = std::chrono::steady_clock::now() + due->interval;
  }
}

}  // namespace mqkit::kernel
