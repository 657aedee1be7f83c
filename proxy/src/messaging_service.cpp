#include "messaging_service.hpp"

#include <atomic>
#include <chrono>
#include <deque>

#include "grpc_access.hpp"
#include "grpc_status.hpp"
#include "message_conversion.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/pop_receipt.hpp"
#include "mqkit/protocol/subscription_expression.hpp"
#include "mqkit/protocol/timer.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "mqkit/protocol/validation.hpp"
#include "proto_time.hpp"
#include "route_view.hpp"
#include "transaction_id.hpp"

namespace mqkit::proxy {

namespace {

constexpr std::chrono::seconds kRouteRefresh{30};  // as clients refresh theirs

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000" → "127.0.0.1:5000" / "[::1]:5000".
std::string peer_address(const grpc::CallbackServerContext& context) {
  std::string peer = context.peer();
  for (const std::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (peer.starts_with(scheme)) return peer.substr(scheme.size());
  }
  return peer;
}

// RocketMQ clients name themselves in the x-mq-client-id header of every call; empty when not.
std::string client_id_of(const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("x-mq-client-id");
  return it == metadata.end() ? std::string() : std::string(it->second.data(), it->second.size());
}

std::shared_ptr<spdlog::logger> log() { return kernel::logger("proxy"); }

template <typename Response>
void finish(grpc::ServerUnaryReactor* reactor, Response* response, v2::Status status) {
  *response->mutable_status() = std::move(status);
  reactor->Finish(grpc::Status::OK);
}

v2::Status stopping_status() { return make_status(v2::INTERNAL_SERVER_ERROR, "the proxy is stopping"); }

}  // namespace

// One ReceiveMessage call: the status, then each message, written one after another once the
// pop is answered. The pop holds a reference, so a call the client cancels meanwhile (gRPC then
// calls OnDone) leaves its answer to a live object, which drops it: the messages come back
// after their invisible time.
class MessagingService::ReceiveStream final : public grpc::ServerWriteReactor<v2::ReceiveMessageResponse> {
 public:
  static std::shared_ptr<ReceiveStream> start() {
    auto stream = std::shared_ptr<ReceiveStream>(new ReceiveStream());
    stream->self_ = stream;
    return stream;
  }

  // Writes `responses` in order and finishes; nothing when the call is over already. `done` then
  // learns whether the client got every response.
  void answer(std::vector<v2::ReceiveMessageResponse> responses, std::function<void(bool delivered)> done = {}) {
    bool taken = false;
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::kWaiting) {
        state_ = State::kWriting;
        responses_ = std::move(responses);
        done_ = std::move(done);
        taken = true;
      }
    }
    if (!taken) {
      if (done) done(false);  // the call is over
      return;
    }
    StartWrite(&responses_.front());
  }
  void answer(v2::Status status) {
    std::vector<v2::ReceiveMessageResponse> responses(1);
    *responses.front().mutable_status() = std::move(status);
    answer(std::move(responses));
  }

  void OnWriteDone(bool ok) override {
    // Only this stream's own writes run here, one at a time: responses_ is its alone.
    if (ok && ++written_ < responses_.size()) return StartWrite(&responses_[written_]);
    {
      std::lock_guard lock(mutex_);
      state_ = State::kFinished;
    }
    if (done_) done_(ok);
    Finish(grpc::Status::OK);
  }

  void OnCancel() override {
    {
      std::lock_guard lock(mutex_);
      if (state_ != State::kWaiting) return;  // a write in flight fails and finishes the call
      state_ = State::kFinished;
    }
    Finish(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    const auto keep = std::move(self_);  // may be the last reference: this goes at return
  }

 private:
  ReceiveStream() = default;
  enum class State { kWaiting, kWriting, kFinished };
  std::mutex mutex_;
  State state_ = State::kWaiting;
  std::vector<v2::ReceiveMessageResponse> responses_;
  std::size_t written_ = 0;
  std::function<void(bool delivered)> done_;  // set with responses_
  std::shared_ptr<ReceiveStream> self_;  // until gRPC is done with the call
};

// One client's Telemetry stream: reads the client's commands one at a time (settings are
// answered from a worker, since they wait on brokers) and writes what the proxy sends it, in
// order, from any thread: settings replies and forwarded transaction checks. When the client's
// side ends, what is still queued is dropped and the call finishes after the write in flight.
// Queued is not delivered: a forwarded check lost with a stream is asked again by the broker.
class MessagingService::TelemetryStream final
    : public grpc::ServerBidiReactor<v2::TelemetryCommand, v2::TelemetryCommand>,
      public TelemetrySessions::Session {
 public:
  static TelemetryStream* start(MessagingService& service, const grpc::CallbackServerContext& context) {
    auto stream = std::shared_ptr<TelemetryStream>(new TelemetryStream(service, context));
    stream->self_ = stream;
    service.telemetry_streams_.fetch_add(1, std::memory_order_relaxed);
    stream->StartRead(&stream->incoming_);
    return stream.get();
  }

  bool write(const v2::TelemetryCommand& command) override {
    const v2::TelemetryCommand* next = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (closing_) return false;
      outgoing_.push_back(command);
      if (writing_) return true;
      writing_ = true;
      next = &outgoing_.front();
    }
    StartWrite(next);
    return true;
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The client closed its side, or the call broke. No read is started after this one.
      bool finish_now = false;
      {
        std::lock_guard lock(mutex_);
        reading_ended_ = true;
        closing_ = true;
        finish_now = !writing_;
      }
      if (finish_now) Finish(grpc::Status::OK);
      return;
    }
    if (auto refused = service_.refusal(context_, incoming_)) {
      // The command is not taken; the stream stays, as the client may correct its settings.
      v2::TelemetryCommand answer;
      *answer.mutable_status() = std::move(*refused);
      (void)write(answer);
      return StartRead(&incoming_);
    }
    if (incoming_.command_case() != v2::TelemetryCommand::kSettings) {
      // Answers to commands the proxy never sends (thread stacks, message verification).
      log()->debug("client {} sent telemetry command {} the proxy did not ask for", peer_,
                   static_cast<int>(incoming_.command_case()));
      return StartRead(&incoming_);
    }
    auto settings = std::make_shared<v2::Settings>(std::move(*incoming_.mutable_settings()));
    const bool queued = service_.run_on_worker([this, settings, keep = self_] {
      (void)write(service_.accept_settings(*settings, client_id_, peer_, keep));
      StartRead(&incoming_);
    });
    if (!queued) StartRead(&incoming_);  // stopping: the next read fails and ends the stream
  }

  void OnWriteDone(bool ok) override {
    const v2::TelemetryCommand* next = nullptr;
    bool finish_now = false;
    {
      std::lock_guard lock(mutex_);
      outgoing_.pop_front();
      // A broken stream takes no more writes; its pending (or next) read fails and ends it.
      if (!ok) closing_ = true;
      if (!outgoing_.empty() && !closing_) {
        next = &outgoing_.front();
      } else {
        writing_ = false;
        outgoing_.clear();
        finish_now = reading_ended_;
      }
    }
    if (next != nullptr) return StartWrite(next);
    if (finish_now) Finish(grpc::Status::OK);
  }

  void OnDone() override {
    service_.telemetry_streams_.fetch_sub(1, std::memory_order_relaxed);
    service_.forget_client(client_id_, self_);
    const auto keep = std::move(self_);  // may be the last reference: this goes at return
  }

 private:
  TelemetryStream(MessagingService& service, const grpc::CallbackServerContext& context)
      : service_(service), context_(context), peer_(peer_address(context)), client_id_(client_id_of(context)) {}

  MessagingService& service_;  // outlives every call: the server is shut down first
  const grpc::CallbackServerContext& context_;  // gRPC keeps it until OnDone
  const std::string peer_;
  const std::string client_id_;
  v2::TelemetryCommand incoming_;  // one read at a time
  std::mutex mutex_;
  std::deque<v2::TelemetryCommand> outgoing_;  // the front is being written
  // The call finishes once reading has ended and no write is in flight, so that no read or write
  // is ever started on a finished call.
  bool writing_ = false;
  bool closing_ = false;        // no more writes are taken
  bool reading_ended_ = false;  // the last read failed; none follows
  std::shared_ptr<TelemetryStream> self_;  // until gRPC is done with the call
};

