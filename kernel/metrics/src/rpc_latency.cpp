#include "mqkit/metrics/rpc_latency.hpp"

#include <charconv>

#include "mqkit/protocol/code_names.hpp"

namespace mqkit::metrics {

namespace {

std::string_view result_name(RpcResult result) {
  switch (result) {
    case RpcResult::kOneway:
      return "oneway";
    case RpcResult::kWriteChannelFailed:
      return "write_channel_failed";
    case RpcResult::kSuccess:
      break;
  }
  return "success";
}

// RocketMQ labels a code it has no name for with its number.
std::string_view name_or_number(std::string_view name, std::int32_t code, char (&digits)[12]) {
  if (!name.empty()) return name;
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, code);
  return ec == std::errc() ? std::string_view(digits, static_cast<std::size_t>(end - digits)) : std::string_view();
}

}  // namespace

void RpcLatency::record(std::int32_t request_code, std::int32_t response_code, bool long_polling, RpcResult result,
                        std::int64_t elapsed_ms) {
  char request_digits[12];
  char response_digits[12];
  record(name_or_number(protocol::request_code_name(request_code), request_code, request_digits),
         name_or_number(protocol::response_code_name(response_code), response_code, response_digits), long_polling,
         result, elapsed_ms);
}

void RpcLatency::record(std::string_view request, std::string_view response, bool long_polling, RpcResult result,
                        std::int64_t elapsed_ms) {
  cells_.at({request, response, long_polling ? "true" : "false", result_name(result)}).latency.observe(elapsed_ms);
}

void RpcLatency::write(ExpositionWriter& out) const {
  out.family("rocketmq_rpc_latency", MetricType::kHistogram, "Time from a request's arrival to its answer, in milliseconds");
  cells_.for_each([&](const auto& labels, const Cell& cell) {
    out.histogram({{"protocol_type", protocol_type_},
                   {"request_code", labels[0]},
                   {"response_code", labels[1]},
                   {"is_long_polling", labels[2]},
                   {"result", labels[3]}},
                  cell.latency.snapshot());
  });
}

}  // namespace mqkit::metrics
