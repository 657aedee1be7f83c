#include "testing/fake_transport.hpp"

#include <algorithm>
#include <atomic>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::client::testing {

namespace v1 = plugin::v1;
namespace rq = protocol::request_code;
namespace rc = protocol::response_code;

namespace {

class FakeChannel final : public v1::Channel {
 public:
  FakeChannel(std::weak_ptr<FakeTransport> transport, std::string address)
      : transport_(std::move(transport)), address_(std::move(address)) {
    static std::atomic<std::uint64_t> next_id{1};
    id_ = next_id.fetch_add(1);
  }
  std::uint64_t id() const noexcept override { return id_; }
  std::string remote_address() const noexcept override { return address_; }
  std::string local_address() const noexcept override { return "10.0.0.1:50000"; }
  bool is_open() const noexcept override { return true; }
  v1::Status send(RemotingCommand command) noexcept override {
    auto transport = transport_.lock();
    if (!transport) return v1::Status::unavailable("fake transport gone");
    return transport->channel_send(address_, std::move(command));
  }
  void invoke(RemotingCommand request, std::chrono::milliseconds, v1::ResponseCallback done) noexcept override {
    auto transport = transport_.lock();
    if (!transport) return done(v1::Status::unavailable("fake transport gone"));
    transport->channel_invoke(address_, std::move(request), std::move(done));
  }
  void close() noexcept override {}

 private:
  std::weak_ptr<FakeTransport> transport_;
  std::string address_;
  std::uint64_t id_ = 0;
};

void flatten(RemotingCommand& command) {
  for (const auto& slice : command.body_slices) command.body.insert(command.body.end(), slice.bytes.begin(), slice.bytes.end());
  command.body_slices.clear();
}

// The sends the SDK makes, which the fake brokers store and answer with a send result.
bool is_message_send(std::int32_t code) {
  return code == rq::kSendMessageV2 || code == rq::kSendBatchMessage || code == rq::kSendReplyMessageV2;
}

RemotingCommand with_code(std::int32_t code, std::string remark = {}) {
  RemotingCommand response;
  response.code = code;
  if (!remark.empty()) response.remark = std::move(remark);
  return response;
}

}  // namespace

// ---- FakeTransport -------------------------------------------------------------------------

std::vector<FakeTransport::Call> FakeTransport::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::vector<FakeTransport::Call> FakeTransport::calls_with_code(std::int32_t code) const {
  std::vector<Call> out;
  for (auto& call : calls()) {
    if (call.request.code == code) out.push_back(std::move(call));
  }
  return out;
}

Result<protocol::ConsumerData> FakeTransport::last_consumer_heartbeat() const {
  const auto heartbeats = calls_with_code(protocol::request_code::kHeartBeat);
  if (heartbeats.empty()) return Status::not_found("no heartbeat was sent");
  MQKIT_ASSIGN_OR_RETURN(protocol::HeartbeatData data,
                         protocol::decode_heartbeat(protocol::body_text(heartbeats.back().request)));
  if (data.consumer_data_set.size() != 1) {
    return Status::invalid_argument("the last heartbeat names " + std::to_string(data.consumer_data_set.size()) +
                                    " consumers, not one");
  }
  return std::move(data.consumer_data_set.front());
}

void FakeTransport::set_unreachable(const std::string& address, bool unreachable) {
  std::lock_guard lock(mutex_);
  if (unreachable) {
    unreachable_.insert(address);
  } else {
    unreachable_.erase(address);
  }
}

void FakeTransport::hold_responses(bool hold) {
  std::lock_guard lock(mutex_);
  hold_ = hold;
}

std::size_t FakeTransport::held_count() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

void FakeTransport::release_held(std::size_t count) {
  std::vector<Held> released;
  {
    std::lock_guard lock(mutex_);
    while (count-- > 0 && !held_.empty()) {
      released.push_back(std::move(held_.front()));
      held_.pop_front();
    }
  }
  for (auto& held : released) held.done(answer(held.address, held.request));
}

void FakeTransport::deliver_request(const std::string& address, RemotingCommand request) {
  std::shared_ptr<v1::RequestHandler> handler;
  {
    std::lock_guard lock(mutex_);
    if (auto it = handlers_.find(address); it != handlers_.end()) handler = it->second;
  }
  if (handler) handler->on_request(std::make_shared<FakeChannel>(weak_from_this(), address), std::move(request));
}

