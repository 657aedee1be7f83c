// SerialExecutor: one thread running posted tasks in order. The client runs work there that
// must not run on a transport thread because it may block (an async send's retry may open a
// connection). Tasks of a stopped executor are dropped (their owners were drained before).
//
// Threads: post() from any thread; tasks run on the executor's thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace mqkit::client {

class SerialExecutor {
 public:
  explicit SerialExecutor(std::string name);
  ~SerialExecutor();  // stop()
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  // False when stopped (the task is not run).
  bool post(std::function<void()> task);
  // Runs what is queued, then joins. Idempotent; not from a task.
  void stop();

 private:
  void loop();

  std::string name_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mqkit::client
