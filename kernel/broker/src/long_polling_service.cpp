#include "mqkit/broker/long_polling_service.hpp"

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::broker {

LongPollingService::LongPollingService(Clock clock) : clock_(std::move(clock)) {}

LongPollingService::~LongPollingService() { stop(); }

void LongPollingService::start(std::int64_t tick_ms) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  timer_ = std::thread([this, tick_ms] {
    plugin::v1::name_this_thread("PullRequestHold");
    run(tick_ms);
  });
}

void LongPollingService::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (timer_.joinable()) timer_.join();
  std::map<QueueKey, std::vector<Held>, QueueKeyLess> remaining;
  {
    std::lock_guard lock(mutex_);
    remaining.swap(held_);
  }
  for (auto& [key, pulls] : remaining) {
    for (auto& p : pulls) p.retry();
  }
}

void LongPollingService::hold(const std::string& topic, std::int32_t queue_id, std::int64_t offset,
                              std::int64_t deadline_ms, Retry retry) {
  std::lock_guard lock(mutex_);
  held_[{topic, queue_id}].push_back({offset, deadline_ms, std::move(retry)});
}

void LongPollingService::notify(std::string_view topic, std::int32_t queue_id, std::int64_t max_offset) {
  std::vector<Retry> ready;
  {
    std::lock_guard lock(mutex_);
    auto it = held_.find(std::pair<std::string_view, std::int32_t>(topic, queue_id));
    if (it == held_.end()) return;
    auto& pulls = it->second;
    for (auto p = pulls.begin(); p != pulls.end();) {
      if (max_offset > p->offset) {
        ready.push_back(std::move(p->retry));
        p = pulls.erase(p);
      } else {
        ++p;
      }
    }
    if (pulls.empty()) held_.erase(it);
  }
  for (auto& r : ready) r();
}

std::size_t LongPollingService::held() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [key, pulls] : held_) n += pulls.size();
  return n;
}

plugin::v1::Status LongPollingService::dispatch(const plugin::v1::DispatchRecord& record) noexcept {
  try {
    notify(record.topic, record.queue_id, record.queue_offset + 1);
  } catch (const std::exception& e) {
    // A failed wake-up only delays the answer to the deadline; never stop dispatch for it.
    kernel::logger("long-polling")->warn("wake-up failed: {}", e.what());
  }
  return plugin::v1::Status::ok();
}

void LongPollingService::retry_expired() {
  std::vector<Retry> ready;
  const std::int64_t now = clock_();
  {
    std::lock_guard lock(mutex_);
    for (auto it = held_.begin(); it != held_.end();) {
      auto& pulls = it->second;
      for (auto p = pulls.begin(); p != pulls.end();) {
        if (p->deadline_ms <= now) {
          ready.push_back(std::move(p->retry));
          p = pulls.erase(p);
        } else {
          ++p;
        }
      }
      it = pulls.empty() ? held_.erase(it) : std::next(it);
    }
  }
  for (auto& r : ready) r();
}

void LongPollingService::run(std::int64_t tick_ms) {
  std::unique_lock lock(mutex_);
  while (!stop_signal_.wait_for(lock, std::chrono::milliseconds(tick_ms), [this] { return stopping_; })) {
    lock.unlock();
    retry_expired();
    lock.lock();
  }
}

}  // namespace mqkit::broker
