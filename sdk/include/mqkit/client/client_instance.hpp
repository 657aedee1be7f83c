// ClientInstance: what all producers and consumers of one client id share (RocketMQ's
// MQClientInstance): the transport plugin object and its connections, the ClientApi, the route
// cache (topic → route, publish queues, subscribe queues, broker addresses), the periodic tasks
// (route refresh, heartbeats, consumers' offset persistence and rebalancing) and the table of
// processors for requests brokers send to the client.
//
// Consumers plug in through ConsumerMember and register_request_processor; producers through
// register_producer (and pending_requests for request-reply). Several producers/consumers with the same client id share one instance
// (get_or_create); the first one's ClientConfig is the one used.
//
// Threads: every public method is thread-safe. The instance runs
//   - one periodic thread: route refresh, heartbeats, ConsumerMember::persist_offsets;
//   - one rebalance thread: ConsumerMember::rebalance, every rebalance_interval or when woken;
//   - one async thread ("client-async", execute()): work that must leave transport threads;
//   - the transport's threads: response callbacks, and request processors (worker threads).
// ConsumerMember callbacks and request processors must not block for long.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/client_api.hpp"
#include "mqkit/client/client_config.hpp"
#include "mqkit/client/request_processor.hpp"
#include "mqkit/client/topic_route.hpp"
#include "mqkit/kernel/periodic_tasks.hpp"
#include "mqkit/plugin/v1/define_plugin.hpp"

namespace mqkit::client {

class PendingRequests;
class RequestDispatcher;
class TaskPool;
class WakeableLoop;

// A consumer as its ClientInstance sees it (RocketMQ's MQConsumerInner). Called on the
// instance's periodic and rebalance threads (see above); must be thread-safe.
class ConsumerMember {
 public:
  virtual ~ConsumerMember() = default;
  virtual std::string group() const = 0;
  // What the heartbeat tells brokers about this consumer.
  virtual protocol::ConsumerData consumer_data() const = 0;
  // Topics whose routes the instance keeps fresh (retry topic included).
  virtual std::vector<std::string> subscribed_topics() const = 0;
  virtual void rebalance() = 0;
  virtual void persist_offsets() = 0;
  // Its answer to GET_CONSUMER_RUNNING_INFO, without the instance's properties (name servers,
  // consume type, client version), which the instance adds. Called on a transport worker thread:
  // must not block.
  virtual protocol::ConsumerRunningInfo running_info() const = 0;
  // The offsets of `topic`'s queues it holds in memory (every topic's when empty): its answer to
  // GET_CONSUMER_STATUS_FROM_CLIENT. Called on a transport worker thread: must not block. A
  // member that keeps none answers none, as RocketMQ's lite pull consumer does.
  virtual std::map<MessageQueue, std::int64_t> offset_table(std::string_view /*topic*/) const { return {}; }
};

// A producer that answers brokers' transaction checks (RocketMQ's
// MQProducerInner.checkTransactionState): the instance routes each CHECK_TRANSACTION_STATE to the
// checker of the half message's producer group (its PGROUP property).
class TransactionChecker {
 public:
  virtual ~TransactionChecker() = default;
  // The broker at `broker_address` asks how the local transaction of `half_message` ended. Called
  // on a transport worker thread: hands the check to the checker's own threads and returns.
  virtual void check_transaction_state(const std::string& broker_address, MessageExt half_message,
                                       protocol::transaction::CheckTransactionStateHeader request) = 0;
};

// The route a producer uses for a topic that has none yet (auto-creation through TBW102).
struct DefaultTopicRoute {
  std::string create_topic_key = "TBW102";
  int default_topic_queue_nums = 4;
};

struct BrokerAddress {
  std::string address;
  bool slave = false;
};

class ClientInstance {
 public:
  // The process-wide instance of config.client_id(), created on first use. `config` should be
  // resolved() and valid.
  static Result<std::shared_ptr<ClientInstance>> get_or_create(const ClientConfig& config);
  // A private instance (not shared by client id). With `transport`, that object is used instead
  // of loading config.transport, and is not shut down by the instance (tests, embedding).
  static Result<std::shared_ptr<ClientInstance>> create(const ClientConfig& config,
                                                        std::shared_ptr<plugin::v1::Transport> transport = nullptr);
  ~ClientInstance();
  ClientInstance(const ClientInstance&) = delete;
  ClientInstance& operator=(const ClientInstance&) = delete;

