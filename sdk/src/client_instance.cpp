#include "mqkit/client/client_instance.hpp"

#include <random>
#include <set>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "client_threads.hpp"
#include "pending_requests.hpp"
#include "plugin_loader.hpp"
#include "reply_receiver.hpp"
#include "request_dispatcher.hpp"
#include "mqkit/client/task_pool.hpp"
#include "wakeable_loop.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
using std::chrono::milliseconds;

namespace {

constexpr std::int64_t kMasterId = 0;
// First runs of the periodic tasks (RocketMQ: routes after 10 ms, heartbeat after 1 s,
// offsets after 10 s).
constexpr milliseconds kFirstRouteRefresh{10};
constexpr milliseconds kFirstHeartbeat{1000};
constexpr milliseconds kFirstOffsetPersist{10000};
constexpr milliseconds kRequestExpiryInterval{1000};
// How RocketMQ names the version mqkit announces on the wire (RemotingCommand::kWireVersion).
constexpr std::string_view kClientVersionDesc = "V4_9_4";

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

struct SharedInstances {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<ClientInstance>> by_client_id;
};

SharedInstances& shared_instances() {
  static auto* instances = new SharedInstances();  // outlives every instance, even at exit
  return *instances;
}

}  // namespace

// ---- Creation ------------------------------------------------------------------------------

Result<std::shared_ptr<ClientInstance>> ClientInstance::get_or_create(const ClientConfig& config) {
  auto& shared = shared_instances();
  const std::string id = config.client_id();
  std::lock_guard lock(shared.mutex);
  std::erase_if(shared.by_client_id, [](const auto& entry) { return entry.second.expired(); });
  if (auto existing = shared.by_client_id[id].lock()) return existing;
  MQKIT_ASSIGN_OR_RETURN(auto created, create(config));
  shared.by_client_id[id] = created;
  return created;
}

Result<std::shared_ptr<ClientInstance>> ClientInstance::create(const ClientConfig& config,
                                                               std::shared_ptr<v1::Transport> transport) {
  MQKIT_RETURN_IF_ERROR(config.validate());
  const bool owns = transport == nullptr;
  if (owns) {
    MQKIT_ASSIGN_OR_RETURN(transport, create_plugin_as<v1::Transport>(config.plugin_dirs, config.transport));
  }
  // Destroyed on a thread of its own (see client_threads.hpp), it would join that thread: the
  // reaper thread destroys it instead.
  return std::shared_ptr<ClientInstance>(new ClientInstance(config, std::move(transport), owns),
                                         [](ClientInstance* instance) {
                                           if (!on_client_thread()) return delete instance;
                                           destroy_on_reaper_thread([instance] { delete instance; });
                                         });
}

ClientInstance::ClientInstance(ClientConfig config, std::shared_ptr<v1::Transport> transport, bool owns_transport)
    : config_(std::move(config)),
      client_id_(config_.client_id()),
      dispatcher_(std::make_shared<RequestDispatcher>()),
      pending_requests_(std::make_shared<PendingRequests>()),
      transport_(std::move(transport)),
      owns_transport_(owns_transport),
      api_(std::make_unique<ClientApi>(transport_, dispatcher_, config_.namesrv_addresses, config_.api_timeout,
                                       config_.serialize_type, config_.credentials, config_.vip_channel_enabled)),
      async_executor_(std::make_unique<TaskPool>("client-async", 1)),
      rebalance_loop_(std::make_unique<WakeableLoop>("rebalance", config_.rebalance_interval,
                                                     [this] { rebalance_consumers(); })) {
  dispatcher_->register_processor(protocol::request_code::kNotifyConsumerIdsChanged,
                                  [this](const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand request) {
                                    log()->info("{}: consumer group {} changed (told by {})", client_id_,
                                                request.ext_fields.get("consumerGroup").value_or("?"),
                                                channel->remote_address());
                                    rebalance_now();
                                  });
  dispatcher_->register_processor(protocol::request_code::kGetConsumerRunningInfo,
                                  [this](const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand request) {
                                    answer_running_info(channel, request);
                                  });
  dispatcher_->register_processor(protocol::request_code::kGetConsumerStatusFromClient,
                                  [this](const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand request) {
                                    answer_consumer_status(channel, request);
                                  });
  dispatcher_->register_processor(protocol::request_code::kCheckTransactionState,
                                  [this](const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand request) {
                                    dispatch_transaction_check(channel, request);
                                  });
  dispatcher_->register_processor(protocol::request_code::kPushReplyMessageToClient,
                                  reply_receiver(pending_requests_, client_id_));
  log()->info("client instance {} created, name servers {}", client_id_, config_.namesrv_addresses.size());
}

