#include "mqkit/broker/subscription_group_manager.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

using plugin::v1::Status;

namespace {
constexpr const char* kFileName = "subscriptionGroup.json";

template <typename T>
void read(const rapidjson::Value& v, const char* name, T& out) {
  auto it = v.FindMember(name);
  if (it == v.MemberEnd()) return;
  if constexpr (std::is_same_v<T, bool>) {
    if (it->value.IsBool()) out = it->value.GetBool();
  } else {
    if (it->value.IsInt64()) out = static_cast<T>(it->value.GetInt64());
  }
}
}  // namespace

Status SubscriptionGroupManager::load() {
  auto text = files_.load(kFileName);
  if (!text) return text.status().with_context("loading subscription groups");
  if (!text->has_value()) return Status::ok();
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>((*text)->c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("subscriptionGroupTable") ||
      !doc["subscriptionGroupTable"].IsObject()) {
    return Status::corruption(std::string(kFileName) + " is not a valid subscription group table");
  }
  std::lock_guard lock(mutex_);
  for (const auto& entry : doc["subscriptionGroupTable"].GetObject()) {
    if (!entry.value.IsObject()) continue;
    SubscriptionGroupConfig g;
    g.group_name = entry.name.GetString();
    read(entry.value, "consumeEnable", g.consume_enable);
    read(entry.value, "consumeFromMinEnable", g.consume_from_min_enable);
    read(entry.value, "consumeBroadcastEnable", g.consume_broadcast_enable);
    read(entry.value, "retryQueueNums", g.retry_queue_nums);
    read(entry.value, "retryMaxTimes", g.retry_max_times);
    read(entry.value, "brokerId", g.broker_id);
    read(entry.value, "whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly);
    read(entry.value, "notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable);
    groups_[g.group_name] = g;
  }
  return Status::ok();
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::find(const std::string& group) const {
  std::lock_guard lock(mutex_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  return it->second;
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::find_or_create(const std::string& group) {
  std::lock_guard lock(mutex_);
  if (auto it = groups_.find(group); it != groups_.end()) return it->second;
  if (!config_.auto_create_subscription_group || !protocol::validate_group(group).is_ok()) return std::nullopt;
  SubscriptionGroupConfig g;
  g.group_name = group;
  groups_[group] = g;
  (void)persist_locked();  // the group works from memory even if this save fails; the next one retries
  return g;
}

Status SubscriptionGroupManager::update(SubscriptionGroupConfig config) {
  std::vector<SubscriptionGroupConfig> one;
  one.push_back(std::move(config));
  return update_all(std::move(one));
}

Status SubscriptionGroupManager::update_all(std::vector<SubscriptionGroupConfig> configs) {
  for (const auto& config : configs) MQKIT_RETURN_IF_ERROR(protocol::validate_group(config.group_name));
  if (configs.empty()) return Status::ok();
  std::lock_guard lock(mutex_);
  for (auto& config : configs) groups_[config.group_name] = std::move(config);
  return persist_locked();
}

Status SubscriptionGroupManager::remove(const std::string& group) {
  std::lock_guard lock(mutex_);
  groups_.erase(group);
  return persist_locked();
}

std::map<std::string, SubscriptionGroupConfig> SubscriptionGroupManager::all() const {
  std::lock_guard lock(mutex_);
  return groups_;
}

plugin::v1::Result<bool> SubscriptionGroupManager::replace_from_master(
    std::map<std::string, SubscriptionGroupConfig> master) {
  std::lock_guard lock(mutex_);
  if (groups_ == master) return false;
  groups_ = std::move(master);
  MQKIT_RETURN_IF_ERROR(persist_locked());
  return true;
}

Status SubscriptionGroupManager::persist_locked() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("subscriptionGroupTable");
  w.StartObject();
  for (const auto& [name, g] : groups_) {
    w.Key(name.c_str());
    w.StartObject();
    w.Key("brokerId"), w.Int64(g.broker_id);
    w.Key("consumeBroadcastEnable"), w.Bool(g.consume_broadcast_enable);
    w.Key("consumeEnable"), w.Bool(g.consume_enable);
    w.Key("consumeFromMinEnable"), w.Bool(g.consume_from_min_enable);
    w.Key("groupName"), w.String(g.group_name.c_str());
    w.Key("notifyConsumerIdsChangedEnable"), w.Bool(g.notify_consumer_ids_changed_enable);
    w.Key("retryMaxTimes"), w.Int(g.retry_max_times);
    w.Key("retryQueueNums"), w.Int(g.retry_queue_nums);
    w.Key("whichBrokerWhenConsumeSlowly"), w.Int64(g.which_broker_when_consume_slowly);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return files_.save(kFileName, {buffer.GetString(), buffer.GetSize()});
}

}  // namespace mqkit::broker