MessagingService::MessagingService(ProxySettings settings, std::shared_ptr<client::ClientInstance> cluster,
                                   std::shared_ptr<const acl::AccessControl> access_control)
    : settings_(std::move(settings)),
      cluster_(std::move(cluster)),
      access_control_(std::move(access_control)),
      workers_("proxy-worker", static_cast<std::size_t>(settings_.worker_threads)) {}

MessagingService::~MessagingService() { workers_.join(); }

std::optional<v2::Status> MessagingService::refusal(const grpc::CallbackServerContext& context,
                                                   const google::protobuf::Message& request) const {
  if (access_control_ == nullptr) return std::nullopt;
  const std::string peer = peer_address(context);
  const auto checked = check_call(*access_control_, context.client_metadata(), peer, request);
  if (checked) return std::nullopt;
  log()->info("ACL refused {} from {}: {}", request.GetDescriptor()->name(), peer, checked.message());
  return make_status(v2::UNAUTHORIZED, checked.message());
}

template <typename Response>
grpc::ServerUnaryReactor* MessagingService::refused(grpc::CallbackServerContext* context,
                                                    const google::protobuf::Message& request, Response* response) const {
  auto status = refusal(*context, request);
  if (!status) return nullptr;
  auto* reactor = context->DefaultReactor();
  finish(reactor, response, std::move(*status));
  return reactor;
}

bool MessagingService::run_on_worker(std::function<void()> task) { return workers_.post(std::move(task)); }

grpc::ServerUnaryReactor* MessagingService::answer_on_worker(grpc::CallbackServerContext* context,
                                                            std::function<void()> answer) {
  auto* reactor = context->DefaultReactor();
  if (!run_on_worker([reactor, answer = std::move(answer)] {
        answer();
        reactor->Finish(grpc::Status::OK);
      })) {
    reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the proxy is stopping"));
  }
  return reactor;
}

std::shared_ptr<const client::TopicRouteInfo> MessagingService::cached_route(const std::string& topic) const {
  auto route = cluster_->cached_route(topic);
  if (route == nullptr || std::chrono::steady_clock::now() - route->updated_at > kRouteRefresh) return nullptr;
  return route;
}

client::Result<std::shared_ptr<const client::TopicRouteInfo>> MessagingService::route_for_send(const std::string& topic) {
  if (auto route = cached_route(topic)) return route;
  MQKIT_RETURN_IF_ERROR(cluster_->update_route(topic));
  auto route = cluster_->cached_route(topic);
  if (route == nullptr) return plugin::v1::Status::not_found("no route of topic " + topic);
  return route;
}

std::optional<GroupView> MessagingService::cached_group_view(const std::string& group) {
  std::lock_guard lock(group_views_mutex_);
  const auto it = group_views_.find(group);
  if (it == group_views_.end() || std::chrono::steady_clock::now() - it->second.second >= kRouteRefresh) return std::nullopt;
  return it->second.first;
}

GroupView MessagingService::group_view(const std::string& group, const std::string& topic) {
  if (auto cached = cached_group_view(group)) return *cached;
  GroupView view;
  if (route_for_send(topic)) {
    const std::string address = cluster_->find_broker_address_of_topic(topic);
    if (!address.empty()) {
      if (auto config = cluster_->api().get_subscription_group(address, group)) {
        view.fifo = config->consume_message_orderly;
        view.max_delivery_attempts = config->retry_max_times + 1;
        // Kept as long as a route: every receive asks, and a group's settings rarely change.
        std::lock_guard lock(group_views_mutex_);
        group_views_[group] = {view, std::chrono::steady_clock::now()};
      }
    }
  }
  return view;
}

grpc::ServerUnaryReactor* MessagingService::QueryRoute(grpc::CallbackServerContext* context,
                                                       const v2::QueryRouteRequest* request,
                                                       v2::QueryRouteResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response] { query_route(*request, *response); });
}