ClientInstance::~ClientInstance() {
  // Processors reach into this object: no new ones may start.
  dispatcher_->unregister_processor(protocol::request_code::kNotifyConsumerIdsChanged);
  dispatcher_->unregister_processor(protocol::request_code::kGetConsumerRunningInfo);
  dispatcher_->unregister_processor(protocol::request_code::kGetConsumerStatusFromClient);
  dispatcher_->unregister_processor(protocol::request_code::kCheckTransactionState);
  dispatcher_->unregister_processor(protocol::request_code::kPushReplyMessageToClient);
  pending_requests_->fail_all(Status::unavailable("client instance " + client_id_ + " shut down before the reply came"));
  periodic_.stop();
  rebalance_loop_->stop();
  async_executor_->join();
  if (owns_transport_) transport_->shutdown();
  log()->info("client instance {} shut down", client_id_);
}

Result<std::shared_ptr<void>> ClientInstance::make_plugin(v1::Category category, const PluginChoice& choice) const {
  return create_plugin(config_.plugin_dirs, category, choice);
}

Status ClientInstance::start() {
  std::lock_guard lock(start_mutex_);
  if (started_) return Status::ok();
  periodic_.add("update-routes", kFirstRouteRefresh, config_.poll_name_server_interval, [this] { refresh_routes(); });
  periodic_.add("heartbeat", kFirstHeartbeat, config_.heartbeat_broker_interval,
                [this] { (void)send_heartbeat_to_all_brokers(); });
  periodic_.add("persist-offsets", kFirstOffsetPersist, config_.persist_consumer_offset_interval,
                [this] { persist_consumer_offsets(); });
  // RocketMQ scans for expired requests every second too.
  periodic_.add("expire-requests", kRequestExpiryInterval, kRequestExpiryInterval,
                [this] { (void)pending_requests_->expire(std::chrono::steady_clock::now()); });
  periodic_.start("ClientSchedule");
  rebalance_loop_->start();
  started_ = true;
  return Status::ok();
}

// ---- Routes --------------------------------------------------------------------------------

std::shared_ptr<const TopicRouteInfo> ClientInstance::cached_route(std::string_view topic) const {
  std::shared_lock lock(routes_mutex_);
  const auto it = routes_.find(topic);
  return it == routes_.end() ? nullptr : it->second;
}

Status ClientInstance::update_route(std::string_view topic) {
  std::lock_guard lock(fetch_mutex_);
  auto fetched = api_->get_topic_route(topic);
  if (!fetched) return fetched.status().with_context("route of " + std::string(topic));
  store_route(topic, std::move(fetched).value(), false);
  return Status::ok();
}

Status ClientInstance::update_route_from_default(std::string_view topic, const DefaultTopicRoute& fallback) {
  std::lock_guard lock(fetch_mutex_);
  if (cached_route(topic)) return Status::ok();  // someone found the real one meanwhile
  auto fetched = api_->get_topic_route(fallback.create_topic_key);
  if (!fetched) return fetched.status().with_context("route of " + fallback.create_topic_key);
  store_route(topic, route_from_default_topic(std::move(fetched).value(), fallback.default_topic_queue_nums), true);
  return Status::ok();
}

void ClientInstance::store_route(std::string_view topic, protocol::TopicRouteData route, bool from_default_topic) {
  auto info = std::make_shared<const TopicRouteInfo>(make_route_info(topic, std::move(route), from_default_topic));
  std::unique_lock lock(routes_mutex_);
  auto& slot = routes_[std::string(topic)];
  if (!slot || !same_route(slot->route, info->route)) {
    log()->info("{}: route of {} now has {} publish and {} subscribe queues{}", client_id_, topic,
                info->publish.queues.size(), info->subscribe_queues.size(),
                from_default_topic ? " (from the create-topic key's route)" : "");
  }
  slot = info;
  // Addresses of brokers no route mentions any more are dropped (RocketMQ's cleanOfflineBroker).
  brokers_.clear();
  for (const auto& [name, cached] : routes_) {
    for (const auto& broker : cached->route.broker_datas) brokers_[broker.broker_name] = broker.broker_addrs;
  }
  lock.unlock();
  std::lock_guard observers_lock(observers_mutex_);
  for (const auto& [id, observer] : route_observers_) observer(topic, *info);
}