std::vector<RemotingCommand> FakeTransport::client_responses() const {
  std::lock_guard lock(mutex_);
  return client_responses_;
}

Result<std::uint16_t> FakeTransport::listen(const v1::ListenOptions&, std::shared_ptr<v1::RequestHandler>) noexcept {
  return v1::Status::not_supported("the fake transport does not listen");
}

Result<std::shared_ptr<v1::Channel>> FakeTransport::connect(std::string_view address,
                                                            std::shared_ptr<v1::RequestHandler> handler) noexcept {
  std::lock_guard lock(mutex_);
  const std::string key(address);
  if (unreachable_.contains(key)) return v1::Status::unavailable("connecting to " + key + ": connection refused (fake)");
  if (handler) handlers_[key] = std::move(handler);
  return std::shared_ptr<v1::Channel>(std::make_shared<FakeChannel>(weak_from_this(), key));
}

void FakeTransport::invoke(std::string_view address, RemotingCommand request, std::chrono::milliseconds timeout,
                           v1::ResponseCallback done) noexcept {
  auto channel = connect(address, nullptr);
  if (!channel) return done(channel.status());
  (*channel)->invoke(std::move(request), timeout, std::move(done));
}

void FakeTransport::shutdown() noexcept {
  std::deque<Held> failed;
  {
    std::lock_guard lock(mutex_);
    failed.swap(held_);
  }
  for (auto& held : failed) held.done(v1::Status::unavailable("fake transport shut down"));
}

Result<RemotingCommand> FakeTransport::answer(const std::string& address, RemotingCommand& request) {
  auto response = responder_(address, request);
  if (response) {
    response->opaque = request.opaque;
    response->flag |= RemotingCommand::kResponseFlag;
  }
  return response;
}

void FakeTransport::channel_invoke(const std::string& address, RemotingCommand request, v1::ResponseCallback done) {
  flatten(request);
  {
    std::lock_guard lock(mutex_);
    request.opaque = next_opaque_++;
    calls_.push_back(Call{address, request});
    if (hold_ && is_message_send(request.code)) {
      held_.push_back(Held{address, std::move(request), std::move(done)});
      return;
    }
  }
  done(answer(address, request));
}

v1::Status FakeTransport::channel_send(const std::string& address, RemotingCommand command) {
  flatten(command);
  if (command.is_response()) {
    std::lock_guard lock(mutex_);
    client_responses_.push_back(std::move(command));
    return v1::Status::ok();
  }
  {
    std::lock_guard lock(mutex_);
    calls_.push_back(Call{address, command});
  }
  (void)answer(address, command);  // one-way: the answer is dropped
  return v1::Status::ok();
}

// ---- FakeCluster ---------------------------------------------------------------------------

FakeCluster::FakeCluster()
    : transport_(std::make_shared<FakeTransport>(
          [this](const std::string& address, const RemotingCommand& request) { return respond(address, request); })) {}

void FakeCluster::add_broker(const std::string& name, const std::string& address) {
  std::lock_guard lock(mutex_);
  brokers_[name].address = address;
}

void FakeCluster::add_slave(const std::string& name, std::int64_t broker_id, const std::string& address) {
  std::lock_guard lock(mutex_);
  brokers_[name].slaves[broker_id] = address;
}

void FakeCluster::add_topic(const std::string& topic, const std::string& broker, int queues, int perm) {
  std::lock_guard lock(mutex_);
  topics_.emplace(topic, TopicQueues{broker, queues, perm});
}

void FakeCluster::remove_topic(const std::string& topic, const std::string& broker) {
  std::lock_guard lock(mutex_);
  std::erase_if(topics_, [&](const auto& entry) { return entry.first == topic && entry.second.broker == broker; });
}

void FakeCluster::set_send_code(const std::string& broker, std::int32_t code) {
  std::lock_guard lock(mutex_);
  brokers_[broker].send_code = code;
}

void FakeCluster::set_unreachable(const std::string& broker, bool unreachable) {
  transport_->set_unreachable(address_of(broker), unreachable);
}

std::string FakeCluster::address_of(const std::string& broker) const {
  std::lock_guard lock(mutex_);
  const auto it = brokers_.find(broker);
  return it == brokers_.end() ? std::string() : it->second.address;
}

std::vector<FakeCluster::StoredSend> FakeCluster::stored() const {
  std::lock_guard lock(mutex_);
  return stored_;
}

std::vector<std::string> FakeCluster::send_attempts() const {
  std::lock_guard lock(mutex_);
  return send_attempts_;
}

