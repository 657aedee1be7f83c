// mqproxy's Prometheus metrics (with metrics_exporter_type PROM): RocketMQ's rocketmq_proxy_up,
// rocketmq_rpc_latency of every gRPC call (protocol_type "grpc"), and what the proxy holds:
// connected clients and push consumers' held deliveries. docs/metrics.md.
//
// The calls are timed by a gRPC server interceptor, so no handler changes: from the call's start
// to its status, labelled with the call (snake_case: send_message, receive_message, ...) and the
// RocketMQ Status code of its (first) response (ok, message_not_found, unauthorized, ...).
// Telemetry streams, which live as long as their client, are not timed.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <grpcpp/support/server_interceptor.h>

#include "mqkit/metrics/rpc_latency.hpp"

namespace mqkit::proxy {

class MessagingService;

// "/apache.rocketmq.v2.MessagingService/SendMessage" → "send_message"; empty for Telemetry.
std::string rpc_label(std::string_view method);

// Creates the interceptor that times each call into `latency` (which outlives the server).
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> rpc_timing(metrics::RpcLatency& latency);

// The /metrics page.
std::string proxy_metrics_page(const metrics::RpcLatency& latency, const MessagingService& service);

}  // namespace mqkit::proxy
