// RocketMQ 5's MessagingService over the SDK's client to the cluster (RocketMQ's cluster-mode
// proxy): routes from the name servers, sends to the brokers. Every answer carries RocketMQ's
// Status in its body; the gRPC status stays OK unless the call itself broke.
//
// Threads: gRPC's sync server calls every method on its own threads, several at once; the
// service keeps no per-call state, and the SDK's ClientInstance is thread-safe.
#pragma once

#include <memory>

#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/proxy/proxy_settings.hpp"
#include "queue_choice.hpp"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

class MessagingService final : public v2::MessagingService::Service {
 public:
  MessagingService(ProxySettings settings, std::shared_ptr<client::ClientInstance> cluster);

  grpc::Status QueryRoute(grpc::ServerContext* context, const v2::QueryRouteRequest* request,
                          v2::QueryRouteResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v2::HeartbeatRequest* request,
                         v2::HeartbeatResponse* response) override;
  grpc::Status SendMessage(grpc::ServerContext* context, const v2::SendMessageRequest* request,
                           v2::SendMessageResponse* response) override;
  grpc::Status Telemetry(grpc::ServerContext* context,
                         grpc::ServerReaderWriter<v2::TelemetryCommand, v2::TelemetryCommand>* stream) override;
  grpc::Status NotifyClientTermination(grpc::ServerContext* context, const v2::NotifyClientTerminationRequest* request,
                                       v2::NotifyClientTerminationResponse* response) override;
  grpc::Status RecallMessage(grpc::ServerContext* context, const v2::RecallMessageRequest* request,
                             v2::RecallMessageResponse* response) override;

  // The settings a client is answered with on its Telemetry stream: its own, with the proxy's
  // retry policy and publishing limits. A status other than OK refuses the client.
  v2::TelemetryCommand settings_reply(const v2::Settings& client_settings) const;

 private:
  // The topic's cached route, fetched again when older than a route refresh.
  client::Result<std::shared_ptr<const client::TopicRouteInfo>> route_for_send(const std::string& topic);

  const ProxySettings settings_;
  const std::shared_ptr<client::ClientInstance> cluster_;
  QueueChooser chooser_;
};

}  // namespace mqkit::proxy
