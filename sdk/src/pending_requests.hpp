// PendingRequests: the requests of one client instance waiting for their reply, by correlation
// id (RocketMQ's RequestFutureHolder). Producer::request adds one; the reply pushed by a broker
// completes it (reply_receiver.hpp); a failed send or the deadline ends it with an error. Each
// request's callback runs exactly once, on the thread that ended it (a transport thread, the
// caller, or the instance's periodic thread for expired requests), never under the table's lock.
// Nothing stays behind: an ended request leaves the table, and expire() ends those past their
// deadline, so a reply that never comes leaks nothing.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "mqkit/client/request_reply.hpp"

namespace mqkit::client {

class PendingRequests {
 public:
  using Clock = std::chrono::steady_clock;

  // Waits for the reply to the request `correlation_id` sent to `topic` until `started +
  // timeout`. AlreadyExists when that id waits already.
  Status add(std::string correlation_id, std::string topic, Clock::time_point started,
             std::chrono::milliseconds timeout, RequestCallback callback);
  // Hands `reply` to its request; false when none waits for it (it came too late, or was never
  // asked for).
  bool complete(std::string_view correlation_id, MessageExt reply);
  // Drops a waiting request without calling it back (its caller learnt the error otherwise).
  bool forget(std::string_view correlation_id);
  // Ends a waiting request with `error`; false when it is not waiting.
  bool fail(std::string_view correlation_id, Status error);
  // Ends a waiting request with the timeout error; false when it is not waiting.
  bool time_out(std::string_view correlation_id);
  // Ends every request whose deadline is at or before `now` with the timeout error; how many.
  std::size_t expire(Clock::time_point now);
  // Ends every waiting request with `error` (the instance is going away); how many.
  std::size_t fail_all(const Status& error);
  std::size_t size() const;

  // Timeout "request timeout, no reply message after <timeout> ms (request to <topic>)".
  static Status timeout_error(std::string_view topic, std::chrono::milliseconds timeout);

 private:
  struct Waiting {
    std::string topic;
    Clock::time_point deadline;
    std::chrono::milliseconds timeout;
    RequestCallback callback;
  };
  // Removes the requests `ending` picks (under the lock) and calls each back with its result.
  std::size_t end_where(const std::function<bool(const Waiting&)>& ending,
                        const std::function<Status(std::string_view id, const Waiting&)>& error);
  // Removes the request and runs its callback with `result` outside the lock.
  bool end(std::string_view correlation_id, const std::function<Result<MessageExt>(const Waiting&)>& result);

  mutable std::mutex mutex_;
  std::map<std::string, Waiting, std::less<>> waiting_;
};

}  // namespace mqkit::client
