// TopicConfigManager: the broker's topics (queue counts, permissions, order flag), persisted as
// topics.json, with RocketMQ's system topics and the TBW102 auto-create rule. Every change
// bumps the data version so name servers pick it up on the next registration.
// Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "mqkit/broker/broker_config.hpp"
#include "mqkit/broker/metadata_files.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

using protocol::TopicConfig;
using protocol::TopicConfigTable;

class TopicConfigManager {
 public:
  TopicConfigManager(const BrokerConfig& config, MetadataFiles& files);
  // The manager keeps a reference to the broker's live settings: a temporary would dangle.
  TopicConfigManager(BrokerConfig&&, MetadataFiles&) = delete;

  // Reads topics.json (missing = none) and adds the system topics.
  plugin::v1::Status load();

  std::optional<TopicConfig> find(const std::string& topic) const;
  // Creates or replaces a topic; the name is validated.
  plugin::v1::Status update(TopicConfig config);
  // Creates or replaces every topic of the list with one write of topics.json, or none of them
  // when one is invalid (the error names it).
  plugin::v1::Status update_all(std::vector<TopicConfig> configs);
  plugin::v1::Status remove(const std::string& topic);

  // A send to an unknown topic: created from `default_topic` (which must exist and carry the
  // inherit permission) with min(requested, default's write queues) queues. NotFound when auto
  // creation is not possible.
  plugin::v1::Result<TopicConfig> create_on_send(const std::string& topic, const std::string& default_topic,
                                                 std::int32_t requested_queue_nums, std::int32_t topic_sys_flag);
  // A topic the broker needs for itself (%RETRY%group, %DLQ%group): returned, created if absent.
  plugin::v1::Result<TopicConfig> ensure(const std::string& topic, std::int32_t queue_nums, std::int32_t perm);

  TopicConfigTable snapshot() const;
  // `topics` (those the broker has) with the table's data version.
  TopicConfigTable snapshot_of(const std::vector<std::string>& topics) const;
  // A slave takes its master's table (RocketMQ's SlaveSynchronize): when the data version
  // differs, the whole table and its version are replaced and persisted. Returns whether it did.
  plugin::v1::Result<bool> replace_from_master(TopicConfigTable master);
  // Called on every change (the broker re-registers with the name servers).
  void on_change(std::function<void()> listener);

 private:
  plugin::v1::Status persist_locked();
  void add_system_topic_locked(const std::string& name, std::int32_t queues, std::int32_t perm);
  void bump_version_locked();

  const BrokerConfig& config_;
  MetadataFiles& files_;
  // Shared for lookups: every send and pull looks its topic up, from several threads at once.
  mutable std::shared_mutex mutex_;
  TopicConfigTable table_;
  std::function<void()> listener_;
};

}  // namespace mqkit::broker