void MessagingService::query_route(const v2::QueryRouteRequest& request, v2::QueryRouteResponse& response) {
  auto answer = fresh_route(request.topic(), request.endpoints());
  if (auto* refused = std::get_if<v2::Status>(&answer)) {
    *response.mutable_status() = std::move(*refused);
    return;
  }
  const auto& [topic, route, endpoints] = std::get<FreshRoute>(answer);
  // The topic's message type lives in its config on the brokers; a broker that cannot say
  // (an older RocketMQ) leaves it NORMAL, as RocketMQ 5 assumes for topics without one.
  protocol::TopicConfig config;
  const std::string address = cluster_->find_broker_address_of_topic(topic);
  if (!address.empty()) {
    if (auto found = cluster_->api().get_topic_config(address, topic); found) config = std::move(found).value();
  }
  for (auto& queue : message_queues(route->route, request.topic(), endpoints, accepted_message_types(config))) {
    *response.add_message_queues() = std::move(queue);
  }
  *response.mutable_status() = ok_status();
}
std::variant<MessagingService::FreshRoute, v2::Status> MessagingService::fresh_route(const v2::Resource& topic,
                                                                                 const v2::Endpoints& queried) {
  if (auto invalid = protocol::validate_topic(topic.name()); !invalid) return make_status(v2::ILLEGAL_TOPIC, invalid.message());
  auto endpoints = access_point(queried);
  if (!endpoints) return make_status(v2::ILLEGAL_ACCESS_POINT, "the request names no endpoints to route to");
  FreshRoute fresh{.topic = wire_name(topic), .route = nullptr, .endpoints = std::move(*endpoints)};
  if (auto updated = cluster_->update_route(fresh.topic); !updated) return status_of_failure(updated, v2::TOPIC_NOT_FOUND);
  fresh.route = cluster_->cached_route(fresh.topic);
  if (fresh.route == nullptr) return make_status(v2::TOPIC_NOT_FOUND, "no route of topic " + fresh.topic);
  return fresh;
}
std::optional<v2::Endpoints> MessagingService::access_point(const v2::Endpoints& queried) const {
  // The advertised address was validated when the proxy started.
  if (!settings_.advertised_address.empty()) return parse_endpoints(settings_.advertised_address);
  if (queried.addresses_size() == 0) return std::nullopt;
  return queried;
}
grpc::ServerUnaryReactor* MessagingService::Heartbeat(grpc::CallbackServerContext* context,
                                                      const v2::HeartbeatRequest* request,
                                                      v2::HeartbeatResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response, client_id = client_id_of(*context)] {
    heartbeat(client_id, *request, *response);
  });
}

void MessagingService::heartbeat(const std::string& client_id, const v2::HeartbeatRequest& request,
                                 v2::HeartbeatResponse& response) {
  if (client_id.empty()) {
    *response.mutable_status() = make_status(v2::CLIENT_ID_REQUIRED, "the x-mq-client-id header is required");
  } else if (request.client_type() == v2::CLIENT_TYPE_UNSPECIFIED) {
    *response.mutable_status() = make_status(v2::UNRECOGNIZED_CLIENT_TYPE, "the heartbeat names no client type");
  } else {
    if (request.client_type() != v2::PRODUCER) heartbeat_consumer(client_id);
    *response.mutable_status() = ok_status();
  }
}

grpc::ServerUnaryReactor* MessagingService::SendMessage(grpc::CallbackServerContext* context,
                                                        const v2::SendMessageRequest* request,
                                                        v2::SendMessageResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  auto* reactor = context->DefaultReactor();
  auto converted = to_broker_send(*request, settings_, peer_address(*context), now_ms());
  if (auto* refused = std::get_if<v2::Status>(&converted)) {
    finish(reactor, response, std::move(*refused));
    return reactor;
  }
  auto send = std::make_shared<BrokerBoundSend>(std::move(std::get<BrokerBoundSend>(converted)));
  const auto done = [reactor] { reactor->Finish(grpc::Status::OK); };
  if (const auto route = cached_route(send->topic)) {
    send_to_broker(*route, std::move(send), response, done);
    return reactor;
  }
  const bool queued = run_on_worker([this, send, response, done, reactor] {
    auto route = route_for_send(send->topic);
    if (!route) return finish(reactor, response, status_of_failure(route.status(), v2::TOPIC_NOT_FOUND));
    send_to_broker(**route, send, response, done);
  });
  if (!queued) finish(reactor, response, stopping_status());
  return reactor;
}

void MessagingService::send_to_broker(const client::TopicRouteInfo& route, std::shared_ptr<BrokerBoundSend> send,
                                      v2::SendMessageResponse* response, std::function<void()> done) {
  const auto answer = [&](v2::Status status) {
    *response->mutable_status() = std::move(status);
    done();
  };
  const auto queue = chooser_.choose(route.publish.queues, send->message_group);
  if (!queue) return answer(make_status(v2::FORBIDDEN, "topic " + send->topic + " has no writable queue"));
  const std::string address = cluster_->find_broker_master(queue->broker_name);
  if (address.empty()) return answer(make_status(v2::INTERNAL_SERVER_ERROR, "no master address of broker " + queue->broker_name));
  send->request.queue_id = queue->queue_id;
  client::SendMessageRequest request = std::move(send->request);
  cluster_->api().send_message_async(
      address, queue->broker_name, std::move(request), settings_.send_timeout,
      [send, response, done = std::move(done), address, broker_name = queue->broker_name](client::Result<client::SendResult> sent) {
        if (!sent) {
          log()->debug("send to {} of {} failed: {}", send->topic, address, sent.status().to_string());
          *response->mutable_status() = status_of_failure(sent.status(), v2::TOPIC_NOT_FOUND);
          return done();
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
        for (std::size_t i = 0; i < send->message_count; ++i) {
          const auto comma = ids.find(',');
          auto* entry = response->add_entries();
          *entry->mutable_status() = entry_status;
          entry->set_message_id(std::string(ids.substr(0, comma)));
          entry->set_offset(sent->queue_offset + static_cast<std::int64_t>(i));
          if (send->transactional) {
            // What EndTransaction needs comes back in the transaction id (transaction_id.hpp).
            const auto stored_at = plugin::v1::parse_offset_message_id(sent->offset_msg_id);
            entry->set_transaction_id(encode_transaction_id(
                {.broker_name = broker_name,
                 .tran_state_table_offset = sent->queue_offset,
                 .commit_log_offset = stored_at ? stored_at->commit_offset : 0,
                 .broker_transaction_id =
                     sent->transaction_id.empty() ? std::string(entry->message_id()) : sent->transaction_id}));
          }
          entry->set_recall_handle(sent->recall_handle);
          ids = comma == std::string_view::npos ? std::string_view() : ids.substr(comma + 1);
        }
        *response->mutable_status() = entry_status;
        done();
      });
}

grpc::ServerBidiReactor<v2::TelemetryCommand, v2::TelemetryCommand>* MessagingService::Telemetry(
    grpc::CallbackServerContext* context) {
  return TelemetryStream::start(*this, *context);
}

v2::TelemetryCommand MessagingService::accept_settings(const v2::Settings& settings, const std::string& client_id,
                                                       const std::string& peer,
                                                       const std::shared_ptr<TelemetrySessions::Session>& session) {
  GroupView group;
  if (settings.has_subscription() && settings.subscription().subscriptions_size() > 0) {
    group = group_view(wire_name(settings.subscription().group()),
                       wire_name(settings.subscription().subscriptions(0).topic()));
  }
  auto reply = settings_reply(settings, group);
  if (reply.status().code() != v2::OK) {
    log()->warn("client {} refused: {}", peer, reply.status().message());
    return reply;
  }
  if (settings.has_subscription() && !client_id.empty()) {
    ConsumerClient consumer{.group = wire_name(settings.subscription().group()), .subscriptions = {}};
    for (const auto& entry : settings.subscription().subscriptions()) {
      const std::string topic = wire_name(entry.topic());
      const std::string& expression = entry.expression().expression();
      auto data = protocol::parse_subscription(topic, expression.empty() ? "*" : expression, now_ms());
      if (entry.expression().type() == v2::SQL) data.expression_type = "SQL92";
      consumer.subscriptions.push_back(std::move(data));
    }
    {
      std::lock_guard lock(consumers_mutex_);
      consumers_[client_id] = std::move(consumer);
    }
    heartbeat_consumer(client_id);
  }
  if (settings.client_type() == v2::PRODUCER && settings.has_publishing()) {
    std::vector<std::string> topics;
    for (const auto& topic : settings.publishing().topics()) topics.push_back(wire_name(topic));
    sessions_->publish(session, topics);
    take_transaction_checks(topics);
  }
  return reply;
}

void MessagingService::forget_client(const std::string& client_id,
                                     const std::shared_ptr<TelemetrySessions::Session>& session) {
  // A client that is gone stops being heartbeated, and its record goes with its stream (a live
  // client opens a new stream and sends its settings again). What it was consuming is no longer
  // held for it.
  sessions_->close(session);
  release(renewals_.take_client(client_id));
  std::lock_guard lock(consumers_mutex_);
  consumers_.erase(client_id);
}

grpc::ServerUnaryReactor* MessagingService::QueryAssignment(grpc::CallbackServerContext* context,
                                                            const v2::QueryAssignmentRequest* request,
                                                            v2::QueryAssignmentResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response] { query_assignment(*request, *response); });
}