std::uint64_t ClientInstance::observe_routes(RouteObserver observer) {
  std::lock_guard lock(observers_mutex_);
  const std::uint64_t id = next_observer_id_++;
  route_observers_.emplace(id, std::move(observer));
  return id;
}

void ClientInstance::stop_observing_routes(std::uint64_t id) {
  std::lock_guard lock(observers_mutex_);
  route_observers_.erase(id);
}

Result<std::shared_ptr<const TopicRouteInfo>> ClientInstance::route(std::string_view topic) {
  if (auto cached = cached_route(topic)) return cached;
  MQKIT_RETURN_IF_ERROR(update_route(topic));
  if (auto cached = cached_route(topic)) return cached;
  return Status::not_found("No route info of this topic: " + std::string(topic));
}

Result<std::shared_ptr<const TopicRouteInfo>> ClientInstance::publish_route(std::string_view topic,
                                                                             const DefaultTopicRoute& fallback) {
  if (auto cached = cached_route(topic); cached && !cached->publish.queues.empty()) return cached;
  const Status fetched = update_route(topic);
  if (auto cached = cached_route(topic)) return cached;
  const Status from_default = update_route_from_default(topic, fallback);
  if (auto cached = cached_route(topic)) return cached;
  return Status::not_found("No route info of this topic: " + std::string(topic) + " (" + fetched.message() + "; " +
                           from_default.message() + ")");
}

std::string ClientInstance::find_broker_master(std::string_view broker_name) const {
  std::shared_lock lock(routes_mutex_);
  const auto broker = brokers_.find(broker_name);
  if (broker == brokers_.end()) return {};
  const auto master = broker->second.find(kMasterId);
  return master == broker->second.end() ? std::string() : master->second;
}

std::optional<BrokerAddress> ClientInstance::find_broker(std::string_view broker_name, std::int64_t broker_id,
                                                         bool only_this_broker) const {
  std::shared_lock lock(routes_mutex_);
  const auto broker = brokers_.find(broker_name);
  if (broker == brokers_.end() || broker->second.empty()) return std::nullopt;
  if (const auto exact = broker->second.find(broker_id); exact != broker->second.end()) {
    return BrokerAddress{exact->second, exact->first != kMasterId};
  }
  // A slave asked for and not there: RocketMQ tries the next id, then (unless only_this_broker)
  // the lowest id known, the master when it is up.
  if (broker_id != kMasterId) {
    if (const auto next = broker->second.find(broker_id + 1); next != broker->second.end()) {
      return BrokerAddress{next->second, true};
    }
  }
  if (only_this_broker) return std::nullopt;
  const auto& [id, address] = *broker->second.begin();
  return BrokerAddress{address, id != kMasterId};
}

std::string ClientInstance::find_broker_address_of_topic(std::string_view topic) const {
  const auto info = cached_route(topic);
  if (!info || info->route.broker_datas.empty()) return {};
  thread_local std::minstd_rand random(std::random_device{}());
  const auto& brokers = info->route.broker_datas;
  const auto& addrs = brokers[random() % brokers.size()].broker_addrs;
  if (addrs.empty()) return {};
  const auto master = addrs.find(kMasterId);
  return master != addrs.end() ? master->second : addrs.begin()->second;
}

std::map<std::string, std::map<std::int64_t, std::string>> ClientInstance::broker_addresses() const {
  std::shared_lock lock(routes_mutex_);
  return {brokers_.begin(), brokers_.end()};
}

void ClientInstance::refresh_routes() {
  std::set<std::string> topics;
  {
    std::shared_lock lock(routes_mutex_);
    for (const auto& [topic, info] : routes_) topics.insert(topic);
  }
  for (const auto& consumer : consumers()) {
    for (auto& topic : consumer->subscribed_topics()) topics.insert(std::move(topic));
  }
  for (const auto& topic : topics) {
    if (Status s = update_route(topic); !s) log()->debug("{}: refreshing {}: {}", client_id_, topic, s.to_string());
  }
}

// ---- Members -------------------------------------------------------------------------------

Status ClientInstance::register_producer(std::string_view group) {
  std::lock_guard lock(members_mutex_);
  if (!producer_groups_.emplace(std::string(group), nullptr).second) {
    return Status::already_exists("the producer group " + std::string(group) + " is already registered in client " +
                                  client_id_ + "; use another group or another instance name");
  }
  return Status::ok();
}

