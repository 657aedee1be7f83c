#include "mqkit/namesrv/route_info_manager.hpp"

#include <algorithm>
#include <mutex>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::namesrv {

RegistrationResult RouteInfoManager::register_broker(const BrokerRegistration& r, std::int64_t now_ms) {
  std::unique_lock lock(mutex_);
  RegistrationResult result;
  cluster_addr_table_[r.cluster_name].insert(r.broker_name);

  BrokerData& broker = broker_addr_table_[r.broker_name];
  broker.cluster = r.cluster_name;
  broker.broker_name = r.broker_name;
  // An address serves under one broker id only: a slave promoted to master keeps its address.
  std::erase_if(broker.broker_addrs, [&](const auto& entry) {
    return entry.second == r.broker_addr && entry.first != r.broker_id;
  });
  const bool first_registration = broker.broker_addrs.emplace(r.broker_id, r.broker_addr).second;
  broker.broker_addrs[r.broker_id] = r.broker_addr;

  const auto live = broker_live_table_.find(r.broker_addr);
  const bool version_changed = live == broker_live_table_.end() || !(live->second.data_version == r.topics.data_version);
  if (r.broker_id == 0 && (first_registration || version_changed)) {
    // The master's topic table is the truth for its broker name: update what it lists and, when
    // it is the whole table, drop queue data of topics it no longer has. A table of changed topics
    // only (a RocketMQ broker's incremental registration) is merged, as RocketMQ's name server does.
    if (r.full_topic_table) {
      for (auto it = topic_queue_table_.begin(); it != topic_queue_table_.end();) {
        if (r.topics.topic_config_table.count(it->first) == 0) {
          std::erase_if(it->second, [&](const QueueData& q) { return q.broker_name == r.broker_name; });
        }
        it = it->second.empty() ? topic_queue_table_.erase(it) : std::next(it);
      }
    }
    for (const auto& [topic, config] : r.topics.topic_config_table) {
      QueueData q{r.broker_name, config.read_queue_nums, config.write_queue_nums, config.perm, config.topic_sys_flag};
      auto& queues = topic_queue_table_[topic];
      auto existing = std::find_if(queues.begin(), queues.end(),
                                   [&](const QueueData& d) { return d.broker_name == r.broker_name; });
      if (existing == queues.end()) {
        queues.push_back(q);
      } else {
        *existing = q;
      }
    }
  }
  // A broker this name server did not know, heard first through a table that may be partial (a
  // registration after a topic's creation, reaching a name server that restarted): its version
  // is not recorded, so its next registration, whole at the same version, is taken too.
  const bool maybe_partial_first = live == broker_live_table_.end() && !r.full_topic_table;
  broker_live_table_[r.broker_addr] = {now_ms, maybe_partial_first ? protocol::DataVersion{} : r.topics.data_version,
                                       r.ha_server_addr, r.channel_id};
  if (r.filter_servers.empty()) {
    filter_server_table_.erase(r.broker_addr);
  } else {
    filter_server_table_[r.broker_addr] = r.filter_servers;
  }
  if (r.broker_id != 0) {
    if (auto master = broker.broker_addrs.find(0); master != broker.broker_addrs.end()) {
      result.master_addr = master->second;
      if (auto m = broker_live_table_.find(master->second); m != broker_live_table_.end()) {
        result.ha_server_addr = m->second.ha_server_addr;
      }
    }
  }
  return result;
}

void RouteInfoManager::unregister_broker(const std::string& cluster_name, const std::string& broker_addr,
                                         const std::string& broker_name, std::int64_t broker_id) {
  std::unique_lock lock(mutex_);
  broker_live_table_.erase(broker_addr);
  filter_server_table_.erase(broker_addr);
  auto broker = broker_addr_table_.find(broker_name);
  if (broker == broker_addr_table_.end()) return;
  auto addr = broker->second.broker_addrs.find(broker_id);
  if (addr != broker->second.broker_addrs.end() && addr->second == broker_addr) broker->second.broker_addrs.erase(addr);
  if (!broker->second.broker_addrs.empty()) return;
  broker_addr_table_.erase(broker);
  if (auto cluster = cluster_addr_table_.find(cluster_name); cluster != cluster_addr_table_.end()) {
    cluster->second.erase(broker_name);
    if (cluster->second.empty()) cluster_addr_table_.erase(cluster);
  }
  for (auto it = topic_queue_table_.begin(); it != topic_queue_table_.end();) {
    std::erase_if(it->second, [&](const QueueData& q) { return q.broker_name == broker_name; });
    it = it->second.empty() ? topic_queue_table_.erase(it) : std::next(it);
  }
}

