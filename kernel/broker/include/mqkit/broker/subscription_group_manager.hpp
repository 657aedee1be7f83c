// SubscriptionGroupManager: per consumer group settings (retry queues, maximum reconsume times,
// whether consuming is enabled), persisted as subscriptionGroup.json; created on first use when
// auto_create_subscription_group is on. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mqkit/broker/broker_config.hpp"
#include "mqkit/broker/metadata_files.hpp"
#include "mqkit/protocol/subscription_group.hpp"

namespace mqkit::broker {

using SubscriptionGroupConfig = protocol::SubscriptionGroupConfig;

class SubscriptionGroupManager {
 public:
  SubscriptionGroupManager(const BrokerConfig& config, MetadataFiles& files) : config_(config), files_(files) {}
  // The manager keeps a reference to the broker's live settings: a temporary would dangle.
  SubscriptionGroupManager(BrokerConfig&&, MetadataFiles&) = delete;

  plugin::v1::Status load();
  std::optional<SubscriptionGroupConfig> find(const std::string& group) const;
  // The group's settings, created with defaults when auto creation is on; nullopt otherwise.
  std::optional<SubscriptionGroupConfig> find_or_create(const std::string& group);
  plugin::v1::Status update(SubscriptionGroupConfig config);
  // Creates or replaces every group of the list with one write, or none when a name is invalid.
  plugin::v1::Status update_all(std::vector<SubscriptionGroupConfig> configs);
  plugin::v1::Status remove(const std::string& group);
  std::map<std::string, SubscriptionGroupConfig> all() const;
  // A slave takes its master's groups (RocketMQ's SlaveSynchronize): when they differ, the whole
  // table is replaced and persisted. Returns whether it was.
  plugin::v1::Result<bool> replace_from_master(std::map<std::string, SubscriptionGroupConfig> master);

 private:
  plugin::v1::Status persist_locked() const;

  const BrokerConfig& config_;
  MetadataFiles& files_;
  mutable std::mutex mutex_;
  std::map<std::string, SubscriptionGroupConfig> groups_;
};

}  // namespace mqkit::broker
