#include "task_scheduler.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <exception>

#include "client_threads.hpp"
#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

namespace {

void run_logged(const std::string& name, const std::function<void()>& task) {
  try {
    task();
  } catch (const std::exception& e) {
    kernel::logger("client")->error("{}: a task threw: {}", name, e.what());
  }
}

}  // namespace

TaskScheduler::TaskScheduler(std::string name)
    : name_(std::move(name)), work_(boost::asio::make_work_guard(io_)), thread_([this] {
        mark_client_thread(name_);
        io_.run();
      }) {}

TaskScheduler::~TaskScheduler() { stop(); }

void TaskScheduler::post(std::function<void()> task) {
  boost::asio::post(io_, [this, task = std::move(task)] { run_logged(name_, task); });
}

void TaskScheduler::post_after(std::chrono::milliseconds delay, std::function<void()> task) {
  if (delay.count() <= 0) return post(std::move(task));
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, delay);
  timer->async_wait([this, timer, task = std::move(task)](const boost::system::error_code& error) {
    if (!error) run_logged(name_, task);
  });
}

void TaskScheduler::stop() {
  if (!thread_.joinable()) return;
  work_.reset();
  io_.stop();
  thread_.join();
}

}  // namespace mqkit::client
