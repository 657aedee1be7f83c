#include "mqkit/client/task_pool.hpp"

#include <exception>

#include "client_threads.hpp"
#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

TaskPool::TaskPool(std::string name, std::size_t threads, std::size_t max_waiting)
    : name_(std::move(name)), max_waiting_(max_waiting) {
  ::sem_init(&ready_, 0, 0);
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { run(i); });
}

TaskPool::~TaskPool() {
  join();
  ::sem_destroy(&ready_);
}

bool TaskPool::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (joining_ || tasks_.size() >= max_waiting_) return false;
    tasks_.push_back(std::move(task));
  }
  ::sem_post(&ready_);
  return true;
}

void TaskPool::join() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    joining_ = true;
    threads.swap(threads_);
  }
  for (std::size_t i = 0; i < threads.size(); ++i) ::sem_post(&ready_);
  for (auto& t : threads) t.join();
}

void TaskPool::run(std::size_t index) noexcept {
  mark_client_thread(name_, index);
  for (;;) {
    while (::sem_wait(&ready_) != 0) {
      // EINTR only: a signal handler ran.
    }
    std::function<void()> task;
    {
      std::lock_guard lock(mutex_);
      // Posts and tasks match one to one until join(), so only join()'s posts find it empty.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      // Listener calls catch their own exceptions (call_listener_guarded); this is the rest.
      kernel::logger("client")->error("a {} task threw: {}", name_, e.what());
    } catch (...) {
      kernel::logger("client")->error("a {} task threw something that is not a std::exception", name_);
    }
  }
}

}  // namespace mqkit::client