  const ClientConfig& config() const noexcept { return config_; }
  const std::string& client_id() const noexcept { return client_id_; }
  ClientApi& api() noexcept { return *api_; }

  // A plugin object (selector, fault strategy, allocator, ...) through the kernel's loader, with
  // this client's plugin directories.
  Result<std::shared_ptr<void>> make_plugin(plugin::v1::Category category, const PluginChoice& choice) const;
  template <typename Interface>
  Result<std::shared_ptr<Interface>> make_plugin(const PluginChoice& choice) const {
    auto object = make_plugin(plugin::v1::CategoryOf<Interface>::value, choice);
    if (!object) return object.status();
    return std::static_pointer_cast<Interface>(std::move(object).value());
  }

  // Starts the periodic tasks and the rebalance thread. Idempotent.
  Status start();

  // ---- Routes ----------------------------------------------------------------------------
  // The cached route, fetched now when missing; for producers, a topic without a route gets the
  // create-topic key's (rocketmq-facts §4.2). NotFound "No route info of this topic" otherwise.
  Result<std::shared_ptr<const TopicRouteInfo>> publish_route(std::string_view topic,
                                                              const DefaultTopicRoute& fallback);
  // The cached route, fetched now when missing (no fallback).
  Result<std::shared_ptr<const TopicRouteInfo>> route(std::string_view topic);
  // Fetches the route from the name server now and caches it. NotFound when it has none.
  Status update_route(std::string_view topic);
  // nullptr when not cached.
  std::shared_ptr<const TopicRouteInfo> cached_route(std::string_view topic) const;
  // Master address of a broker, empty when unknown.
  std::string find_broker_master(std::string_view broker_name) const;
  // The address of `broker_id` of a broker, else of slave `broker_id + 1` when a slave was asked
  // for; unless `only_this_broker`, then its lowest id (RocketMQ's findBrokerAddressInSubscribe).
  std::optional<BrokerAddress> find_broker(std::string_view broker_name, std::int64_t broker_id,
                                           bool only_this_broker) const;
  // A broker address serving `topic` (master preferred), empty when the route is unknown.
  std::string find_broker_address_of_topic(std::string_view topic) const;
  // broker name → broker id → address, for every broker of every cached route.
  std::map<std::string, std::map<std::int64_t, std::string>> broker_addresses() const;
  // `observer` is called with every route fetched from a name server, once it is cached: on the
  // fetching thread, one route at a time (it must not fetch routes itself). Returns its id.
  using RouteObserver = std::function<void(std::string_view topic, const TopicRouteInfo& route)>;
  std::uint64_t observe_routes(RouteObserver observer);
  // When this returns, the observer is not running and will not be called again.
  void stop_observing_routes(std::uint64_t id);

  // ---- Members ---------------------------------------------------------------------------
  // AlreadyExists when the group is registered already in this instance.
  Status register_producer(std::string_view group);
  // Tells every broker (UNREGISTER_CLIENT); drops the group's transaction checker.
  void unregister_producer(std::string_view group);
  // Brokers' transaction checks of half messages of `group` go to `checker` (nullptr: to none;
  // they are then logged and dropped). NotFound unless the group is registered.
  Status set_transaction_checker(std::string_view group, std::shared_ptr<TransactionChecker> checker);
  Status register_consumer(std::shared_ptr<ConsumerMember> consumer);
  void unregister_consumer(std::string_view group);
  std::vector<std::string> producer_groups() const;