void ClientInstance::unregister_producer(std::string_view group) {
  {
    std::lock_guard lock(members_mutex_);
    const auto it = producer_groups_.find(group);
    if (it == producer_groups_.end()) return;
    producer_groups_.erase(it);
  }
  unregister_client(group, {});
}

Status ClientInstance::register_consumer(std::shared_ptr<ConsumerMember> consumer) {
  const std::string group = consumer->group();
  std::lock_guard lock(members_mutex_);
  if (!consumers_.emplace(group, std::move(consumer)).second) {
    return Status::already_exists("the consumer group " + group + " is already registered in client " + client_id_ +
                                  "; use another group or another instance name");
  }
  return Status::ok();
}

void ClientInstance::unregister_consumer(std::string_view group) {
  {
    std::lock_guard lock(members_mutex_);
    const auto it = consumers_.find(group);
    if (it == consumers_.end()) return;
    consumers_.erase(it);
  }
  unregister_client({}, group);
}

Status ClientInstance::set_transaction_checker(std::string_view group, std::shared_ptr<TransactionChecker> checker) {
  std::lock_guard lock(members_mutex_);
  const auto it = producer_groups_.find(group);
  if (it == producer_groups_.end()) {
    return Status::not_found("the producer group " + std::string(group) + " is not registered in client " +
                             client_id_ + " (register_producer first)");
  }
  it->second = std::move(checker);
  return Status::ok();
}

std::vector<std::string> ClientInstance::producer_groups() const {
  std::lock_guard lock(members_mutex_);
  std::vector<std::string> groups;
  groups.reserve(producer_groups_.size());
  for (const auto& [group, checker] : producer_groups_) groups.push_back(group);
  return groups;
}

std::vector<std::shared_ptr<ConsumerMember>> ClientInstance::consumers() const {
  std::lock_guard lock(members_mutex_);
  std::vector<std::shared_ptr<ConsumerMember>> out;
  for (const auto& [group, consumer] : consumers_) out.push_back(consumer);
  return out;
}

void ClientInstance::unregister_client(std::string_view producer_group, std::string_view consumer_group) {
  std::lock_guard lock(heartbeat_mutex_);  // not interleaved with a heartbeat re-registering it
  for (const auto& [name, addresses] : broker_addresses()) {
    for (const auto& [id, address] : addresses) {
      if (Status s = api_->unregister_client(address, client_id_, producer_group, consumer_group); !s) {
        log()->warn("{}: unregistering from {} ({}): {}", client_id_, name, address, s.to_string());
      }
    }
  }
}

Status ClientInstance::send_heartbeat_to_all_brokers() {
  std::lock_guard lock(heartbeat_mutex_);
  protocol::HeartbeatData data;
  data.client_id = client_id_;
  data.producer_groups = producer_groups();
  for (const auto& consumer : consumers()) data.consumer_data_set.push_back(consumer->consumer_data());
  if (data.producer_groups.empty() && data.consumer_data_set.empty()) return Status::ok();
  const bool masters_only = data.consumer_data_set.empty();
  Status first;
  for (const auto& [name, addresses] : broker_addresses()) {
    for (const auto& [id, address] : addresses) {
      if (masters_only && id != kMasterId) continue;
      if (Status s = api_->heartbeat(address, data); !s) {
        log()->warn("{}: heartbeat to {} ({}): {}", client_id_, name, address, s.to_string());
        if (first.is_ok()) first = s;
      }
    }
  }
  return first;
}

void ClientInstance::persist_consumer_offsets() {
  for (const auto& consumer : consumers()) consumer->persist_offsets();
}

void ClientInstance::rebalance_consumers() {
  for (const auto& consumer : consumers()) consumer->rebalance();
}

void ClientInstance::rebalance_now() { rebalance_loop_->wake(); }

void ClientInstance::rebalance_within(std::chrono::milliseconds delay) { rebalance_loop_->wake_after(delay); }

