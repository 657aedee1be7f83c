// RouteInfoManager: the name server's tables — which brokers live, which cluster they belong
// to, which topics they serve — and the routes built from them (rocketmq-facts §1.12).
//
// Plain C++ in and out (no frames), so any protocol front-end can use it. Times are passed in
// (milliseconds) so expiry is testable without sleeping. Thread-safe: one reader/writer lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "mqkit/protocol/bodies.hpp"

namespace mqkit::namesrv {

using protocol::BrokerData;
using protocol::ClusterInfo;
using protocol::DataVersion;
using protocol::QueueData;
using protocol::TopicConfigTable;
using protocol::TopicRouteData;

struct BrokerRegistration {
  std::string cluster_name{};
  std::string broker_name{};
  std::string broker_addr{};
  std::int64_t broker_id = 0;
  std::string ha_server_addr{};
  TopicConfigTable topics{};
  // The broker's whole table (an mqkit broker's periodic registration, header field
  // mqkitFullTopicTable): topics it does not list are its no more. Otherwise the table may hold
  // only the topics just changed (RocketMQ's registerIncrementBrokerData), and is merged.
  bool full_topic_table = false;
  std::vector<std::string> filter_servers{};
  std::uint64_t channel_id = 0;  // the connection it registered over (0 = unknown)
};

struct RegistrationResult {
  std::string ha_server_addr{};  // for slaves: their master's HA address
  std::string master_addr{};     // for slaves: their master's address
};

class RouteInfoManager {
 public:
  RegistrationResult register_broker(const BrokerRegistration& registration, std::int64_t now_ms);
  void unregister_broker(const std::string& cluster_name, const std::string& broker_addr,
                         const std::string& broker_name, std::int64_t broker_id);

  // The route of a topic, or nullopt when no live broker serves it.
  std::optional<TopicRouteData> route(const std::string& topic) const;
  ClusterInfo cluster_info() const;
  std::set<std::string> topics() const;
  std::set<std::string> topics_of_cluster(const std::string& cluster_name) const;
  void delete_topic(const std::string& topic);
  // RocketMQ's wipeWritePermOfBroker / addWritePermOfBroker: every topic queue entry of
  // `broker_name` loses write permission (`writable` false) or gets read and write; returns how
  // many entries changed. It lasts until the broker registers a changed topic table.
  int set_write_perm_of_broker(const std::string& broker_name, bool writable);

  // True when the broker is unknown or its topic tables changed since it last registered;
  // otherwise refreshes its liveness (a cheap heartbeat).
  bool data_version_changed(const std::string& broker_addr, const DataVersion& version, std::int64_t now_ms);
  std::optional<DataVersion> data_version(const std::string& broker_addr) const;

  // Drops brokers silent for longer than `expiry_ms`; returns their addresses.
  std::vector<std::string> expire_brokers(std::int64_t now_ms, std::int64_t expiry_ms);
  // Drops the brokers registered over a connection that closed; returns their addresses.
  std::vector<std::string> on_channel_closed(std::uint64_t channel_id);

 private:
  struct LiveBroker {
    std::int64_t last_update_ms = 0;
    DataVersion data_version{};
    std::string ha_server_addr{};
    std::uint64_t channel_id = 0;
  };
  // Removes one broker address from every table (caller holds the write lock).
  void remove_broker_locked(const std::string& broker_addr);

  mutable std::shared_mutex mutex_;
  std::map<std::string, std::vector<QueueData>> topic_queue_table_;   // topic → queue data per broker
  std::map<std::string, BrokerData> broker_addr_table_;              // broker name → addresses
  std::map<std::string, std::set<std::string>> cluster_addr_table_;  // cluster → broker names
  std::map<std::string, LiveBroker> broker_live_table_;              // broker addr → liveness
  std::map<std::string, std::vector<std::string>> filter_server_table_;
};

}  // namespace mqkit::namesrv
