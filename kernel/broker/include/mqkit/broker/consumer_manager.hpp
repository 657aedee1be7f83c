// ConsumerManager: the live members of each consumer group (one entry per client connection),
// their subscriptions, message model and start position, fed by heartbeats and dropped on
// unregister, connection close or silence (rocketmq-facts §4.9, §5.8). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/transport.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

struct ClientConnection {
  std::shared_ptr<plugin::v1::Channel> channel;
  std::string client_id;
  plugin::v1::LanguageCode language = plugin::v1::LanguageCode::kJava;
  std::int32_t version = 0;
  std::int64_t last_update_ms = 0;
};

struct ConsumerGroupInfo {
  std::string group;
  std::string consume_type;
  std::string message_model;
  std::string consume_from_where;
  std::map<std::uint64_t, ClientConnection> connections;       // by channel id
  std::map<std::string, protocol::SubscriptionData> subscriptions;  // by topic
};

enum class GroupEvent { kChanged, kUnregistered };

class ConsumerManager {
 public:
  // Called (outside the lock) when a group's membership changes, with the group's remaining
  // connections, so members can be told to rebalance.
  using Listener = std::function<void(const std::string& group, GroupEvent event,
                                      const std::vector<ClientConnection>& members)>;
  void set_listener(Listener listener) { listener_ = std::move(listener); }

  // Records a heartbeat; returns true when the group's membership changed.
  bool register_consumer(const protocol::ConsumerData& data, const ClientConnection& connection);
  void unregister_consumer(const std::string& group, std::uint64_t channel_id);
  void on_channel_closed(std::uint64_t channel_id);
  // Drops connections silent for longer than timeout_ms; returns how many.
  std::size_t expire(std::int64_t now_ms, std::int64_t timeout_ms);

  std::optional<ConsumerGroupInfo> find(const std::string& group) const;
  std::vector<std::string> client_ids(const std::string& group) const;  // sorted, unique
  std::optional<protocol::SubscriptionData> subscription(const std::string& group, const std::string& topic) const;
  std::set<std::string> groups_subscribing(const std::string& topic) const;
  std::vector<std::string> groups() const;

 private:
  void notify(const std::string& group, GroupEvent event);
  std::vector<ClientConnection> members_locked(const std::string& group) const;

  mutable std::mutex mutex_;
  std::map<std::string, ConsumerGroupInfo> groups_;
  Listener listener_;
};

// ProducerManager: producer group members, for connection lists and transaction checks.
class ProducerManager {
 public:
  void register_producer(const std::string& group, const ClientConnection& connection);
  void unregister_producer(const std::string& group, std::uint64_t channel_id);
  void on_channel_closed(std::uint64_t channel_id);
  std::size_t expire(std::int64_t now_ms, std::int64_t timeout_ms);
  std::vector<ClientConnection> connections(const std::string& group) const;
  // Every group's connections (a client in two groups appears twice).
  std::vector<ClientConnection> all_connections() const;
  // The same by group.
  std::map<std::string, std::vector<ClientConnection>> connections_by_group() const;
  // The connection of the producer client `client_id` (any group), nullptr when it has none:
  // where a reply to its request is pushed (RocketMQ's findChannel).
  std::shared_ptr<plugin::v1::Channel> find_channel(std::string_view client_id) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::uint64_t, ClientConnection>> groups_;
};

}  // namespace mqkit::broker
