// PeriodicTasks: one thread running named tasks at fixed intervals (registration with name
// servers, offset persistence, client expiry, ...). A task that throws is logged and keeps its
// schedule. Tasks run one at a time, so a slow task delays the others: keep them short.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mqkit::kernel {

class PeriodicTasks {
 public:
  PeriodicTasks() = default;
  ~PeriodicTasks();
  PeriodicTasks(const PeriodicTasks&) = delete;
  PeriodicTasks& operator=(const PeriodicTasks&) = delete;

  // Adds a task first run after `initial_delay`, then every `interval`. Only before start().
  void add(std::string name, std::chrono::milliseconds initial_delay, std::chrono::milliseconds interval,
           std::function<void()> task);
  // Starts the thread, named `thread_name` (docs/threading.md lists the names).
  void start(std::string thread_name = "PeriodicTasks");
  // Stops after the running task (if any) finishes. Idempotent.
  void stop();

 private:
  struct Task {
    std::string name;
    std::chrono::milliseconds interval;
    std::function<void()> run;
    std::chrono::steady_clock::time_point next;
  };
  void loop();

  std::vector<Task> tasks_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace mqkit::kernel
