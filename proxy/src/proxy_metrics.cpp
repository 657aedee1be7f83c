#include "proxy_metrics.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/support/status.h>

#include <cctype>
#include <chrono>

#include "messaging_service.hpp"
#include "mqkit/metrics/exposition.hpp"

namespace mqkit::proxy {

namespace {

using metrics::MetricType;

// A RocketMQ Code's name as a label: OK → ok, MESSAGE_NOT_FOUND → message_not_found.
std::string code_label(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The status.code of a MessagingService response, as a label; empty when it carries none (a
// ReceiveMessage response that is a message).
std::string response_code_of(const google::protobuf::Message& response) {
  const auto* status_field = response.GetDescriptor()->FindFieldByName("status");
  if (status_field == nullptr || status_field->type() != google::protobuf::FieldDescriptor::TYPE_MESSAGE) return {};
  const auto* reflection = response.GetReflection();
  if (!reflection->HasField(response, status_field)) return {};
  const google::protobuf::Message& status = reflection->GetMessage(response, status_field);
  const auto* code_field = status.GetDescriptor()->FindFieldByName("code");
  if (code_field == nullptr || code_field->type() != google::protobuf::FieldDescriptor::TYPE_ENUM) return {};
  const auto* value = status.GetReflection()->GetEnum(status, code_field);
  return value != nullptr ? code_label(value->name()) : std::string();
}

class RpcTiming final : public grpc::experimental::Interceptor {
 public:
  RpcTiming(metrics::RpcLatency& latency, std::string rpc)
      : latency_(latency), rpc_(std::move(rpc)), started_(std::chrono::steady_clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE) && response_code_.empty()) {
      if (const void* message = methods->GetSendMessage()) {
        response_code_ = response_code_of(*static_cast<const google::protobuf::Message*>(message));
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_);
      // A call that broke (cancelled, the proxy stopping) has no RocketMQ code: its gRPC one.
      const std::string response =
          status.ok() && !response_code_.empty() ? response_code_ : "grpc_" + std::to_string(status.error_code());
      latency_.record(rpc_, response, rpc_ == "receive_message",
                      status.ok() ? metrics::RpcResult::kSuccess : metrics::RpcResult::kWriteChannelFailed,
                      elapsed.count());
    }
    methods->Proceed();
  }

 private:
  metrics::RpcLatency& latency_;
  const std::string rpc_;
  const std::chrono::steady_clock::time_point started_;
  std::string response_code_;  // of the first response carrying a status
};

class RpcTimingFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcTimingFactory(metrics::RpcLatency& latency) : latency_(latency) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    std::string rpc = rpc_label(info->method() != nullptr ? info->method() : "");
    return rpc.empty() ? nullptr : new RpcTiming(latency_, std::move(rpc));
  }

 private:
  metrics::RpcLatency& latency_;
};

}  // namespace

std::string rpc_label(std::string_view method) {
  const std::string_view name = method.substr(method.rfind('/') + 1);
  if (name.empty() || name == "Telemetry") return {};
  std::string label;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (std::isupper(c) && i > 0) label += '_';
    label += static_cast<char>(std::tolower(c));
  }
  return label;
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> rpc_timing(metrics::RpcLatency& latency) {
  return std::make_unique<RpcTimingFactory>(latency);
}

std::string proxy_metrics_page(const metrics::RpcLatency& latency, const MessagingService& service) {
  metrics::ExpositionWriter out({{"node_type", "proxy"}});
  out.family("rocketmq_proxy_up", MetricType::kGauge, "1 while the proxy serves");
  out.sample({{"proxy_mode", "cluster"}}, std::int64_t{1});
  out.family("mqkit_proxy_connected_clients", MetricType::kGauge, "Clients with an open Telemetry stream");
  out.sample({}, static_cast<std::int64_t>(service.connected_clients()));
  out.family("mqkit_proxy_held_messages", MetricType::kGauge,
             "Messages held invisible for push consumers while they consume them (auto_renew)");
  out.sample({}, static_cast<std::int64_t>(service.held_messages()));
  latency.write(out);
  return out.take();
}

}  // namespace mqkit::proxy
