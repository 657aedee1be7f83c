#include "pending_requests.hpp"

#include <exception>
#include <vector>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

namespace {

// A request's callback: what it throws is logged, never passed on to a transport thread.
void call(const RequestCallback& callback, Result<MessageExt> result) noexcept {
  try {
    callback(std::move(result));
  } catch (const std::exception& e) {
    kernel::logger("client")->warn("a request callback threw: {}", e.what());
  } catch (...) {
    kernel::logger("client")->warn("a request callback threw");
  }
}

}  // namespace

Status PendingRequests::timeout_error(std::string_view topic, std::chrono::milliseconds timeout) {
  return Status::timeout("request timeout, no reply message after " + std::to_string(timeout.count()) +
                         " ms (request to <" + std::string(topic) + ">)");
}

Status PendingRequests::add(std::string correlation_id, std::string topic, Clock::time_point started,
                            std::chrono::milliseconds timeout, RequestCallback callback) {
  std::lock_guard lock(mutex_);
  const auto [it, added] = waiting_.try_emplace(std::move(correlation_id), Waiting{std::move(topic), started + timeout,
                                                                                   timeout, std::move(callback)});
  if (!added) return Status::already_exists("a request with correlation id " + it->first + " is waiting already");
  return Status::ok();
}

bool PendingRequests::end(std::string_view correlation_id,
                          const std::function<Result<MessageExt>(const Waiting&)>& result) {
  Waiting ended;
  {
    std::lock_guard lock(mutex_);
    const auto it = waiting_.find(correlation_id);
    if (it == waiting_.end()) return false;
    ended = std::move(it->second);
    waiting_.erase(it);
  }
  call(ended.callback, result(ended));
  return true;
}

bool PendingRequests::forget(std::string_view correlation_id) {
  std::lock_guard lock(mutex_);
  const auto it = waiting_.find(correlation_id);
  if (it == waiting_.end()) return false;
  waiting_.erase(it);
  return true;
}

bool PendingRequests::complete(std::string_view correlation_id, MessageExt reply) {
  return end(correlation_id, [&reply](const Waiting&) { return Result<MessageExt>(std::move(reply)); });
}

bool PendingRequests::fail(std::string_view correlation_id, Status error) {
  return end(correlation_id, [&error](const Waiting&) { return Result<MessageExt>(std::move(error)); });
}

bool PendingRequests::time_out(std::string_view correlation_id) {
  return end(correlation_id, [](const Waiting& w) { return Result<MessageExt>(timeout_error(w.topic, w.timeout)); });
}

std::size_t PendingRequests::end_where(const std::function<bool(const Waiting&)>& ending,
                                       const std::function<Status(std::string_view, const Waiting&)>& error) {
  std::vector<std::pair<std::string, Waiting>> ended;
  {
    std::lock_guard lock(mutex_);
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (ending(it->second)) {
        ended.emplace_back(it->first, std::move(it->second));
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& [id, w] : ended) call(w.callback, error(id, w));
  return ended.size();
}

std::size_t PendingRequests::expire(Clock::time_point now) {
  return end_where([now](const Waiting& w) { return w.deadline <= now; },
                   [](std::string_view id, const Waiting& w) {
                     kernel::logger("client")->warn("remove timeout request, CorrelationId={} (request to {}, {} ms)",
                                                    id, w.topic, w.timeout.count());
                     return timeout_error(w.topic, w.timeout);
                   });
}

std::size_t PendingRequests::fail_all(const Status& error) {
  return end_where([](const Waiting&) { return true; }, [&error](std::string_view, const Waiting&) { return error; });
}

std::size_t PendingRequests::size() const {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

}  // namespace mqkit::client
