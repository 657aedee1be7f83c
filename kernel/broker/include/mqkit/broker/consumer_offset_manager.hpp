// ConsumerOffsetManager: committed consumer offsets per (group, topic, queue), persisted as
// consumerOffset.json ({"offsetTable":{"topic@group":{"0":12}}}) by the broker's periodic task
// and at shutdown. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "mqkit/broker/metadata_files.hpp"

namespace mqkit::broker {

class ConsumerOffsetManager {
 public:
  // "topic@group" → queue → offset.
  using Table = std::map<std::string, std::map<std::int32_t, std::int64_t>>;

  explicit ConsumerOffsetManager(MetadataFiles& files) : files_(files) {}

  plugin::v1::Status load();
  plugin::v1::Status persist() const;

  // RocketMQ's ConsumerOffsetSerializeWrapper, as persisted and as GET_ALL_CONSUMER_OFFSET
  // answers: {"offsetTable":{"topic@group":{"0":12}}}. Decoding also takes RocketMQ's own files
  // and answers, whose queue ids are bare numbers.
  std::string encode() const;
  static plugin::v1::Result<Table> decode(std::string_view json);
  // A slave takes its master's offsets (RocketMQ's SlaveSynchronize, a putAll): each
  // topic@group the master has replaces the slave's; the slave's others stay. Persisted.
  plugin::v1::Status merge_from_master(Table master);

  void commit(const std::string& group, const std::string& topic, std::int32_t queue_id, std::int64_t offset);
  std::optional<std::int64_t> query(const std::string& group, const std::string& topic, std::int32_t queue_id) const;
  std::map<std::int32_t, std::int64_t> offsets(const std::string& group, const std::string& topic) const;
  std::set<std::string> topics_of_group(const std::string& group) const;
  std::set<std::string> groups_of_topic(const std::string& topic) const;
  void remove_topic(const std::string& topic);
  void remove_group(const std::string& group);

 private:
  static std::string key(const std::string& group, const std::string& topic) { return topic + "@" + group; }

  MetadataFiles& files_;
  mutable std::mutex mutex_;
  Table table_;
};

}  // namespace mqkit::broker