void ClientInstance::answer_running_info(const std::shared_ptr<v1::Channel>& channel,
                                         const v1::RemotingCommand& request) const {
  using protocol::ConsumerRunningInfo;
  const std::string group(request.ext_fields.get("consumerGroup").value_or(""));
  const std::shared_ptr<ConsumerMember> consumer = find_consumer(group);
  if (!consumer) {
    (void)channel->send(v1::RemotingCommand::response_to(
        request, protocol::response_code::kSystemError, "The Consumer Group <" + group + "> not exist in this consumer"));
    return;
  }
  // jstackEnable asks for a Java thread dump; a C++ process has none to give, so jstack stays empty.
  ConsumerRunningInfo info = consumer->running_info();
  std::string namesrv;
  for (const auto& address : api_->namesrv_addresses()) namesrv += address + ";";
  info.properties[std::string(ConsumerRunningInfo::kPropNamesrvAddr)] = namesrv;
  info.properties[std::string(ConsumerRunningInfo::kPropConsumeType)] = consumer->consumer_data().consume_type;
  info.properties[std::string(ConsumerRunningInfo::kPropClientVersion)] = std::string(kClientVersionDesc);
  auto response = v1::RemotingCommand::response_to(request, protocol::response_code::kSuccess);
  protocol::set_body(response, protocol::encode(info));
  if (Status sent = channel->send(std::move(response)); !sent) {
    log()->warn("{}: answering GET_CONSUMER_RUNNING_INFO of {} to {}: {}", client_id_, group,
                channel->remote_address(), sent.to_string());
  }
}

void ClientInstance::answer_consumer_status(const std::shared_ptr<v1::Channel>& channel,
                                            const v1::RemotingCommand& request) const {
  const std::string topic(request.ext_fields.get("topic").value_or(""));
  const std::string group(request.ext_fields.get("group").value_or(""));
  protocol::GetConsumerStatusBody body;
  // A group not consuming here has no offsets: RocketMQ answers an empty table too.
  if (const auto consumer = find_consumer(group)) body.message_queue_table = consumer->offset_table(topic);
  auto response = v1::RemotingCommand::response_to(request, protocol::response_code::kSuccess);
  protocol::set_body(response, protocol::encode(body));
  if (Status sent = channel->send(std::move(response)); !sent) {
    log()->warn("{}: answering GET_CONSUMER_STATUS_FROM_CLIENT of {} to {}: {}", client_id_, group,
                channel->remote_address(), sent.to_string());
  }
}

std::shared_ptr<ConsumerMember> ClientInstance::find_consumer(std::string_view group) const {
  std::lock_guard lock(members_mutex_);
  const auto it = consumers_.find(group);
  return it == consumers_.end() ? nullptr : it->second;
}

// Oneway: whatever goes wrong is logged, never answered; the broker checks again later.
void ClientInstance::dispatch_transaction_check(const std::shared_ptr<v1::Channel>& channel,
                                                const v1::RemotingCommand& request) const {
  const std::string broker = channel->remote_address();
  auto header = protocol::transaction::read_check_transaction_state_header(request.ext_fields);
  if (!header) {
    log()->warn("{}: CHECK_TRANSACTION_STATE from {} ignored: {}", client_id_, broker, header.status().to_string());
    return;
  }
  auto messages = decode_messages(request.body);
  if (!messages || messages->size() != 1) {
    log()->warn("{}: CHECK_TRANSACTION_STATE from {} (commit log offset {}) ignored: its body is not one stored "
                "message ({})",
                client_id_, broker, header->commit_log_offset,
                messages ? std::to_string(messages->size()) + " messages" : messages.status().to_string());
    return;
  }
  MessageExt& half = messages->front();
  const std::string group(half.property(v1::property::kProducerGroup).value_or(""));
  if (group.empty()) {
    log()->warn("{}: CHECK_TRANSACTION_STATE from {} for message {} ignored: the half message has no {} property",
                client_id_, broker, half.msg_id(), v1::property::kProducerGroup);
    return;
  }
  std::shared_ptr<TransactionChecker> checker;
  {
    std::lock_guard lock(members_mutex_);
    if (const auto it = producer_groups_.find(group); it != producer_groups_.end()) checker = it->second;
  }
  if (!checker) {
    log()->warn("{}: CHECK_TRANSACTION_STATE from {} for message {} of producer group '{}' ignored: no transaction "
                "producer of that group runs in this client",
                client_id_, broker, half.msg_id(), group);
    return;
  }
  checker->check_transaction_state(broker, std::move(half), std::move(header).value());
}

void ClientInstance::register_request_processor(std::int32_t code, RequestProcessor processor) {
  dispatcher_->register_processor(code, std::move(processor));
}

bool ClientInstance::execute(std::function<void()> task) { return async_executor_->post(std::move(task)); }

}  // namespace mqkit::client
