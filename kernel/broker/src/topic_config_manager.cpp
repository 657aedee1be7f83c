#include "mqkit/broker/topic_config_manager.hpp"

#include <chrono>
#include <mutex>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/request_reply.hpp"
#include "mqkit/protocol/timer.hpp"
#include "mqkit/protocol/validation.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::broker {

using plugin::v1::Result;
using plugin::v1::Status;
namespace perm = protocol::perm;

namespace {
constexpr const char* kFileName = "topics.json";
}  // namespace

TopicConfigManager::TopicConfigManager(const BrokerConfig& config, MetadataFiles& files)
    : config_(config), files_(files) {}

Status TopicConfigManager::load() {
  auto text = files_.load(kFileName);
  if (!text) return text.status().with_context("loading topics");
  std::lock_guard lock(mutex_);
  if (text->has_value()) {
    auto table = protocol::decode_topic_config_table(**text);
    if (!table) return table.status().with_context(std::string("reading ") + kFileName);
    table_ = std::move(table).value();
  }
  if (config_.auto_create_topic_enable) {
    add_system_topic_locked(std::string(protocol::kDefaultTopic), config_.default_topic_queue_nums,
                            perm::kRead | perm::kWrite | perm::kInherit);
  }
  add_system_topic_locked(std::string(protocol::kSelfTestTopic), 1, perm::kRead | perm::kWrite);
  add_system_topic_locked(config_.cluster_name, 16, perm::kRead | perm::kWrite);
  add_system_topic_locked(config_.broker_name, 1, perm::kRead | perm::kWrite);
  // Where responders send replies, and the broker stores them (store_reply_message_enable).
  add_system_topic_locked(protocol::reply::reply_topic_of(config_.cluster_name), 1, perm::kRead | perm::kWrite);
  // Where clients with enable_msg_trace write their trace records (RocketMQ: 1 queue).
  if (config_.trace_topic_enable) add_system_topic_locked(config_.msg_trace_topic_name, 1, perm::kRead | perm::kWrite);
  add_system_topic_locked(std::string(protocol::kOffsetMovedEvent), 1, perm::kRead | perm::kWrite);
  add_system_topic_locked(std::string(protocol::kScheduleTopic),
                          static_cast<std::int32_t>(config_.delay_level_ms.size()), perm::kRead | perm::kWrite);
  // Where timer messages wait (RocketMQ 5 creates it when the timer wheel is on).
  if (config_.timer_wheel_enable) {
    add_system_topic_locked(std::string(protocol::timer::kTopic), 1, perm::kRead | perm::kWrite);
  }
  if (table_.data_version.timestamp == 0) bump_version_locked();
  return persist_locked();
}

void TopicConfigManager::add_system_topic_locked(const std::string& name, std::int32_t queues, std::int32_t p) {
  if (table_.topic_config_table.count(name)) return;
  TopicConfig t;
  t.topic_name = name;
  t.read_queue_nums = t.write_queue_nums = queues;
  t.perm = p;
  table_.topic_config_table[name] = t;
}

std::optional<TopicConfig> TopicConfigManager::find(const std::string& topic) const {
  std::shared_lock lock(mutex_);
  auto it = table_.topic_config_table.find(topic);
  if (it == table_.topic_config_table.end()) return std::nullopt;
  return it->second;
}

Status TopicConfigManager::update(TopicConfig config) {
  std::vector<TopicConfig> one;
  one.push_back(std::move(config));
  return update_all(std::move(one));
}

Status TopicConfigManager::update_all(std::vector<TopicConfig> configs) {
  for (const auto& config : configs) {
    MQKIT_RETURN_IF_ERROR(protocol::validate_topic(config.topic_name));
    if (config.read_queue_nums < 0 || config.write_queue_nums < 0 || config.read_queue_nums > 1024 ||
        config.write_queue_nums > 1024) {
      return Status::invalid_argument("topic '" + config.topic_name + "': queue counts must be between 0 and 1024");
    }
  }
  if (configs.empty()) return Status::ok();
  {
    std::lock_guard lock(mutex_);
    for (auto& config : configs) table_.topic_config_table[config.topic_name] = std::move(config);
    bump_version_locked();
    MQKIT_RETURN_IF_ERROR(persist_locked());
  }
  if (listener_) listener_();
  return Status::ok();
}

