#include "rebalancer.hpp"

#include <algorithm>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/validation.hpp"
#include "queue_broker.hpp"

namespace mqkit::client {

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

bool is_retry_topic(std::string_view topic) { return topic.starts_with(protocol::kRetryGroupTopicPrefix); }

}  // namespace

Rebalancer::Rebalancer(std::shared_ptr<ClientInstance> instance, RebalanceSettings settings,
                       std::shared_ptr<plugin::v1::QueueAllocator> allocator, std::shared_ptr<OffsetStore> offsets,
                       RebalanceListener& listener)
    : instance_(std::move(instance)),
      settings_(std::move(settings)),
      allocator_(std::move(allocator)),
      offsets_(std::move(offsets)),
      listener_(listener) {}

void Rebalancer::set_subscription(SubscriptionData subscription) {
  std::lock_guard lock(mutex_);
  std::string topic = subscription.topic;
  subscriptions_[std::move(topic)] = std::make_shared<const SubscriptionData>(std::move(subscription));
}

std::map<std::string, SubscriptionData> Rebalancer::subscriptions() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, SubscriptionData> out;
  for (const auto& [topic, subscription] : subscriptions_) out.emplace(topic, *subscription);
  return out;
}

std::shared_ptr<const SubscriptionData> Rebalancer::subscription(const std::string& topic) const {
  std::lock_guard lock(mutex_);
  const auto it = subscriptions_.find(topic);
  return it == subscriptions_.end() ? nullptr : it->second;
}

std::shared_ptr<ProcessQueue> Rebalancer::process_queue(const MessageQueue& queue) const {
  std::lock_guard lock(mutex_);
  const auto it = table_.find(queue);
  return it == table_.end() ? nullptr : it->second;
}

std::map<MessageQueue, std::shared_ptr<ProcessQueue>> Rebalancer::process_queues() const {
  std::lock_guard lock(mutex_);
  return table_;
}

std::set<MessageQueue> Rebalancer::owned_queues() const {
  std::lock_guard lock(mutex_);
  std::set<MessageQueue> out;
  for (const auto& [queue, process_queue] : table_) out.insert(queue);
  return out;
}

// ---- Rounds --------------------------------------------------------------------------------

bool Rebalancer::rebalance() {
  std::lock_guard round(round_mutex_);
  bool all_ok = true;
  std::vector<std::string> topics;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [topic, subscription] : subscriptions_) topics.push_back(topic);
  }
  for (const auto& topic : topics) {
    if (Status s = rebalance_topic(topic); !s) {
      all_ok = false;
      // The retry topic has no route until a broker created it and registered: expected early on.
      if (is_retry_topic(topic)) {
        log()->debug("{}: rebalancing {}: {}", settings_.group, topic, s.to_string());
      } else {
        log()->warn("{}: rebalancing {}: {}", settings_.group, topic, s.to_string());
      }
    }
  }
  // Queues of topics no longer subscribed are given up.
  for (const auto& [queue, process_queue] : process_queues()) {
    if (!subscription(queue.topic)) remove_queue(queue, process_queue);
  }
  // A topic without a route yet (its broker created it a moment ago and registers it within
  // 200 ms): the next round comes after 1, 2, 4, ... s rather than a whole interval (20 s) later.
  retry_delay_ = all_ok ? std::chrono::milliseconds(0)
                        : std::min(kLongestRetryDelay, std::max(kFirstRetryDelay, retry_delay_ * 2));
  if (!all_ok) instance_->rebalance_within(retry_delay_);
  return all_ok;
}

Status Rebalancer::rebalance_topic(const std::string& topic) {
  auto route = instance_->route(topic);
  if (!route) return route.status();
  std::vector<MessageQueue> all = (*route)->subscribe_queues;
  std::sort(all.begin(), all.end());
  std::vector<MessageQueue> owned;
  if (clustering()) {
    MQKIT_ASSIGN_OR_RETURN(owned, allocate(topic, all));
  } else {
    owned = all;
  }
  if (update_process_queues(topic, owned)) {
    log()->info("{}: rebalanced {}: {} of {} queues owned by {}", settings_.group, topic, owned.size(), all.size(),
                instance_->client_id());
    listener_.on_queues_changed(topic, all, owned);
  }
  return Status::ok();
}