grpc::ServerWriteReactor<v2::ReceiveMessageResponse>* MessagingService::ReceiveMessage(
    grpc::CallbackServerContext* context, const v2::ReceiveMessageRequest* request) {
  auto stream = ReceiveStream::start();
  if (auto refused = refusal(*context, *request)) {
    stream->answer(std::move(*refused));
    return stream.get();
  }
  const v2::Resource& topic_resource = request->message_queue().topic();
  if (auto invalid = protocol::validate_group(request->group().name()); !invalid) {
    stream->answer(make_status(v2::ILLEGAL_CONSUMER_GROUP, invalid.message()));
    return stream.get();
  }
  if (auto invalid = protocol::validate_topic(topic_resource.name()); !invalid) {
    stream->answer(make_status(v2::ILLEGAL_TOPIC, invalid.message()));
    return stream.get();
  }
  // A push consumer asks the proxy to keep what it received invisible while it consumes
  // (auto_renew): the pop gets the default invisible time and is renewed from then on.
  const bool renewed = request->auto_renew() && settings_.enable_auto_renew;
  const std::int64_t invisible_ms = request->has_invisible_duration() && !renewed ? ms_of(request->invisible_duration())
                                                                                  : settings_.default_invisible_time.count();
  if (!renewed &&
      (invisible_ms < settings_.min_invisible_time.count() || invisible_ms > settings_.max_invisible_time.count())) {
    stream->answer(make_status(v2::ILLEGAL_INVISIBLE_TIME,
                               "the invisible time must be between " + std::to_string(settings_.min_invisible_time.count()) +
                                   " and " + std::to_string(settings_.max_invisible_time.count()) + " ms"));
    return stream.get();
  }
  if (request->batch_size() <= 0 || request->batch_size() > 32) {
    stream->answer(make_status(v2::BAD_REQUEST, "batch size must be between 1 and 32"));
    return stream.get();
  }
  std::int64_t poll_ms = request->has_long_polling_timeout() ? ms_of(request->long_polling_timeout())
                                                             : settings_.max_long_polling_time.count();
  poll_ms = std::clamp<std::int64_t>(poll_ms, 0, settings_.max_long_polling_time.count());
  // Answer before the client gives up on the call.
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(context->deadline() - std::chrono::system_clock::now());
  if (left.count() > 0) poll_ms = std::min<std::int64_t>(poll_ms, std::max<std::int64_t>(0, left.count() - 1000));

  client::PopMessageRequest pop;
  pop.consumer_group = wire_name(request->group());
  pop.topic = wire_name(topic_resource);
  // Any queue of that broker, as RocketMQ's proxy pops: the client's queue only names the broker.
  pop.queue_id = -1;
  pop.max_msg_nums = request->batch_size();
  pop.invisible_ms = invisible_ms;
  pop.poll_ms = poll_ms;
  pop.init_from_max = true;  // RocketMQ's proxy pops with ConsumeInitMode.MAX
  pop.expression = request->filter_expression().expression().empty() ? "*" : request->filter_expression().expression();
  if (request->filter_expression().type() == v2::SQL) {
    // Checked here, as RocketMQ's proxy checks it, so that the client learns what is wrong with
    // it; the broker compiles it again (once per group and expression).
    if (auto compiled = filter::SqlFilter::compile(pop.expression); !compiled) {
      stream->answer(make_status(v2::ILLEGAL_FILTER_EXPRESSION, compiled.status().message()));
      return stream.get();
    }
    pop.expression_type = std::string(filter::kSql92ExpressionType);
  }
  const std::string& broker_name = request->message_queue().broker().name();
  const std::string renewing_client = renewed ? client_id_of(*context) : std::string();
  if (cached_route(pop.topic) != nullptr) {
    if (const auto group = cached_group_view(pop.consumer_group)) {
      pop_for(stream, broker_name, topic_resource, std::move(pop), group->fifo, renewing_client);
      return stream.get();
    }
  }
  // A cancelled call's request goes before the stream does: the worker takes copies.
  const bool queued = run_on_worker([this, stream, broker_name, topic_resource, renewing_client, pop = std::move(pop)]() mutable {
    if (auto route = route_for_send(pop.topic); !route) {
      return stream->answer(status_of_failure(route.status(), v2::TOPIC_NOT_FOUND));
    }
    const bool fifo = group_view(pop.consumer_group, pop.topic).fifo;
    pop_for(stream, broker_name, topic_resource, std::move(pop), fifo, renewing_client);
  });
  if (!queued) stream->answer(stopping_status());
  return stream.get();
}

