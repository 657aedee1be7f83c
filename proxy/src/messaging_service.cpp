#include "messaging_service.hpp"

#include <chrono>

#include "grpc_status.hpp"
#include "message_conversion.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/timer.hpp"
#include "mqkit/protocol/validation.hpp"
#include "route_view.hpp"

namespace mqkit::proxy {

namespace {

constexpr std::chrono::seconds kRouteRefresh{30};  // as clients refresh theirs

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000" → "127.0.0.1:5000" / "[::1]:5000".
std::string peer_address(const grpc::ServerContext& context) {
  std::string peer = context.peer();
  for (const std::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (peer.starts_with(scheme)) return peer.substr(scheme.size());
  }
  return peer;
}

// RocketMQ clients name themselves in the x-mq-client-id header of every call.
bool has_client_id(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("x-mq-client-id");
  return it != metadata.end() && it->second.size() > 0;
}

google::protobuf::Duration duration_of(std::chrono::milliseconds ms) {
  google::protobuf::Duration d;
  d.set_seconds(ms.count() / 1000);
  d.set_nanos(static_cast<std::int32_t>((ms.count() % 1000) * 1'000'000));
  return d;
}

std::shared_ptr<spdlog::logger> log() { return kernel::logger("proxy"); }

}  // namespace

MessagingService::MessagingService(ProxySettings settings, std::shared_ptr<client::ClientInstance> cluster)
    : settings_(std::move(settings)), cluster_(std::move(cluster)) {}

grpc::Status MessagingService::QueryRoute(grpc::ServerContext*, const v2::QueryRouteRequest* request,
                                          v2::QueryRouteResponse* response) {
  if (auto invalid = protocol::validate_topic(request->topic().name()); !invalid) {
    *response->mutable_status() = make_status(v2::ILLEGAL_TOPIC, invalid.message());
    return grpc::Status::OK;
  }
  v2::Endpoints endpoints = request->endpoints();
  if (!settings_.advertised_address.empty()) {
    // Validated when the proxy started.
    endpoints = parse_endpoints(settings_.advertised_address).value_or(endpoints);
  }
  if (endpoints.addresses_size() == 0) {
    *response->mutable_status() = make_status(v2::ILLEGAL_ACCESS_POINT, "the request names no endpoints to route to");
    return grpc::Status::OK;
  }
  const std::string topic = wire_name(request->topic());
  if (auto updated = cluster_->update_route(topic); !updated) {
    *response->mutable_status() = status_of_failure(updated, v2::TOPIC_NOT_FOUND);
    return grpc::Status::OK;
  }
  const auto route = cluster_->cached_route(topic);
  if (route == nullptr) {
    *response->mutable_status() = make_status(v2::TOPIC_NOT_FOUND, "no route of topic " + topic);
    return grpc::Status::OK;
  }
  // The topic's message type lives in its config on the brokers; a broker that cannot say
  // (an older RocketMQ) leaves it NORMAL, as RocketMQ 5 assumes for topics without one.
  protocol::TopicConfig config;
  const std::string address = cluster_->find_broker_address_of_topic(topic);
  if (!address.empty()) {
    if (auto found = cluster_->api().get_topic_config(address, topic); found) config = std::move(found).value();
  }
  for (auto& queue : message_queues(route->route, request->topic(), endpoints, accepted_message_types(config))) {
    *response->add_message_queues() = std::move(queue);
  }
  *response->mutable_status() = ok_status();
  return grpc::Status::OK;
}

grpc::Status MessagingService::Heartbeat(grpc::ServerContext* context, const v2::HeartbeatRequest* request,
                                         v2::HeartbeatResponse* response) {
  if (!has_client_id(*context)) {
    *response->mutable_status() = make_status(v2::CLIENT_ID_REQUIRED, "the x-mq-client-id header is required");
  } else if (request->client_type() == v2::CLIENT_TYPE_UNSPECIFIED) {
    *response->mutable_status() = make_status(v2::UNRECOGNIZED_CLIENT_TYPE, "the heartbeat names no client type");
  } else {
    *response->mutable_status() = ok_status();
  }
  return grpc::Status::OK;
}

client::Result<std::shared_ptr<const client::TopicRouteInfo>> MessagingService::route_for_send(const std::string& topic) {
  auto route = cluster_->cached_route(topic);
  if (route == nullptr || std::chrono::steady_clock::now() - route->updated_at > kRouteRefresh) {
    MQKIT_RETURN_IF_ERROR(cluster_->update_route(topic));
    route = cluster_->cached_route(topic);
  }
  if (route == nullptr) return plugin::v1::Status::not_found("no route of topic " + topic);
  return route;
}

grpc::Status MessagingService::SendMessage(grpc::ServerContext* context, const v2::SendMessageRequest* request,
                                           v2::SendMessageResponse* response) {
  auto converted = to_broker_send(*request, settings_, peer_address(*context), now_ms());
  if (auto* refused = std::get_if<v2::Status>(&converted)) {
    *response->mutable_status() = *refused;
    return grpc::Status::OK;
  }
  auto& send = std::get<BrokerBoundSend>(converted);
  auto route = route_for_send(send.topic);
  if (!route) {
    *response->mutable_status() = status_of_failure(route.status(), v2::TOPIC_NOT_FOUND);
    return grpc::Status::OK;
  }
  const auto queue = chooser_.choose((*route)->publish.queues, send.message_group);
  if (!queue) {
    *response->mutable_status() = make_status(v2::FORBIDDEN, "topic " + send.topic + " has no writable queue");
    return grpc::Status::OK;
  }
  const std::string address = cluster_->find_broker_master(queue->broker_name);
  if (address.empty()) {
    *response->mutable_status() = make_status(v2::INTERNAL_SERVER_ERROR, "no master address of broker " + queue->broker_name);
    return grpc::Status::OK;
  }
  send.request.queue_id = queue->queue_id;
  auto sent = cluster_->api().send_message(address, queue->broker_name, std::move(send.request), settings_.send_timeout);
  if (!sent) {
    log()->debug("send to {} of {} failed: {}", send.topic, address, sent.status().to_string());
    *response->mutable_status() = status_of_failure(sent.status(), v2::TOPIC_NOT_FOUND);
    return grpc::Status::OK;
  }
  v2::Status entry_status = ok_status();
  switch (sent->status) {
    case client::SendStatus::kSendOk: break;
    case client::SendStatus::kFlushDiskTimeout:
      entry_status = make_status(v2::MASTER_PERSISTENCE_TIMEOUT, "send message failed, sendStatus=FLUSH_DISK_TIMEOUT");
      break;
    case client::SendStatus::kFlushSlaveTimeout:
      entry_status = make_status(v2::SLAVE_PERSISTENCE_TIMEOUT, "send message failed, sendStatus=FLUSH_SLAVE_TIMEOUT");
      break;
    case client::SendStatus::kSlaveNotAvailable:
      entry_status = make_status(v2::HA_NOT_AVAILABLE, "send message failed, sendStatus=SLAVE_NOT_AVAILABLE");
      break;
  }
  // A batch's ids come comma-joined, its offset is the first message's.
  std::string_view ids = sent->msg_id;
  for (std::size_t i = 0; i < send.message_count; ++i) {
    const auto comma = ids.find(',');
    auto* entry = response->add_entries();
    *entry->mutable_status() = entry_status;
    entry->set_message_id(std::string(ids.substr(0, comma)));
    entry->set_offset(sent->queue_offset + static_cast<std::int64_t>(i));
    entry->set_transaction_id(sent->transaction_id);
    entry->set_recall_handle(sent->recall_handle);
    ids = comma == std::string_view::npos ? std::string_view() : ids.substr(comma + 1);
  }
  *response->mutable_status() = entry_status;
  return grpc::Status::OK;
}

v2::TelemetryCommand MessagingService::settings_reply(const v2::Settings& client_settings) const {
  v2::TelemetryCommand reply;
  if (client_settings.client_type() != v2::PRODUCER) {
    *reply.mutable_status() = make_status(
        v2::UNSUPPORTED, "mqproxy serves producers only so far; consume with a RocketMQ remoting client or mqkit's SDK");
    return reply;
  }
  v2::Settings& settings = *reply.mutable_settings();
  settings = client_settings;
  auto& backoff = *settings.mutable_backoff_policy();
  backoff.Clear();
  backoff.set_max_attempts(static_cast<std::int32_t>(settings_.producer_max_attempts));
  auto& exponential = *backoff.mutable_exponential_backoff();
  *exponential.mutable_initial() = duration_of(settings_.producer_backoff_initial);
  *exponential.mutable_max() = duration_of(settings_.producer_backoff_max);
  exponential.set_multiplier(static_cast<float>(settings_.producer_backoff_multiplier));
  auto& publishing = *settings.mutable_publishing();
  publishing.set_max_body_size(static_cast<std::int32_t>(settings_.max_message_size));
  publishing.set_validate_message_type(settings_.enable_topic_message_type_check);
  *reply.mutable_status() = ok_status();
  return reply;
}

grpc::Status MessagingService::Telemetry(grpc::ServerContext* context,
                                         grpc::ServerReaderWriter<v2::TelemetryCommand, v2::TelemetryCommand>* stream) {
  const std::string peer = peer_address(*context);
  v2::TelemetryCommand command;
  while (stream->Read(&command)) {
    switch (command.command_case()) {
      case v2::TelemetryCommand::kSettings: {
        const auto reply = settings_reply(command.settings());
        if (reply.status().code() != v2::OK) log()->warn("client {} refused: {}", peer, reply.status().message());
        if (!stream->Write(reply)) return grpc::Status::OK;
        break;
      }
      default:
        // Answers to commands the proxy never sends (thread stacks, message verification).
        log()->debug("client {} sent telemetry command {} the proxy did not ask for", peer,
                     static_cast<int>(command.command_case()));
        break;
    }
  }
  return grpc::Status::OK;
}

grpc::Status MessagingService::NotifyClientTermination(grpc::ServerContext*, const v2::NotifyClientTerminationRequest*,
                                                       v2::NotifyClientTerminationResponse* response) {
  *response->mutable_status() = ok_status();
  return grpc::Status::OK;
}

grpc::Status MessagingService::RecallMessage(grpc::ServerContext*, const v2::RecallMessageRequest* request,
                                             v2::RecallMessageResponse* response) {
  auto handle = protocol::timer::decode_recall_handle(request->recall_handle());
  if (!handle) {
    *response->mutable_status() = make_status(v2::BAD_REQUEST, handle.status().message());
    return grpc::Status::OK;
  }
  const std::string topic = wire_name(request->topic());
  if (auto route = route_for_send(topic); !route) {
    *response->mutable_status() = status_of_failure(route.status(), v2::TOPIC_NOT_FOUND);
    return grpc::Status::OK;
  }
  const std::string address = cluster_->find_broker_master(handle->broker_name);
  if (address.empty()) {
    *response->mutable_status() = make_status(v2::NOT_FOUND, "no master address of broker " + handle->broker_name);
    return grpc::Status::OK;
  }
  auto recalled = cluster_->api().recall_message(address, topic, topic, request->recall_handle(), settings_.send_timeout);
  if (!recalled) {
    *response->mutable_status() = status_of_failure(recalled.status(), v2::MESSAGE_NOT_FOUND);
    return grpc::Status::OK;
  }
  response->set_message_id(*recalled);
  *response->mutable_status() = ok_status();
  return grpc::Status::OK;
}

}  // namespace mqkit::proxy
