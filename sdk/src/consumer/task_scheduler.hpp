// TaskScheduler: one thread running tasks now or after a delay (RocketMQ's
// PullMessageService.executePullRequestLater and the consume services' "submit later"). Tasks
// must be short: pulls are asynchronous and consumption runs elsewhere. Tasks of a stopped
// scheduler are dropped.
//
// Threads: post/post_after from any thread (never block); tasks run on the scheduler's thread.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace mqkit::client {

class TaskScheduler {
 public:
  explicit TaskScheduler(std::string name);
  ~TaskScheduler();  // stop()
  TaskScheduler(const TaskScheduler&) = delete;
  TaskScheduler& operator=(const TaskScheduler&) = delete;

  void post(std::function<void()> task);
  void post_after(std::chrono::milliseconds delay, std::function<void()> task);
  // Drops pending tasks once the running one (if any) returns, then joins. Idempotent; not from
  // a task.
  void stop();

 private:
  std::string name_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace mqkit::client
