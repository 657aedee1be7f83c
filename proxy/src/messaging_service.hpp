// RocketMQ 5's MessagingService over the SDK's client to the cluster (RocketMQ's cluster-mode
// proxy): routes from the name servers, sends to the brokers. Every answer carries RocketMQ's
// Status in its body; the gRPC status stays OK unless the call itself broke.
//
// Threads: gRPC's sync server calls every method on its own threads, several at once; the
// service keeps no per-call state, and the SDK's ClientInstance is thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <variant>

#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/proxy/proxy_settings.hpp"
#include "queue_choice.hpp"
#include "telemetry_sessions.hpp"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

// What the proxy tells a consumer group's clients about the group (its subscription group config
// on the brokers): whether it consumes in order, and how many deliveries a message gets.
struct GroupView {
  bool fifo = false;
  std::int32_t max_delivery_attempts = 17;  // 1 + retry_max_times
};

class MessagingService final : public v2::MessagingService::Service {
 public:
  MessagingService(ProxySettings settings, std::shared_ptr<client::ClientInstance> cluster);

  grpc::Status QueryRoute(grpc::ServerContext* context, const v2::QueryRouteRequest* request,
                          v2::QueryRouteResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v2::HeartbeatRequest* request,
                         v2::HeartbeatResponse* response) override;
  grpc::Status SendMessage(grpc::ServerContext* context, const v2::SendMessageRequest* request,
                           v2::SendMessageResponse* response) override;
  grpc::Status EndTransaction(grpc::ServerContext* context, const v2::EndTransactionRequest* request,
                              v2::EndTransactionResponse* response) override;
  grpc::Status Telemetry(grpc::ServerContext* context,
                         grpc::ServerReaderWriter<v2::TelemetryCommand, v2::TelemetryCommand>* stream) override;
  grpc::Status QueryAssignment(grpc::ServerContext* context, const v2::QueryAssignmentRequest* request,
                               v2::QueryAssignmentResponse* response) override;
  grpc::Status ReceiveMessage(grpc::ServerContext* context, const v2::ReceiveMessageRequest* request,
                              grpc::ServerWriter<v2::ReceiveMessageResponse>* writer) override;
  grpc::Status AckMessage(grpc::ServerContext* context, const v2::AckMessageRequest* request,
                          v2::AckMessageResponse* response) override;
  grpc::Status ChangeInvisibleDuration(grpc::ServerContext* context, const v2::ChangeInvisibleDurationRequest* request,
                                       v2::ChangeInvisibleDurationResponse* response) override;
  grpc::Status ForwardMessageToDeadLetterQueue(grpc::ServerContext* context,
                                               const v2::ForwardMessageToDeadLetterQueueRequest* request,
                                               v2::ForwardMessageToDeadLetterQueueResponse* response) override;
  grpc::Status NotifyClientTermination(grpc::ServerContext* context, const v2::NotifyClientTerminationRequest* request,
                                       v2::NotifyClientTerminationResponse* response) override;
  grpc::Status RecallMessage(grpc::ServerContext* context, const v2::RecallMessageRequest* request,
                             v2::RecallMessageResponse* response) override;

  // The settings a client is answered with on its Telemetry stream: its own, with the proxy's
  // retry policy and publishing limits for a producer, its group's order and delivery attempts
  // (`group`) for a consumer. A status other than OK refuses the client.
  v2::TelemetryCommand settings_reply(const v2::Settings& client_settings, const GroupView& group = {}) const;

 private:
  // The group's view from a broker serving `topic` (defaults when none answers), remembered for
  // as long as a route.
  GroupView group_view(const std::string& group, const std::string& topic);
  // What QueryRoute and QueryAssignment answer from: the topic as brokers name it, its route
  // fetched now, and where to send the client; or the Status refusing the request.
  struct FreshRoute {
    std::string topic;
    std::shared_ptr<const client::TopicRouteInfo> route;
    v2::Endpoints endpoints;
  };
  std::variant<FreshRoute, v2::Status> fresh_route(const v2::Resource& topic, const v2::Endpoints& queried);
  // Where routes and assignments send the client: the advertised address, else what it queried.
  std::optional<v2::Endpoints> access_point(const v2::Endpoints& queried) const;
  // The topic's cached route, fetched again when older than a route refresh.
  client::Result<std::shared_ptr<const client::TopicRouteInfo>> route_for_send(const std::string& topic);

  // Registers `topics` (brokers' names) as producer groups with the brokers, so that their checks
  // of orphaned transactions come to this proxy, which forwards them to a publisher's stream.
  void take_transaction_checks(const std::vector<std::string>& topics);

  // A connected consumer as the brokers should see it: its group and subscriptions, from its
  // settings. The proxy heartbeats it to the masters of its topics (each time the client
  // heartbeats), so brokers list it and create its %RETRY% topic, as RocketMQ's proxy does.
  struct ConsumerClient {
    std::string group;
    std::vector<protocol::SubscriptionData> subscriptions;
  };
  void heartbeat_consumer(const std::string& client_id);
  // The masters serving `topics` (routes as cached, fetched when missing).
  std::set<std::string> masters_of(const std::vector<protocol::SubscriptionData>& topics);

  const ProxySettings settings_;
  const std::shared_ptr<client::ClientInstance> cluster_;
  QueueChooser chooser_;
  const std::shared_ptr<TelemetrySessions> sessions_ = std::make_shared<TelemetrySessions>();
  std::mutex group_views_mutex_;
  std::map<std::string, std::pair<GroupView, std::chrono::steady_clock::time_point>> group_views_;
  std::mutex consumers_mutex_;
  std::map<std::string, ConsumerClient> consumers_;  // by client id
  std::mutex checked_topics_mutex_;
  std::set<std::string> checked_topics_;
};

}  // namespace mqkit::proxy