Result<std::vector<MessageQueue>> Rebalancer::allocate(const std::string& topic,
                                                       const std::vector<MessageQueue>& all) {
  const std::string broker = instance_->find_broker_address_of_topic(topic);
  if (broker.empty()) return Status::unavailable("no broker address known for " + topic);
  auto ids = instance_->api().get_consumer_id_list(broker, settings_.group);
  if (!ids || ids->empty()) {
    // The broker has not heard from this group yet (the topic's brokers were unknown at the last
    // heartbeat, e.g. a topic created after the consumer started): introduce it and ask again.
    (void)instance_->send_heartbeat_to_all_brokers();
    ids = instance_->api().get_consumer_id_list(broker, settings_.group);
  }
  if (!ids) return ids.status();
  if (ids->empty()) return Status::unavailable("broker " + broker + " knows no consumer of group " + settings_.group);
  std::sort(ids->begin(), ids->end());
  const plugin::v1::AllocateContext context{settings_.group, instance_->client_id(), all, *ids};
  auto owned = allocator_->allocate(context);
  if (!owned) return owned.status().with_context("allocator");
  std::sort(owned->begin(), owned->end());
  return owned;
}

bool Rebalancer::update_process_queues(const std::string& topic, const std::vector<MessageQueue>& owned) {
  bool changed = false;
  const std::set<MessageQueue> wanted(owned.begin(), owned.end());
  for (const auto& [queue, process_queue] : process_queues()) {
    if (queue.topic == topic && !wanted.contains(queue)) changed |= remove_queue(queue, process_queue);
  }
  const auto current = owned_queues();
  for (const auto& queue : owned) {
    if (current.contains(queue)) continue;
    auto process_queue = std::make_shared<ProcessQueue>();
    if (settings_.orderly && clustering()) {
      if (lock_on_broker(queue.broker_name, {queue}).empty()) {
        log()->info("{}: {} is locked by another consumer; taking it later", settings_.group, queue.to_string());
        continue;
      }
      process_queue->set_locked(true);
    }
    offsets_->remove(queue);  // a stale cached offset must not win over the stored one
    auto next_offset = compute_pull_from_where(queue);
    if (!next_offset) {
      log()->warn("{}: starting offset of {}: {}", settings_.group, queue.to_string(), next_offset.status().to_string());
      if (process_queue->locked()) unlock(queue, true);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      table_[queue] = process_queue;
    }
    log()->info("{}: took {} from offset {}", settings_.group, queue.to_string(), *next_offset);
    listener_.on_queue_added(queue, process_queue, *next_offset);
    changed = true;
  }
  return changed;
}

bool Rebalancer::remove_queue(const MessageQueue& queue, const std::shared_ptr<ProcessQueue>& process_queue) {
  process_queue->set_dropped();
  if (!listener_.on_queue_removing(queue, *process_queue)) return false;
  {
    std::lock_guard lock(mutex_);
    table_.erase(queue);
  }
  if (settings_.orderly && clustering() && process_queue->locked()) unlock(queue, false);
  process_queue->clear();
  log()->info("{}: gave up {}", settings_.group, queue.to_string());
  return true;
}

void Rebalancer::remove_all() {
  std::lock_guard round(round_mutex_);
  for (const auto& [queue, process_queue] : process_queues()) {
    // At shutdown a queue is given up whatever the listener says.
    process_queue->set_dropped();
    (void)listener_.on_queue_removing(queue, *process_queue);
    if (settings_.orderly && clustering() && process_queue->locked()) unlock(queue, false);
    process_queue->clear();
  }
  std::lock_guard lock(mutex_);
  table_.clear();
}