void RouteInfoManager::remove_broker_locked(const std::string& broker_addr) {
  broker_live_table_.erase(broker_addr);
  filter_server_table_.erase(broker_addr);
  std::set<std::string> emptied;
  for (auto it = broker_addr_table_.begin(); it != broker_addr_table_.end();) {
    std::erase_if(it->second.broker_addrs, [&](const auto& entry) { return entry.second == broker_addr; });
    if (it->second.broker_addrs.empty()) {
      emptied.insert(it->first);
      it = broker_addr_table_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = cluster_addr_table_.begin(); it != cluster_addr_table_.end();) {
    for (const auto& name : emptied) it->second.erase(name);
    it = it->second.empty() ? cluster_addr_table_.erase(it) : std::next(it);
  }
  for (auto it = topic_queue_table_.begin(); it != topic_queue_table_.end();) {
    std::erase_if(it->second, [&](const QueueData& q) { return emptied.count(q.broker_name) > 0; });
    it = it->second.empty() ? topic_queue_table_.erase(it) : std::next(it);
  }
}

std::optional<TopicRouteData> RouteInfoManager::route(const std::string& topic) const {
  std::shared_lock lock(mutex_);
  auto queues = topic_queue_table_.find(topic);
  if (queues == topic_queue_table_.end() || queues->second.empty()) return std::nullopt;
  TopicRouteData route;
  route.queue_datas = queues->second;
  std::sort(route.queue_datas.begin(), route.queue_datas.end(),
            [](const QueueData& a, const QueueData& b) { return a.broker_name < b.broker_name; });
  for (const auto& q : route.queue_datas) {
    auto broker = broker_addr_table_.find(q.broker_name);
    if (broker == broker_addr_table_.end()) continue;
    route.broker_datas.push_back(broker->second);
    for (const auto& [id, addr] : broker->second.broker_addrs) {
      if (auto f = filter_server_table_.find(addr); f != filter_server_table_.end()) {
        route.filter_server_table[addr] = f->second;
      }
    }
  }
  if (route.broker_datas.empty()) return std::nullopt;
  return route;
}

ClusterInfo RouteInfoManager::cluster_info() const {
  std::shared_lock lock(mutex_);
  return {broker_addr_table_, cluster_addr_table_};
}

std::set<std::string> RouteInfoManager::topics() const {
  std::shared_lock lock(mutex_);
  std::set<std::string> out;
  for (const auto& [topic, queues] : topic_queue_table_) out.insert(topic);
  return out;
}

std::set<std::string> RouteInfoManager::topics_of_cluster(const std::string& cluster_name) const {
  std::shared_lock lock(mutex_);
  std::set<std::string> out;
  auto cluster = cluster_addr_table_.find(cluster_name);
  if (cluster == cluster_addr_table_.end()) return out;
  for (const auto& [topic, queues] : topic_queue_table_) {
    for (const auto& q : queues) {
      if (cluster->second.count(q.broker_name)) out.insert(topic);
    }
  }
  return out;
}

void RouteInfoManager::delete_topic(const std::string& topic) {
  std::unique_lock lock(mutex_);
  topic_queue_table_.erase(topic);
}

int RouteInfoManager::set_write_perm_of_broker(const std::string& broker_name, bool writable) {
  std::unique_lock lock(mutex_);
  int changed = 0;
  for (auto& [topic, queues] : topic_queue_table_) {
    for (QueueData& queue : queues) {
      if (queue.broker_name != broker_name) continue;
      queue.perm = writable ? (protocol::perm::kRead | protocol::perm::kWrite) : (queue.perm & ~protocol::perm::kWrite);
      ++changed;
    }
  }
  return changed;
}

bool RouteInfoManager::data_version_changed(const std::string& broker_addr, const DataVersion& version,
                                            std::int64_t now_ms) {
  std::unique_lock lock(mutex_);
  auto live = broker_live_table_.find(broker_addr);
  if (live == broker_live_table_.end() || !(live->second.data_version == version)) return true;
  live->second.last_update_ms = now_ms;
  return false;
}

std::optional<DataVersion> RouteInfoManager::data_version(const std::string& broker_addr) const {
  std::shared_lock lock(mutex_);
  auto live = broker_live_table_.find(broker_addr);
  if (live == broker_live_table_.end()) return std::nullopt;
  return live->second.data_version;
}

std::vector<std::string> RouteInfoManager::expire_brokers(std::int64_t now_ms, std::int64_t expiry_ms) {
  std::unique_lock lock(mutex_);
  std::vector<std::string> expired;
  for (const auto& [addr, live] : broker_live_table_) {
    if (live.last_update_ms + expiry_ms < now_ms) expired.push_back(addr);
  }
  for (const auto& addr : expired) remove_broker_locked(addr);
  return expired;
}

std::vector<std::string> RouteInfoManager::on_channel_closed(std::uint64_t channel_id) {
  std::unique_lock lock(mutex_);
  std::vector<std::string> closed;
  if (channel_id == 0) return closed;
  for (const auto& [addr, live] : broker_live_table_) {
    if (live.channel_id == channel_id) closed.push_back(addr);
  }
  for (const auto& addr : closed) remove_broker_locked(addr);
  return closed;
}

}  // namespace mqkit::namesrv