plugin::v1::Result<bool> TopicConfigManager::replace_from_master(TopicConfigTable master) {
  {
    std::lock_guard lock(mutex_);
    if (table_.data_version == master.data_version) return false;
    table_ = std::move(master);
    MQKIT_RETURN_IF_ERROR(persist_locked());
  }
  if (listener_) listener_();
  return true;
}

Status TopicConfigManager::remove(const std::string& topic) {
  {
    std::lock_guard lock(mutex_);
    if (table_.topic_config_table.erase(topic) == 0) return Status::ok();
    bump_version_locked();
    MQKIT_RETURN_IF_ERROR(persist_locked());
  }
  if (listener_) listener_();
  return Status::ok();
}

Result<TopicConfig> TopicConfigManager::create_on_send(const std::string& topic, const std::string& default_topic,
                                                       std::int32_t requested_queue_nums, std::int32_t topic_sys_flag) {
  MQKIT_RETURN_IF_ERROR(protocol::validate_topic(topic));
  TopicConfig created;
  {
    std::lock_guard lock(mutex_);
    if (auto existing = table_.topic_config_table.find(topic); existing != table_.topic_config_table.end()) {
      return existing->second;
    }
    auto parent = table_.topic_config_table.find(default_topic);
    if (parent == table_.topic_config_table.end()) {
      return Status::not_found("topic " + topic + " does not exist and default topic " + default_topic +
                               " is unknown (autoCreateTopicEnable is off?)");
    }
    if ((parent->second.perm & perm::kInherit) == 0) {
      return Status::not_found("topic " + topic + " does not exist and default topic " + default_topic +
                               " has no inherit permission");
    }
    created.topic_name = topic;
    created.read_queue_nums = created.write_queue_nums =
        std::max(1, std::min(requested_queue_nums, parent->second.write_queue_nums));
    created.perm = parent->second.perm & ~perm::kInherit;
    created.topic_sys_flag = topic_sys_flag;
    table_.topic_config_table[topic] = created;
    bump_version_locked();
    MQKIT_RETURN_IF_ERROR(persist_locked());
  }
  kernel::logger("broker")->info("auto-created topic {} with {} queues from {}", topic, created.write_queue_nums,
                                 default_topic);
  if (listener_) listener_();
  return created;
}

Result<TopicConfig> TopicConfigManager::ensure(const std::string& topic, std::int32_t queue_nums, std::int32_t p) {
  if (auto existing = find(topic)) return *existing;
  TopicConfig t;
  t.topic_name = topic;
  t.read_queue_nums = t.write_queue_nums = queue_nums;
  t.perm = p;
  MQKIT_RETURN_IF_ERROR(update(t));
  return t;
}

TopicConfigTable TopicConfigManager::snapshot() const {
  std::shared_lock lock(mutex_);
  return table_;
}

TopicConfigTable TopicConfigManager::snapshot_of(const std::vector<std::string>& topics) const {
  std::shared_lock lock(mutex_);
  TopicConfigTable part;
  part.data_version = table_.data_version;
  for (const auto& topic : topics) {
    if (auto found = table_.topic_config_table.find(topic); found != table_.topic_config_table.end()) {
      part.topic_config_table.insert(*found);
    }
  }
  return part;
}

void TopicConfigManager::on_change(std::function<void()> listener) { listener_ = std::move(listener); }

void TopicConfigManager::bump_version_locked() {
  table_.data_version.timestamp = kernel::wall_clock_ms();
  ++table_.data_version.counter;
}

Status TopicConfigManager::persist_locked() {
  return files_.save(kFileName, protocol::encode(table_)).with_context(std::string("saving ") + kFileName);
}

}  // namespace mqkit::broker