  // Heartbeat with every producer and consumer group to every broker (masters only when there
  // is no consumer). Returns the first failure; nothing to send is OK.
  Status send_heartbeat_to_all_brokers();
  // Runs every consumer's rebalance soon on the rebalance thread.
  void rebalance_now();
  // Runs it within `delay` (sooner when something else asks for it, or the interval ends first).
  void rebalance_within(std::chrono::milliseconds delay);
  // Replaces the processor of a broker→client request code. NOTIFY_CONSUMER_IDS_CHANGED
  // (rebalance_now), GET_CONSUMER_RUNNING_INFO (the named group's running_info),
  // GET_CONSUMER_STATUS_FROM_CLIENT (the named group's offset_table) and CHECK_TRANSACTION_STATE
  // (the half message's group's TransactionChecker) are served by default.
  void register_request_processor(std::int32_t code, RequestProcessor processor);
  // Runs `task` on the client-async thread; false when the instance is shutting down.
  bool execute(std::function<void()> task);
  // Requests of this instance's producers waiting for their reply: PUSH_REPLY_MESSAGE_TO_CLIENT
  // completes them, the periodic thread ends expired ones every second (request_reply.hpp).
  const std::shared_ptr<PendingRequests>& pending_requests() const noexcept { return pending_requests_; }

 private:
  ClientInstance(ClientConfig config, std::shared_ptr<plugin::v1::Transport> transport, bool owns_transport);
  void store_route(std::string_view topic, protocol::TopicRouteData route, bool from_default_topic);
  Status update_route_from_default(std::string_view topic, const DefaultTopicRoute& fallback);
  void refresh_routes();
  void persist_consumer_offsets();
  void rebalance_consumers();
  void unregister_client(std::string_view producer_group, std::string_view consumer_group);
  void answer_running_info(const std::shared_ptr<plugin::v1::Channel>& channel,
                           const plugin::v1::RemotingCommand& request) const;
  void answer_consumer_status(const std::shared_ptr<plugin::v1::Channel>& channel,
                              const plugin::v1::RemotingCommand& request) const;
  std::shared_ptr<ConsumerMember> find_consumer(std::string_view group) const;
  void dispatch_transaction_check(const std::shared_ptr<plugin::v1::Channel>& channel,
                                  const plugin::v1::RemotingCommand& request) const;
  std::vector<std::shared_ptr<ConsumerMember>> consumers() const;

  const ClientConfig config_;
  const std::string client_id_;
  std::shared_ptr<RequestDispatcher> dispatcher_;
  std::shared_ptr<PendingRequests> pending_requests_;
  std::shared_ptr<plugin::v1::Transport> transport_;
  const bool owns_transport_;
  std::unique_ptr<ClientApi> api_;
  std::unique_ptr<TaskPool> async_executor_;
  std::unique_ptr<WakeableLoop> rebalance_loop_;
  kernel::PeriodicTasks periodic_;

  std::mutex start_mutex_;
  bool started_ = false;

  mutable std::shared_mutex routes_mutex_;
  std::map<std::string, std::shared_ptr<const TopicRouteInfo>, std::less<>> routes_;
  std::map<std::string, std::map<std::int64_t, std::string>, std::less<>> brokers_;
  // One name server route fetch at a time, as RocketMQ's lockNamesrv. A waiter waits at most
  // for the holder's fetch, which its api timeout bounds.
  std::mutex fetch_mutex_;
  // Held while observers run, so that stop_observing_routes waits for a running one.
  std::mutex observers_mutex_;
  std::map<std::uint64_t, RouteObserver> route_observers_;
  std::uint64_t next_observer_id_ = 1;

  mutable std::mutex members_mutex_;
  // Registered producer groups, each with its transaction checker (nullptr for none).
  std::map<std::string, std::shared_ptr<TransactionChecker>, std::less<>> producer_groups_;
  std::map<std::string, std::shared_ptr<ConsumerMember>, std::less<>> consumers_;
  std::mutex heartbeat_mutex_;
};

}  // namespace mqkit::client