void MessagingService::pop_for(std::shared_ptr<ReceiveStream> stream, const std::string& broker_name,
                               const v2::Resource& topic, client::PopMessageRequest pop, bool fifo,
                               const std::string& renewing_client) {
  const std::string address = cluster_->find_broker_master(broker_name);
  if (address.empty()) return stream->answer(make_status(v2::NOT_FOUND, "no master address of broker " + broker_name));
  pop.order = fifo;
  const auto timeout = std::chrono::milliseconds(pop.poll_ms) + settings_.send_timeout;
  cluster_->api().pop_message_async(
      address, broker_name, pop, timeout,
      [this, stream = std::move(stream), topic, renewing_client, group = pop.consumer_group,
       topic_name = pop.topic](client::Result<client::PopResult> popped) {
        if (!popped) return stream->answer(status_of_failure(popped.status(), v2::TOPIC_NOT_FOUND));
        if (!popped->found) return stream->answer(make_status(v2::MESSAGE_NOT_FOUND, "no new message"));
        std::vector<v2::ReceiveMessageResponse> responses(1 + popped->messages.size());
        *responses.front().mutable_status() = ok_status();
        for (std::size_t i = 0; i < popped->messages.size(); ++i) {
          *responses[i + 1].mutable_message() = to_grpc_message(popped->messages[i], topic);
        }
        if (renewing_client.empty()) return stream->answer(std::move(responses));
        // Kept invisible from now on, until the client acks, nacks or leaves. Registered before
        // the client can ack; taken out again (and made visible soon) when it never got them.
        std::vector<RenewedDelivery> deliveries;
        for (std::size_t i = 1; i < responses.size(); ++i) {
          const auto& system = responses[i].message().system_properties();
          auto receipt = protocol::decode_pop_receipt(system.receipt_handle());
          if (!receipt) continue;
          deliveries.push_back({.client_id = renewing_client, .group = group, .topic = topic_name,
                                .message_id = system.message_id(), .client_handle = system.receipt_handle(),
                                .handle = system.receipt_handle(), .visible_again_at_ms = receipt->visible_again_at(),
                                .received_at_ms = now_ms()});
          renewals_.add(deliveries.back());
        }
        stream->answer(std::move(responses), [this, deliveries = std::move(deliveries)](bool delivered) mutable {
          if (delivered) return;
          for (auto& delivery : deliveries) {
            if (auto current = renewals_.take(delivery.group, delivery.message_id, delivery.client_handle)) {
              delivery.handle = std::move(*current);
            }
          }
          release(std::move(deliveries));
        });
      });
}

std::string MessagingService::current_handle(const std::string& group, const std::string& message_id,
                                            const std::string& client_handle) {
  return renewals_.take(group, message_id, client_handle, settings_.send_timeout).value_or(client_handle);
}

void MessagingService::renew_receipts() {
  for (auto& delivery : renewals_.due(now_ms(), settings_.renew_ahead_time.count())) {
    if (!run_on_worker([this, delivery] { renew(delivery); })) renewals_.drop(delivery);
  }
}

void MessagingService::renew(const RenewedDelivery& delivery) {
  if (now_ms() - delivery.received_at_ms >= settings_.renew_max_time.count()) {
    // Consumed for too long: no longer held; it comes back when its invisible time ends.
    log()->warn("stopped renewing message {} of group {} for client {}: consumed for longer than renew_max_time",
                delivery.message_id, delivery.group, delivery.client_id);
    return renewals_.drop(delivery);
  }
  const auto receipt = protocol::decode_pop_receipt(delivery.handle);
  const std::string address = receipt ? cluster_->find_broker_master(receipt->broker_name) : std::string();
  if (address.empty()) {
    if (renewals_.failed(delivery)) log()->warn("gave up renewing message {}: no master of its broker", delivery.message_id);
    return;
  }
  const auto duration = renewal_duration(delivery.renewals);
  auto changed = cluster_->api().change_invisible_time(address, delivery.group, delivery.topic, delivery.handle,
                                                       duration.count(), settings_.send_timeout);
  if (changed) {
    const auto renewed = protocol::decode_pop_receipt(*changed);
    return renewals_.renewed(delivery, *changed, renewed ? renewed->visible_again_at() : now_ms() + duration.count());
  }
  // The broker refuses a handle whose delivery is over (acked, or delivered again): nothing to hold.
  if (changed.status().code() == plugin::v1::StatusCode::kInvalidArgument) return renewals_.drop(delivery);
  if (renewals_.failed(delivery)) {
    log()->warn("gave up renewing message {} of group {}: {}", delivery.message_id, delivery.group,
                changed.status().to_string());
  }
}

void MessagingService::release(std::vector<RenewedDelivery> deliveries) {
  if (deliveries.empty()) return;
  // Visible again soon rather than at the end of their invisible time (RocketMQ's
  // invisibleTimeMillisWhenClear), so that the group's other consumers get them.
  const bool queued = run_on_worker([this, deliveries = std::move(deliveries)] {
    for (const auto& delivery : deliveries) {
      const auto receipt = protocol::decode_pop_receipt(delivery.handle);
      const std::string address = receipt ? cluster_->find_broker_master(receipt->broker_name) : std::string();
      if (address.empty()) continue;
      (void)cluster_->api().change_invisible_time(address, delivery.group, delivery.topic, delivery.handle,
                                                  settings_.invisible_time_when_clear.count(), settings_.send_timeout);
    }
  });
  (void)queued;  // stopping: they come back when their invisible time ends
}

std::variant<MessagingService::LiveDelivery, v2::Status> MessagingService::live_delivery(const std::string& handle) const {
  auto receipt = protocol::decode_pop_receipt(handle);
  if (!receipt) return make_status(v2::INVALID_RECEIPT_HANDLE, receipt.status().message());
  if (receipt->visible_again_at() < now_ms()) return make_status(v2::INVALID_RECEIPT_HANDLE, "receipt handle is expired");
  std::string address = cluster_->find_broker_master(receipt->broker_name);
  if (address.empty()) return make_status(v2::INVALID_RECEIPT_HANDLE, "no master address of broker " + receipt->broker_name);
  return LiveDelivery{.receipt = std::move(receipt).value(), .broker_address = std::move(address)};
}

