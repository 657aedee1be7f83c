// RocketMQ 5's MessagingService over the SDK's client to the cluster (RocketMQ's cluster-mode
// proxy): routes from the name servers, sends to the brokers. Every answer carries RocketMQ's
// Status in its body; the gRPC status stays OK unless the call itself broke.
//
// Threads: gRPC's callback API; no call holds a thread while a broker answers. Sends, receives
// (long polls included) and acks go to the brokers asynchronously from gRPC's threads and are
// answered from the SDK's transport threads. What has to wait on a name server or broker (a
// route or group not cached yet, QueryRoute, QueryAssignment, settings, transactions, the rarer
// consumer calls) runs on the proxy's worker pool (`worker_threads`). Each connected client's
// Telemetry stream is a reactor holding no thread. The SDK's ClientInstance is thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/task_pool.hpp"
#include "mqkit/protocol/pop_receipt.hpp"
#include "mqkit/proxy/proxy_settings.hpp"
#include "queue_choice.hpp"
#include "receipt_renewals.hpp"
#include "telemetry_sessions.hpp"

namespace mqkit::acl {
class AccessControl;
}

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

struct BrokerBoundSend;

// What the proxy tells a consumer group's clients about the group (its subscription group config
// on the brokers): whether it consumes in order, and how many deliveries a message gets.
struct GroupView {
  bool fifo = false;
  std::int32_t max_delivery_attempts = 17;  // 1 + retry_max_times
};

class MessagingService final : public v2::MessagingService::CallbackService {
 public:
  // `access_control`: the ACL every call is checked against (grpc_access.hpp); none = no check.
  MessagingService(ProxySettings settings, std::shared_ptr<client::ClientInstance> cluster,
                   std::shared_ptr<const acl::AccessControl> access_control = nullptr);
  ~MessagingService() override;  // runs the workers' queued tasks, then joins them