void FakeCluster::set_broker_handler(std::int32_t code, BrokerHandler handler) {
  std::lock_guard lock(mutex_);
  broker_handlers_[code] = std::move(handler);
}

Result<RemotingCommand> FakeCluster::respond(const std::string& address, const RemotingCommand& request) {
  std::lock_guard lock(mutex_);
  if (address == kNamesrv) {
    if (request.code == rq::kGetRouteInfoByTopic) return route_response(request);
    return with_code(rc::kSuccess);
  }
  for (const auto& [name, broker] : brokers_) {
    const bool a_slave = std::ranges::any_of(broker.slaves, [&](const auto& slave) { return slave.second == address; });
    if (broker.address != address && !a_slave) continue;
    if (const auto handler = broker_handlers_.find(request.code); handler != broker_handlers_.end()) {
      return handler->second(name, request);
    }
    if (is_message_send(request.code)) return send_response(name, request);
    return with_code(rc::kSuccess);
  }
  return v1::Status::unavailable("nothing listens on " + address + " (fake)");
}

RemotingCommand FakeCluster::route_response(const RemotingCommand& request) {
  const std::string topic(request.ext_fields.get("topic").value_or(""));
  protocol::TopicRouteData route;
  std::set<std::string> brokers;
  for (auto [it, end] = topics_.equal_range(topic); it != end; ++it) {
    route.queue_datas.push_back(
        protocol::QueueData{it->second.broker, it->second.queues, it->second.queues, it->second.perm, 0});
    brokers.insert(it->second.broker);
  }
  if (route.queue_datas.empty()) {
    return with_code(rc::kTopicNotExist, "No topic route info in name server for the topic: " + topic);
  }
  for (const auto& name : brokers) {
    protocol::BrokerData data;
    data.cluster = "DefaultCluster";
    data.broker_name = name;
    if (!brokers_[name].address.empty()) data.broker_addrs[0] = brokers_[name].address;  // else: master down
    for (const auto& [id, address] : brokers_[name].slaves) data.broker_addrs[id] = address;
    route.broker_datas.push_back(std::move(data));
  }
  auto response = with_code(rc::kSuccess);
  protocol::set_body(response, protocol::encode(route));
  return response;
}

RemotingCommand FakeCluster::send_response(const std::string& broker_name, const RemotingCommand& request) {
  Broker& broker = brokers_[broker_name];
  send_attempts_.push_back(broker_name);
  if (broker.send_code != rc::kSuccess && broker.send_code != rc::kFlushDiskTimeout &&
      broker.send_code != rc::kFlushSlaveTimeout && broker.send_code != rc::kSlaveNotAvailable) {
    return with_code(broker.send_code, "fake failure of " + broker_name);
  }
  const std::string topic(request.ext_fields.get("b").value_or(""));
  const auto queue_id = static_cast<std::int32_t>(request.ext_fields.get_int("e").value_or(0));
  std::int64_t count = 1;
  if (request.code == rq::kSendBatchMessage) {
    auto items = v1::decode_batch(request.body);
    count = items ? static_cast<std::int64_t>(items->size()) : 1;
  }
  std::int64_t& next = broker.next_offset[{topic, queue_id}];
  const std::int64_t offset = next;
  next += count;
  stored_.push_back(StoredSend{broker_name, topic, queue_id, request});
  auto response = with_code(broker.send_code);
  v1::HostAddress host;
  host.ip = {10, 0, 0, static_cast<std::uint8_t>(brokers_.size())};
  host.port = 10911;
  // As a broker: one offset id per message of a batch, comma-joined (here the queue offsets
  // stand in for commit offsets).
  std::string ids;
  for (std::int64_t i = 0; i < count; ++i) ids += (i ? "," : "") + v1::make_offset_message_id(host, offset + i);
  response.ext_fields.set("msgId", std::move(ids));
  response.ext_fields.set("queueId", static_cast<std::int64_t>(queue_id));
  response.ext_fields.set("queueOffset", offset);
  const auto sys_flag = request.ext_fields.get_int("f").value_or(0);
  if ((sys_flag & v1::sys_flag::kTransactionMask) == v1::sys_flag::kTransactionPrepared) {
    // A broker may name the transaction of a half message; the producer passes it on.
    response.ext_fields.set("transactionId", "tx-" + broker_name + "-" + std::to_string(offset));
  }
  return response;
}

}  // namespace mqkit::client::testing