grpc::ServerUnaryReactor* MessagingService::AckMessage(grpc::CallbackServerContext* context,
                                                       const v2::AckMessageRequest* request,
                                                       v2::AckMessageResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  auto* reactor = context->DefaultReactor();
  if (request->entries_size() == 0) {
    finish(reactor, response, make_status(v2::BAD_REQUEST, "no entry to acknowledge"));
    return reactor;
  }
  // Each entry is acked on its own; the last answer to arrive sums them up.
  const auto summarize = [reactor, response] {
    bool mixed = false;
    for (const auto& entry : response->entries()) mixed = mixed || entry.status().code() != response->entries(0).status().code();
    finish(reactor, response, mixed ? make_status(v2::MULTIPLE_RESULTS, "MULTIPLE_RESULTS") : response->entries(0).status());
  };
  auto pending = std::make_shared<std::atomic<int>>(request->entries_size());
  for (const auto& entry : request->entries()) {
    auto* result = response->add_entries();
    result->set_message_id(entry.message_id());
    result->set_receipt_handle(entry.receipt_handle());
  }
  const std::string group = wire_name(request->group());
  const std::string topic = wire_name(request->topic());
  for (int i = 0; i < request->entries_size(); ++i) {
    auto* result = response->mutable_entries(i);
    // Entries are written by their own answers; the counter hands them all to the last one.
    const auto settle = [result, pending, summarize](v2::Status status) {
      *result->mutable_status() = std::move(status);
      if (pending->fetch_sub(1, std::memory_order_acq_rel) == 1) summarize();
    };
    const std::string handle = current_handle(group, request->entries(i).message_id(), request->entries(i).receipt_handle());
    auto delivery = live_delivery(handle);
    if (auto* refused = std::get_if<v2::Status>(&delivery)) {
      settle(std::move(*refused));
      continue;
    }
    cluster_->api().ack_message_async(std::get<LiveDelivery>(delivery).broker_address, group, topic, handle,
                                      settings_.send_timeout, [settle](plugin::v1::Status acked) {
                                        settle(acked ? ok_status() : status_of_failure(acked, v2::NOT_FOUND));
                                      });
  }
  return reactor;
}

grpc::ServerUnaryReactor* MessagingService::ChangeInvisibleDuration(grpc::CallbackServerContext* context,
                                                                    const v2::ChangeInvisibleDurationRequest* request,
                                                                    v2::ChangeInvisibleDurationResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response] { change_invisible_duration(*request, *response); });
}

grpc::ServerUnaryReactor* MessagingService::ForwardMessageToDeadLetterQueue(
    grpc::CallbackServerContext* context, const v2::ForwardMessageToDeadLetterQueueRequest* request,
    v2::ForwardMessageToDeadLetterQueueResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response] { forward_to_dead_letter_queue(*request, *response); });
}

grpc::ServerUnaryReactor* MessagingService::EndTransaction(grpc::CallbackServerContext* context,
                                                           const v2::EndTransactionRequest* request,
                                                           v2::EndTransactionResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response] { end_transaction(*request, *response); });
}

grpc::ServerUnaryReactor* MessagingService::NotifyClientTermination(grpc::CallbackServerContext* context,
                                                                    const v2::NotifyClientTerminationRequest* request,
                                                                    v2::NotifyClientTerminationResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, response, client_id = client_id_of(*context)] {
    notify_client_termination(client_id, *response);
  });
}

grpc::ServerUnaryReactor* MessagingService::RecallMessage(grpc::CallbackServerContext* context,
                                                          const v2::RecallMessageRequest* request,
                                                          v2::RecallMessageResponse* response) {
  if (auto* reactor = refused(context, *request, response)) return reactor;
  return answer_on_worker(context, [this, request, response] { recall_message(*request, *response); });
}

void MessagingService::notify_client_termination(const std::string& client_id,
                                                 v2::NotifyClientTerminationResponse& response) {
  release(renewals_.take_client(client_id));
  // A consumer leaves its group at once rather than when its heartbeats stop.
  std::optional<ConsumerClient> consumer;
  {
    std::lock_guard lock(consumers_mutex_);
    if (const auto it = consumers_.find(client_id); it != consumers_.end()) {
      consumer = std::move(it->second);
      consumers_.erase(it);
    }
  }
  if (consumer) {
    for (const auto& address : masters_of(consumer->subscriptions)) {
      (void)cluster_->api().unregister_client(address, client_id, "", consumer->group, settings_.send_timeout);
    }
  }
  *response.mutable_status() = ok_status();
}