  grpc::ServerUnaryReactor* QueryRoute(grpc::CallbackServerContext* context, const v2::QueryRouteRequest* request,
                                       v2::QueryRouteResponse* response) override;
  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* context, const v2::HeartbeatRequest* request,
                                      v2::HeartbeatResponse* response) override;
  grpc::ServerUnaryReactor* SendMessage(grpc::CallbackServerContext* context, const v2::SendMessageRequest* request,
                                        v2::SendMessageResponse* response) override;
  grpc::ServerUnaryReactor* EndTransaction(grpc::CallbackServerContext* context,
                                           const v2::EndTransactionRequest* request,
                                           v2::EndTransactionResponse* response) override;
  grpc::ServerBidiReactor<v2::TelemetryCommand, v2::TelemetryCommand>* Telemetry(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* QueryAssignment(grpc::CallbackServerContext* context,
                                            const v2::QueryAssignmentRequest* request,
                                            v2::QueryAssignmentResponse* response) override;
  grpc::ServerWriteReactor<v2::ReceiveMessageResponse>* ReceiveMessage(
      grpc::CallbackServerContext* context, const v2::ReceiveMessageRequest* request) override;
  grpc::ServerUnaryReactor* AckMessage(grpc::CallbackServerContext* context, const v2::AckMessageRequest* request,
                                       v2::AckMessageResponse* response) override;
  grpc::ServerUnaryReactor* ChangeInvisibleDuration(grpc::CallbackServerContext* context,
                                                    const v2::ChangeInvisibleDurationRequest* request,
                                                    v2::ChangeInvisibleDurationResponse* response) override;
  grpc::ServerUnaryReactor* ForwardMessageToDeadLetterQueue(
      grpc::CallbackServerContext* context, const v2::ForwardMessageToDeadLetterQueueRequest* request,
      v2::ForwardMessageToDeadLetterQueueResponse* response) override;
  grpc::ServerUnaryReactor* NotifyClientTermination(grpc::CallbackServerContext* context,
                                                    const v2::NotifyClientTerminationRequest* request,
                                                    v2::NotifyClientTerminationResponse* response) override;
  grpc::ServerUnaryReactor* RecallMessage(grpc::CallbackServerContext* context, const v2::RecallMessageRequest* request,
                                          v2::RecallMessageResponse* response) override;

  // For the metrics page: clients with an open Telemetry stream; deliveries held for push consumers.
  std::size_t connected_clients() const noexcept { return telemetry_streams_.load(std::memory_order_relaxed); }
  std::size_t held_messages() const { return renewals_.size(); }

  // Renews the deliveries held for push consumers whose invisible time ends within
  // renew_ahead_time (on the workers; called every renew_interval).
  void renew_receipts();

  // The settings a client is answered with on its Telemetry stream: its own, with the proxy's
  // retry policy and publishing limits for a producer, its group's order and delivery attempts
  // (`group`) for a consumer. A status other than OK refuses the client.
  v2::TelemetryCommand settings_reply(const v2::Settings& client_settings, const GroupView& group = {}) const;

 private:
  class TelemetryStream;
  class ReceiveStream;

  // UNAUTHORIZED with the reason when the ACL refuses the call's `request`; nothing when it is
  // allowed or the proxy checks no ACL.
  std::optional<v2::Status> refusal(const grpc::CallbackServerContext& context,
                                    const google::protobuf::Message& request) const;
  // The call answered with the refusal, or nullptr when it may go on.
  template <typename Response>
  grpc::ServerUnaryReactor* refused(grpc::CallbackServerContext* context, const google::protobuf::Message& request,
                                    Response* response) const;

  // Answers the call on a worker: `answer` may wait on name servers and brokers, and fills the
  // response; the call finishes OK after it (RocketMQ's status is in the response).
  grpc::ServerUnaryReactor* answer_on_worker(grpc::CallbackServerContext* context, std::function<void()> answer);
  // Runs `task` on a worker; false (not run) once the proxy is stopping.
  bool run_on_worker(std::function<void()> task);

  // The blocking halves of the calls answered on workers.
  void query_route(const v2::QueryRouteRequest& request, v2::QueryRouteResponse& response);
  void heartbeat(const std::string& client_id, const v2::HeartbeatRequest& request, v2::HeartbeatResponse& response);
  void end_transaction(const v2::EndTransactionRequest& request, v2::EndTransactionResponse& response);
  void query_assignment(const v2::QueryAssignmentRequest& request, v2::QueryAssignmentResponse& response);
  void change_invisible_duration(const v2::ChangeInvisibleDurationRequest& request,
                                 v2::ChangeInvisibleDurationResponse& response);
  void forward_to_dead_letter_queue(const v2::ForwardMessageToDeadLetterQueueRequest& request,
                                    v2::ForwardMessageToDeadLetterQueueResponse& response);
  void notify_client_termination(const std::string& client_id, v2::NotifyClientTerminationResponse& response);
  void recall_message(const v2::RecallMessageRequest& request, v2::RecallMessageResponse& response);

  // The delivery a receipt handle names, while it can still be acked or changed: its receipt and
  // the master holding it; INVALID_RECEIPT_HANDLE saying why not (malformed, expired, no master).
  struct LiveDelivery {
    protocol::PopReceipt receipt;
    std::string broker_address;
  };
  std::variant<LiveDelivery, v2::Status> live_delivery(const std::string& handle) const;
  // The handle to use at the broker for the delivery the client names with `client_handle`: the
  // renewed one when the proxy holds it for the client (which it no longer does after this).
  std::string current_handle(const std::string& group, const std::string& message_id, const std::string& client_handle);
  // One renewal of a held delivery (waits on a broker).
  void renew(const RenewedDelivery& delivery);
  // Deliveries no longer held for their client: made visible again after invisible_time_when_clear.
  void release(std::vector<RenewedDelivery> deliveries);

  // A send whose route is known goes to the chosen queue's master; `done` gets the response's status.
  void send_to_broker(const client::TopicRouteInfo& route, std::shared_ptr<BrokerBoundSend> send,
                      v2::SendMessageResponse* response, std::function<void()> done);
  // A receive whose route and group are known: a pop of the named broker, answered on `stream`.
  // `topic` is the resource the client named.
  // `renewing_client`: the push consumer the messages are then held for (auto_renew); empty: none.
  void pop_for(std::shared_ptr<ReceiveStream> stream, const std::string& broker_name, const v2::Resource& topic,
               client::PopMessageRequest pop, bool fifo, const std::string& renewing_client);

  // A client's settings on its Telemetry stream, and what follows from them: a consumer is
  // recorded and heartbeated to its brokers; checks of a producer's transactions come to
  // `session`. Waits on brokers.
  v2::TelemetryCommand accept_settings(const v2::Settings& settings, const std::string& client_id,
                                       const std::string& peer, const std::shared_ptr<TelemetrySessions::Session>& session);
  // The client's stream ended: it is no longer heartbeated, and checks go elsewhere.
  void forget_client(const std::string& client_id, const std::shared_ptr<TelemetrySessions::Session>& session);

  // The group's view from a broker serving `topic` (defaults when none answers), remembered for
  // as long as a route.
  GroupView group_view(const std::string& group, const std::string& topic);
  std::optional<GroupView> cached_group_view(const std::string& group);
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
  // The topic's cached route when younger than a route refresh; nullptr otherwise.
  std::shared_ptr<const client::TopicRouteInfo> cached_route(const std::string& topic) const;
  // The topic's cached route, fetched again when older than a route refresh (waits on a name server).
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
  const std::shared_ptr<const acl::AccessControl> access_control_;
  QueueChooser chooser_;
  const std::shared_ptr<TelemetrySessions> sessions_ = std::make_shared<TelemetrySessions>();
  std::mutex group_views_mutex_;
  std::map<std::string, std::pair<GroupView, std::chrono::steady_clock::time_point>> group_views_;
  std::mutex consumers_mutex_;
  std::map<std::string, ConsumerClient> consumers_;  // by client id
  ReceiptRenewals renewals_;
  std::atomic<std::size_t> telemetry_streams_{0};
  std::mutex checked_topics_mutex_;
  std::set<std::string> checked_topics_;
  // Last: its tasks use the members above, and it is joined first.
  client::TaskPool workers_;
};

}  // namespace mqkit::proxy
