#include "mqkit/broker/send/service_thread.hpp"

#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::broker {

void ServiceThread::start(const char* name, std::function<void()> body) {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([name, body = std::move(body)] {
    plugin::v1::name_this_thread(name);
    body();
  });
}

void ServiceThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ServiceThread::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void ServiceThread::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, timeout, [this] { return stopping_; });
}

void RepeatedWarning::operator()(const std::string& message) {
  if (message == last_) return;
  last_ = message;
  kernel::logger("broker")->warn("{}: {}", prefix_, message);
}

std::int64_t broker_clock_ms(const BrokerContext& context) {
  return context.clock ? context.clock() : kernel::wall_clock_ms();
}

}  // namespace mqkit::broker