v2::TelemetryCommand MessagingService::settings_reply(const v2::Settings& client_settings, const GroupView& group) const {
  v2::TelemetryCommand reply;
  v2::Settings& settings = *reply.mutable_settings();
  settings = client_settings;
  switch (client_settings.client_type()) {
    case v2::PRODUCER: break;
    case v2::SIMPLE_CONSUMER:
    case v2::PUSH_CONSUMER: {
      // Retries of a failed consumption wait 1 s, then twice as long each time up to a minute,
      // as RocketMQ's proxy tells FIFO consumers; the group decides how many deliveries.
      auto& backoff = *settings.mutable_backoff_policy();
      backoff.Clear();
      backoff.set_max_attempts(group.max_delivery_attempts);
      auto& exponential = *backoff.mutable_exponential_backoff();
      *exponential.mutable_initial() = duration_of(1000);
      *exponential.mutable_max() = duration_of(60'000);
      exponential.set_multiplier(2);
      auto& subscription = *settings.mutable_subscription();
      subscription.set_fifo(group.fifo);
      if (!subscription.has_receive_batch_size()) subscription.set_receive_batch_size(32);
      if (!subscription.has_long_polling_timeout()) {
        *subscription.mutable_long_polling_timeout() = duration_of(settings_.max_long_polling_time.count());
      }
      *reply.mutable_status() = ok_status();
      return reply;
    }
    default:
      reply.clear_settings();
      *reply.mutable_status() = make_status(v2::UNRECOGNIZED_CLIENT_TYPE, "mqproxy serves producers, simple and push consumers");
      return reply;
  }
  auto& backoff = *settings.mutable_backoff_policy();
  backoff.Clear();
  backoff.set_max_attempts(static_cast<std::int32_t>(settings_.producer_max_attempts));
  auto& exponential = *backoff.mutable_exponential_backoff();
  *exponential.mutable_initial() = duration_of(settings_.producer_backoff_initial.count());
  *exponential.mutable_max() = duration_of(settings_.producer_backoff_max.count());
  exponential.set_multiplier(static_cast<float>(settings_.producer_backoff_multiplier));
  auto& publishing = *settings.mutable_publishing();
  publishing.set_max_body_size(static_cast<std::int32_t>(settings_.max_message_size));
  publishing.set_validate_message_type(settings_.enable_topic_message_type_check);
  *reply.mutable_status() = ok_status();
  return reply;
}
void MessagingService::query_assignment(const v2::QueryAssignmentRequest& request, v2::QueryAssignmentResponse& response) {
  if (auto invalid = protocol::validate_group(request.group().name()); !invalid) {
    *response.mutable_status() = make_status(v2::ILLEGAL_CONSUMER_GROUP, invalid.message());
    return;
  }
  auto answer = fresh_route(request.topic(), request.endpoints());
  if (auto* refused = std::get_if<v2::Status>(&answer)) {
    *response.mutable_status() = std::move(*refused);
    return;
  }
  const auto& [topic, route, endpoints] = std::get<FreshRoute>(answer);
  const GroupView group = group_view(wire_name(request.group()), topic);
  // As RocketMQ's proxy assigns: a FIFO group each readable queue of each master, so a queue's
  // messages go to one receive at a time; any other group each master as a whole (queue -1).
  for (const auto& queue_data : route->route.queue_datas) {
    if (!protocol::perm::readable(queue_data.perm) || queue_data.read_queue_nums <= 0) continue;
    if (cluster_->find_broker_master(queue_data.broker_name).empty()) continue;
    v2::MessageQueue queue;
    *queue.mutable_topic() = request.topic();
    queue.set_permission(protocol::perm::writeable(queue_data.perm) ? v2::READ_WRITE : v2::READ);
    queue.mutable_broker()->set_name(queue_data.broker_name);
    queue.mutable_broker()->set_id(0);
    *queue.mutable_broker()->mutable_endpoints() = endpoints;
    for (std::int32_t id = group.fifo ? 0 : -1; id < (group.fifo ? queue_data.read_queue_nums : 0); ++id) {
      queue.set_id(id);
      *response.add_assignments()->mutable_message_queue() = queue;
    }
  }
  *response.mutable_status() =
      response.assignments_size() > 0 ? ok_status() : make_status(v2::FORBIDDEN, "no readable queue");
}
void MessagingService::change_invisible_duration(const v2::ChangeInvisibleDurationRequest& request,
                                                 v2::ChangeInvisibleDurationResponse& response) {
  const std::int64_t invisible_ms = ms_of(request.invisible_duration());
  if (invisible_ms <= 0 || invisible_ms > settings_.max_invisible_time.count()) {
    *response.mutable_status() = make_status(v2::ILLEGAL_INVISIBLE_TIME, "the invisible time must be positive and at most " +
                                                                              std::to_string(settings_.max_invisible_time.count()) + " ms");
    return;
  }
  const std::string handle = current_handle(wire_name(request.group()), request.message_id(), request.receipt_handle());
  auto delivery = live_delivery(handle);
  if (auto* refused = std::get_if<v2::Status>(&delivery)) {
    *response.mutable_status() = std::move(*refused);
    return;
  }
  auto changed = cluster_->api().change_invisible_time(std::get<LiveDelivery>(delivery).broker_address, wire_name(request.group()), wire_name(request.topic()),
                                                       handle, invisible_ms, settings_.send_timeout);
  if (!changed) {
    // The broker refuses a handle whose delivery is over (acked, or delivered again).
    *response.mutable_status() = changed.status().code() == plugin::v1::StatusCode::kInvalidArgument
                                      ? make_status(v2::INVALID_RECEIPT_HANDLE, changed.status().message())
                                      : status_of_failure(changed.status(), v2::NOT_FOUND);
    return;
  }
  response.set_receipt_handle(*changed);
  *response.mutable_status() = ok_status();
}
void MessagingService::forward_to_dead_letter_queue(const v2::ForwardMessageToDeadLetterQueueRequest& request,
                                                    v2::ForwardMessageToDeadLetterQueueResponse& response) {
  const auto answer = [&response](v2::Status status) { *response.mutable_status() = std::move(status); };
  const std::string group = wire_name(request.group());
  const std::string handle = current_handle(group, request.message_id(), request.receipt_handle());
  auto delivery = live_delivery(handle);
  if (auto* refused = std::get_if<v2::Status>(&delivery)) return answer(std::move(*refused));
  const auto& [receipt, address] = std::get<LiveDelivery>(delivery);
  const std::string topic = wire_name(request.topic());
  // The message as stored (its commit log offset), then CONSUMER_SEND_MSG_BACK with delay level
  // -1, which puts it in %DLQ%group, as RocketMQ's proxy forwards; then the delivery ends.
  client::PullMessageRequest pull;
  pull.consumer_group = group;
  pull.topic = topic;
  pull.queue_id = receipt.queue_id;
  pull.queue_offset = receipt.offset;
  pull.max_msg_nums = 1;
  pull.sys_flag = client::pull_sys_flag::kSubscription;
  auto pulled = cluster_->api().pull_message(address, pull, settings_.send_timeout);
  if (!pulled) return answer(status_of_failure(pulled.status(), v2::MESSAGE_NOT_FOUND));
  if (pulled->messages.empty() || pulled->messages.front().queue_offset != receipt.offset) {
    return answer(make_status(v2::MESSAGE_NOT_FOUND, "the message of this receipt handle is no longer stored"));
  }
  const client::MessageExt& message = pulled->messages.front();
  client::SendBackRequest back;
  back.commit_log_offset = message.commit_log_offset;
  back.group = group;
  back.delay_level = -1;
  back.origin_msg_id = request.message_id();
  back.origin_topic = topic;
  back.max_reconsume_times = request.max_delivery_attempts() > 0 ? request.max_delivery_attempts() - 1 : 16;
  if (auto sent = cluster_->api().consumer_send_message_back(address, back, settings_.send_timeout); !sent) {
    return answer(status_of_failure(sent, v2::NOT_FOUND));
  }
  if (auto acked = cluster_->api().ack_message(address, group, topic, handle, settings_.send_timeout); !acked) {
    return answer(status_of_failure(acked, v2::NOT_FOUND));
  }
  return answer(ok_status());
}
namespace {

// A broker's check of a half message, passed to a client publishing its topic as
// RecoverOrphanedTransactionCommand; the client answers with EndTransaction (source SERVER_CHECK).
class OrphanedTransactionForwarder final : public client::TransactionChecker {
 public:
  OrphanedTransactionForwarder(std::weak_ptr<client::ClientInstance> cluster, std::shared_ptr<TelemetrySessions> sessions)
      : cluster_(std::move(cluster)), sessions_(std::move(sessions)) {}

  void check_transaction_state(const std::string& broker_address, client::MessageExt half,
                               protocol::transaction::CheckTransactionStateHeader request) override {
    const auto instance = cluster_.lock();
    if (!instance) return;
    instance->execute([cluster_ref = cluster_, sessions = sessions_, broker_address, half = std::move(half), request] {
      const auto cluster = cluster_ref.lock();
      if (!cluster) return;
      std::string broker_name;
      for (const auto& [name, ids] : cluster->broker_addresses()) {
        for (const auto& [id, address] : ids) {
          if (address == broker_address) broker_name = name;
        }
      }
      const std::string topic(half.property(plugin::v1::property::kRealTopic).value_or(half.topic()));
      v2::Resource resource;
      resource.set_name(topic);
      v2::TelemetryCommand command;
      auto& recover = *command.mutable_recover_orphaned_transaction_command();
      *recover.mutable_message() = to_grpc_message(half, resource);
      recover.set_transaction_id(encode_transaction_id(
          {.broker_name = broker_name,
           .tran_state_table_offset = request.tran_state_table_offset,
           .commit_log_offset = request.commit_log_offset,
           .broker_transaction_id = request.transaction_id.empty() ? request.msg_id : request.transaction_id}));
      if (broker_name.empty() || !sessions->send_to_publisher(topic, command)) {
        // The broker asks again at its next check.
        log()->info("transaction check of {} from {}: no connected producer of the topic to ask", request.msg_id,
                    broker_address);
      }
    });
  }

 private:
  std::weak_ptr<client::ClientInstance> cluster_;
  std::shared_ptr<TelemetrySessions> sessions_;
};

}  // namespace
void MessagingService::take_transaction_checks(const std::vector<std::string>& topics) {
  bool added = false;
  for (const auto& topic : topics) {
    {
      std::lock_guard lock(checked_topics_mutex_);
      if (!checked_topics_.insert(topic).second) continue;
    }
    // Heartbeats reach the brokers of routes the client instance knows.
    (void)cluster_->update_route(topic);
    if (auto registered = cluster_->register_producer(topic);
        !registered && registered.code() != plugin::v1::StatusCode::kAlreadyExists) {
      log()->warn("transaction checks of topic {} will not reach this proxy: {}", topic, registered.to_string());
      continue;
    }
    (void)cluster_->set_transaction_checker(topic, std::make_shared<OrphanedTransactionForwarder>(cluster_, sessions_));
    added = true;
  }
  if (added) (void)cluster_->send_heartbeat_to_all_brokers();
}
void MessagingService::end_transaction(const v2::EndTransactionRequest& request, v2::EndTransactionResponse& response) {
  auto id = decode_transaction_id(request.transaction_id());
  if (!id) {
    *response.mutable_status() = make_status(v2::INVALID_TRANSACTION_ID, id.status().message());
    return;
  }
  const std::string address = cluster_->find_broker_master(id->broker_name);
  if (address.empty()) {
    *response.mutable_status() = make_status(v2::INVALID_TRANSACTION_ID, "no master address of broker " + id->broker_name);
    return;
  }
  using protocol::transaction::Resolution;
  const Resolution resolution = request.resolution() == v2::COMMIT     ? Resolution::kCommit
                                : request.resolution() == v2::ROLLBACK ? Resolution::kRollback
                                                                        : Resolution::kUnknown;
  const protocol::transaction::EndTransactionHeader header{
      .producer_group = wire_name(request.topic()),
      .tran_state_table_offset = id->tran_state_table_offset,
      .commit_log_offset = id->commit_log_offset,
      .resolution = resolution,
      .from_transaction_check = request.source() == v2::SOURCE_SERVER_CHECK,
      .msg_id = request.message_id(),
      .transaction_id = id->broker_transaction_id};
  if (auto ended = cluster_->api().end_transaction_oneway(address, header); !ended) {
    *response.mutable_status() = status_of_failure(ended, v2::NOT_FOUND);
    return;
  }
  *response.mutable_status() = ok_status();
}
std::set<std::string> MessagingService::masters_of(const std::vector<protocol::SubscriptionData>& topics) {
  std::set<std::string> masters;
  for (const auto& subscription : topics) {
    auto route = route_for_send(subscription.topic);
    if (!route) continue;
    for (const auto& broker : (*route)->route.broker_datas) {
      if (const auto master = broker.broker_addrs.find(0); master != broker.broker_addrs.end()) masters.insert(master->second);
    }
  }
  return masters;
}
void MessagingService::heartbeat_consumer(const std::string& client_id) {
  protocol::HeartbeatData heartbeat;
  heartbeat.client_id = client_id;
  {
    std::lock_guard lock(consumers_mutex_);
    const auto it = consumers_.find(client_id);
    if (it == consumers_.end()) return;  // its settings come first
    heartbeat.consumer_data_set.push_back(protocol::ConsumerData{.group_name = it->second.group,
                                                                 .consume_type = "CONSUME_POP",
                                                                 .message_model = "CLUSTERING",
                                                                 .consume_from_where = "CONSUME_FROM_LAST_OFFSET",
                                                                 .subscription_data_set = it->second.subscriptions,
                                                                 .unit_mode = false});
  }
  for (const auto& address : masters_of(heartbeat.consumer_data_set.front().subscription_data_set)) {
    if (auto sent = cluster_->api().heartbeat(address, heartbeat, settings_.send_timeout); !sent) {
      log()->debug("heartbeat of consumer {} to {}: {}", client_id, address, sent.to_string());
    }
  }
}
void MessagingService::recall_message(const v2::RecallMessageRequest& request, v2::RecallMessageResponse& response) {
  auto handle = protocol::timer::decode_recall_handle(request.recall_handle());
  if (!handle) {
    *response.mutable_status() = make_status(v2::BAD_REQUEST, handle.status().message());
    return;
  }
  const std::string topic = wire_name(request.topic());
  if (auto route = route_for_send(topic); !route) {
    *response.mutable_status() = status_of_failure(route.status(), v2::TOPIC_NOT_FOUND);
    return;
  }
  const std::string address = cluster_->find_broker_master(handle->broker_name);
  if (address.empty()) {
    *response.mutable_status() = make_status(v2::NOT_FOUND, "no master address of broker " + handle->broker_name);
    return;
  }
  auto recalled = cluster_->api().recall_message(address, topic, topic, request.recall_handle(), settings_.send_timeout);
  if (!recalled) {
    *response.mutable_status() = status_of_failure(recalled.status(), v2::MESSAGE_NOT_FOUND);
    return;
  }
  response.set_message_id(*recalled);
  *response.mutable_status() = ok_status();
}
}  // namespace mqkit::proxy
