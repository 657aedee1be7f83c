#include "mqkit/broker/consumer_manager.hpp"

#include <algorithm>

namespace mqkit::broker {

bool ConsumerManager::register_consumer(const protocol::ConsumerData& data, const ClientConnection& connection) {
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    auto& group = groups_[data.group_name];
    group.group = data.group_name;
    group.consume_type = data.consume_type;
    group.message_model = data.message_model;
    group.consume_from_where = data.consume_from_where;
    const std::uint64_t id = connection.channel ? connection.channel->id() : 0;
    auto [it, inserted] = group.connections.insert_or_assign(id, connection);
    changed = inserted;
    // A heartbeat carries the full subscription set of the client: topics it dropped go away.
    std::map<std::string, protocol::SubscriptionData> subscriptions;
    for (const auto& s : data.subscription_data_set) subscriptions[s.topic] = s;
    for (auto& [topic, s] : subscriptions) {
      auto old = group.subscriptions.find(topic);
      if (old != group.subscriptions.end() && old->second.sub_version > s.sub_version) s = old->second;
    }
    if (!subscriptions.empty()) group.subscriptions = std::move(subscriptions);
  }
  if (changed) notify(data.group_name, GroupEvent::kChanged);
  return changed;
}

void ConsumerManager::unregister_consumer(const std::string& group, std::uint64_t channel_id) {
  GroupEvent event = GroupEvent::kChanged;
  {
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group);
    if (it == groups_.end() || it->second.connections.erase(channel_id) == 0) return;
    if (it->second.connections.empty()) {
      groups_.erase(it);
      event = GroupEvent::kUnregistered;
    }
  }
  notify(group, event);
}

void ConsumerManager::on_channel_closed(std::uint64_t channel_id) {
  std::vector<std::string> affected;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, group] : groups_) {
      if (group.connections.count(channel_id)) affected.push_back(name);
    }
  }
  for (const auto& group : affected) unregister_consumer(group, channel_id);
}

std::size_t ConsumerManager::expire(std::int64_t now_ms, std::int64_t timeout_ms) {
  std::vector<std::pair<std::string, std::uint64_t>> stale;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, group] : groups_) {
      for (const auto& [id, c] : group.connections) {
        if (c.last_update_ms + timeout_ms < now_ms) stale.emplace_back(name, id);
      }
    }
  }
  for (const auto& [group, id] : stale) {
    unregister_consumer(group, id);
  }
  return stale.size();
}

std::optional<ConsumerGroupInfo> ConsumerManager::find(const std::string& group) const {
  std::lock_guard lock(mutex_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ConsumerManager::client_ids(const std::string& group) const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  auto it = groups_.find(group);
  if (it == groups_.end()) return ids;
  for (const auto& [id, c] : it->second.connections) ids.push_back(c.client_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::optional<protocol::SubscriptionData> ConsumerManager::subscription(const std::string& group,
                                                                        const std::string& topic) const {
  std::lock_guard lock(mutex_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  auto s = it->second.subscriptions.find(topic);
  if (s == it->second.subscriptions.end()) return std::nullopt;
  return s->second;
}

std::set<std::string> ConsumerManager::groups_subscribing(const std::string& topic) const {
  std::lock_guard lock(mutex_);
  std::set<std::string> out;
  for (const auto& [name, group] : groups_) {
    if (group.subscriptions.count(topic)) out.insert(name);
  }
  return out;
}

std::vector<std::string> ConsumerManager::groups() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, group] : groups_) out.push_back(name);
  return out;
}

std::vector<ClientConnection> ConsumerManager::members_locked(const std::string& group) const {
  std::vector<ClientConnection> out;
  auto it = groups_.find(group);
  if (it == groups_.end()) return out;
  for (const auto& [id, c] : it->second.connections) out.push_back(c);
  return out;
}

void ConsumerManager::notify(const std::string& group, GroupEvent event) {
  if (!listener_) return;
  std::vector<ClientConnection> members;
  {
    std::lock_guard lock(mutex_);
    members = members_locked(group);
  }
  listener_(group, event, members);
}

void ProducerManager::register_producer(const std::string& group, const ClientConnection& connection) {
  std::lock_guard lock(mutex_);
  groups_[group][connection.channel ? connection.channel->id() : 0] = connection;
}

void ProducerManager::unregister_producer(const std::string& group, std::uint64_t channel_id) {
  std::lock_guard lock(mutex_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return;
  it->second.erase(channel_id);
  if (it->second.empty()) groups_.erase(it);
}

void ProducerManager::on_channel_closed(std::uint64_t channel_id) {
  std::lock_guard lock(mutex_);
  for (auto it = groups_.begin(); it != groups_.end();) {
    it->second.erase(channel_id);
    it = it->second.empty() ? groups_.erase(it) : std::next(it);
  }
}

std::size_t ProducerManager::expire(std::int64_t now_ms, std::int64_t timeout_ms) {
  std::lock_guard lock(mutex_);
  std::size_t removed = 0;
  for (auto it = groups_.begin(); it != groups_.end();) {
    removed += std::erase_if(it->second, [&](const auto& e) { return e.second.last_update_ms + timeout_ms < now_ms; });
    it = it->second.empty() ? groups_.erase(it) : std::next(it);
  }
  return removed;
}

std::vector<ClientConnection> ProducerManager::connections(const std::string& group) const {
  std::lock_guard lock(mutex_);
  std::vector<ClientConnection> out;
  auto it = groups_.find(group);
  if (it == groups_.end()) return out;
  for (const auto& [id, c] : it->second) out.push_back(c);
  return out;
}

std::vector<ClientConnection> ProducerManager::all_connections() const {
  std::lock_guard lock(mutex_);
  std::vector<ClientConnection> out;
  for (const auto& [group, members] : groups_) {
    for (const auto& [id, c] : members) out.push_back(c);
  }
  return out;
}

std::map<std::string, std::vector<ClientConnection>> ProducerManager::connections_by_group() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, std::vector<ClientConnection>> out;
  for (const auto& [group, members] : groups_) {
    auto& connections = out[group];
    for (const auto& [id, c] : members) connections.push_back(c);
  }
  return out;
}

std::shared_ptr<plugin::v1::Channel> ProducerManager::find_channel(std::string_view client_id) const {
  std::lock_guard lock(mutex_);
  for (const auto& [group, members] : groups_) {
    for (const auto& [id, c] : members) {
      if (c.client_id == client_id && c.channel) return c.channel;
    }
  }
  return nullptr;
}

}  // namespace mqkit::broker