void Rebalancer::remove_subscription(const std::string& topic) {
  std::lock_guard round(round_mutex_);
  {
    std::lock_guard lock(mutex_);
    subscriptions_.erase(topic);
  }
  for (const auto& [queue, process_queue] : process_queues()) {
    if (queue.topic == topic) (void)remove_queue(queue, process_queue);
  }
}

void Rebalancer::forget(const std::string& topic, const std::set<MessageQueue>& queues) {
  std::lock_guard round(round_mutex_);
  std::lock_guard lock(mutex_);
  for (auto it = table_.begin(); it != table_.end();) {
    if (it->first.topic != topic || (!queues.empty() && !queues.contains(it->first))) {
      ++it;
      continue;
    }
    it->second->set_dropped();
    it->second->clear();
    it = table_.erase(it);
  }
}

Result<std::int64_t> Rebalancer::compute_pull_from_where(const MessageQueue& queue) {
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t stored, offsets_->read(queue, ReadOffsetType::kStore));
  if (stored >= 0) return stored;
  const bool retry = is_retry_topic(queue.topic);
  switch (settings_.consume_from_where) {
    case ConsumeFromWhere::kFirstOffset:
      return std::int64_t{0};
    case ConsumeFromWhere::kLastOffset: {
      if (retry) return std::int64_t{0};
      MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(*instance_, queue));
      return instance_->api().get_max_offset(address, queue);
    }
    case ConsumeFromWhere::kTimestamp: {
      MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(*instance_, queue));
      if (retry) return instance_->api().get_max_offset(address, queue);
      return instance_->api().search_offset(address, queue, settings_.consume_timestamp_ms);
    }
  }
  return Status::internal("unknown consume_from_where");
}

// ---- Locks ---------------------------------------------------------------------------------

std::set<MessageQueue> Rebalancer::lock_on_broker(const std::string& broker_name,
                                                  const std::set<MessageQueue>& queues) {
  if (queues.empty()) return {};
  auto address = master_of(*instance_, *queues.begin());
  if (!address) {
    log()->warn("{}: locking queues of {}: {}", settings_.group, broker_name, address.status().to_string());
    return {};
  }
  protocol::LockBatchRequest request;
  request.consumer_group = settings_.group;
  request.client_id = instance_->client_id();
  request.mq_set = queues;
  auto locked = instance_->api().lock_batch_mq(*address, request);
  if (!locked) {
    log()->warn("{}: locking queues on {}: {}", settings_.group, *address, locked.status().to_string());
    return {};
  }
  return std::move(locked).value();
}

bool Rebalancer::lock(const MessageQueue& queue) {
  const bool granted = !lock_on_broker(queue.broker_name, {queue}).empty();
  if (auto process_queue = this->process_queue(queue)) process_queue->set_locked(granted);
  return granted;
}

void Rebalancer::lock_all() {
  std::lock_guard round(round_mutex_);
  std::map<std::string, std::set<MessageQueue>> by_broker;
  const auto table = process_queues();
  for (const auto& [queue, process_queue] : table) by_broker[queue.broker_name].insert(queue);
  for (const auto& [broker, queues] : by_broker) {
    const auto granted = lock_on_broker(broker, queues);
    for (const auto& queue : queues) {
      const bool ok = granted.contains(queue);
      if (!ok) log()->warn("{}: lost the lock of {}", settings_.group, queue.to_string());
      table.at(queue)->set_locked(ok);
    }
  }
}

void Rebalancer::unlock(const MessageQueue& queue, bool oneway) {
  auto address = master_of(*instance_, queue);
  if (!address) return;
  protocol::LockBatchRequest request;
  request.consumer_group = settings_.group;
  request.client_id = instance_->client_id();
  request.mq_set = {queue};
  const Status s = oneway ? instance_->api().unlock_batch_mq_oneway(*address, request)
                          : instance_->api().unlock_batch_mq(*address, request);
  if (!s) log()->warn("{}: unlocking {}: {}", settings_.group, queue.to_string(), s.to_string());
}

}  // namespace mqkit::client
