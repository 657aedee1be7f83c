// What the HA threads report about themselves for GET_BROKER_HA_STATUS (mqadmin haStatus):
// bytes moved per second, and a question answered on an io thread that owns the state.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>

#include "mqkit/broker/ha/replica_acks.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::broker::ha {

// Bytes moved over the last whole second, as RocketMQ's HA FlowMonitor counts them. One thread.
class TransferRate {
 public:
  void add(std::int64_t bytes, std::int64_t now_ms) noexcept {
    roll(now_ms);
    current_ += bytes;
  }
  std::int64_t per_second(std::int64_t now_ms) noexcept {
    roll(now_ms);
    return last_;
  }

 private:
  void roll(std::int64_t now_ms) noexcept {
    if (since_ms_ == 0) since_ms_ = now_ms;
    const std::int64_t elapsed = now_ms - since_ms_;
    if (elapsed < 1000) return;
    // A second with nothing moved in it ends with nothing to show.
    last_ = elapsed < 2000 ? current_ * 1000 / elapsed : 0;
    current_ = 0;
    since_ms_ = now_ms;
  }

  std::int64_t current_ = 0;
  std::int64_t last_ = 0;
  std::int64_t since_ms_ = 0;
};

// Runs `question` on the thread running `io` and returns its answer; Unavailable when that thread
// does not answer within `patience` (it is stuck or stopping).
template <typename Question>
auto ask_io_thread(boost::asio::io_context& io, Question question,
                   std::chrono::milliseconds patience = std::chrono::seconds(2))
    -> plugin::v1::Result<decltype(question())> {
  auto answer = std::make_shared<std::promise<decltype(question())>>();
  auto future = answer->get_future();
  boost::asio::post(io, [answer, question = std::move(question)]() mutable { answer->set_value(question()); });
  if (future.wait_for(patience) != std::future_status::ready) {
    return plugin::v1::Status::unavailable("the HA thread did not answer within " + std::to_string(patience.count()) + " ms");
  }
  return future.get();
}

// A steady-clock time (ReplicaAcks::steady_ms) as wall-clock milliseconds; 0 stays 0.
inline std::int64_t wall_time_of(std::int64_t steady_ms) {
  if (steady_ms == 0) return 0;
  return kernel::wall_clock_ms() - (ReplicaAcks::steady_ms() - steady_ms);
}

}  // namespace mqkit::broker::ha
