// RpcLatency: RocketMQ's rocketmq_rpc_latency histogram (its RemotingMetricsManager): how long
// requests took from arrival to answer, per request code, response code, long polling and
// result, in milliseconds with RocketMQ's buckets (1, 3, 5, 7, 10, 100 ms, 1, 2, 3 s). Its
// _count series are the request counts.
//
// record() runs on request threads (see LabeledCells for its cost); write() on the exporter's.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/metrics/exposition.hpp"
#include "mqkit/metrics/histogram.hpp"
#include "mqkit/metrics/labeled_cells.hpp"

namespace mqkit::metrics {

// RocketMQ's result label.
enum class RpcResult : std::uint8_t { kSuccess, kOneway, kWriteChannelFailed };

class RpcLatency {
 public:
  static constexpr std::int64_t kBucketsMs[] = {1, 3, 5, 7, 10, 100, 1000, 2000, 3000};

  // `protocol_type`: the label's value, "remoting" (RocketMQ's) or "grpc" (mqproxy's calls).
  explicit RpcLatency(std::string_view protocol_type = "remoting") : protocol_type_(protocol_type) {}

  // A remoting request: its codes are labelled with RocketMQ's names.
  void record(std::int32_t request_code, std::int32_t response_code, bool long_polling, RpcResult result,
              std::int64_t elapsed_ms);
  // A request whose request and response are labelled with the names given.
  void record(std::string_view request, std::string_view response, bool long_polling, RpcResult result,
              std::int64_t elapsed_ms);
  // The rocketmq_rpc_latency family.
  void write(ExpositionWriter& out) const;

 private:
  struct Cell {
    Histogram<kBucketsMs> latency;
  };
  std::string protocol_type_;
  // request_code, response_code, is_long_polling, result
  LabeledCells<Cell, 4> cells_;
};

// One request's arrival, recorded in an RpcLatency when it is answered. Inert (and reads no
// clock) without one, which is how a server with metrics off pays nothing.
class RpcTimer {
 public:
  explicit RpcTimer(RpcLatency* rpc = nullptr) noexcept
      : rpc_(rpc), arrived_(rpc != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}) {}

  void answered(std::int32_t request_code, std::int32_t response_code, bool long_polling, RpcResult result) const {
    if (rpc_ == nullptr) return;
    const auto elapsed = std::chrono::steady_clock::now() - arrived_;
    rpc_->record(request_code, response_code, long_polling, result,
                 std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count());
  }

 private:
  RpcLatency* rpc_;  // outlives the request
  std::chrono::steady_clock::time_point arrived_;
};

}  // namespace mqkit::metrics
