// Rebalancer: which queues of its subscribed topics this consumer owns, and the process queues
// it keeps for them (RocketMQ's RebalanceImpl). One round, per topic:
//   clustering   — consumer ids of the group from a broker of the topic, sorted, with the
//                  topic's sorted queues given to the allocator plugin: the queues it returns;
//   broadcasting — every queue of the topic.
// Then the owned set is diffed against the process queues: queues not owned any more are dropped
// (the listener persists their offsets; orderly queues are unlocked on their broker), new ones get
// a process queue and a starting offset (the stored offset, else per consume_from_where) and are
// handed to the listener, which starts pulling them. Orderly consumers take a queue only after
// locking it on its broker (LOCK_BATCH_MQ).
//
// Shared by the push consumer and the lite pull consumer; what differs is the listener.
//
// Threads: rebalance(), lock_all(), remove_all() and remove_subscription() are serialized (the instance's rebalance
// thread and shutdown); the queries (process_queue, owned_queues, ...) from any thread. Listener
// callbacks run on the thread calling rebalance()/remove_all(), without the table lock held.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/offset_store.hpp"
#include "mqkit/client/process_queue.hpp"
#include "mqkit/client/subscription.hpp"
#include "mqkit/plugin/v1/allocator.hpp"

namespace mqkit::client {

class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  // A queue newly owned: start consuming it from `next_offset`.
  virtual void on_queue_added(const MessageQueue& queue, const std::shared_ptr<ProcessQueue>& process_queue,
                              std::int64_t next_offset) = 0;
  // A queue given up (its process queue already dropped): persist its offset. False keeps it
  // for now (an orderly listener still runs on it); the next round tries again.
  virtual bool on_queue_removing(const MessageQueue& queue, ProcessQueue& process_queue) = 0;
  // The owned set of `topic` changed (after the adds and removals).
  virtual void on_queues_changed(const std::string& /*topic*/, const std::vector<MessageQueue>& /*all*/,
                                 const std::vector<MessageQueue>& /*owned*/) {}
};

struct RebalanceSettings {
  std::string group{};
  MessageModel message_model = MessageModel::kClustering;
  ConsumeFromWhere consume_from_where = ConsumeFromWhere::kLastOffset;
  std::int64_t consume_timestamp_ms = 0;  // for kTimestamp
  bool orderly = false;                   // lock queues on their brokers before taking them
};

class Rebalancer {
 public:
  Rebalancer(std::shared_ptr<ClientInstance> instance, RebalanceSettings settings,
             std::shared_ptr<plugin::v1::QueueAllocator> allocator, std::shared_ptr<OffsetStore> offsets,
             RebalanceListener& listener);

  const RebalanceSettings& settings() const noexcept { return settings_; }

  void set_subscription(SubscriptionData subscription);
  // Unsubscribes `topic` and gives up its queues now (the listener is told, as in a round);
  // a queue the listener keeps is given up by a later round.
  void remove_subscription(const std::string& topic);
  std::map<std::string, SubscriptionData> subscriptions() const;
  std::shared_ptr<const SubscriptionData> subscription(const std::string& topic) const;

  // One round for every subscribed topic; a topic that fails (no route yet, no broker) is
  // logged and tried again next round, which the instance then runs after 1 s (doubling to 16 s
  // while rounds keep failing) rather than a whole rebalance_interval later. False when some
  // topic failed.
  bool rebalance();
  // Drops every process queue (shutdown), telling the listener and unlocking orderly queues.
  void remove_all();
  // Drops the process queues of `topic` named in `queues` (all of the topic's when empty) without
  // telling the listener — their offsets were reset on the broker and must not be written
  // back: the next round takes them again from the stored offsets. Orderly locks are kept.
  void forget(const std::string& topic, const std::set<MessageQueue>& queues);

  std::shared_ptr<ProcessQueue> process_queue(const MessageQueue& queue) const;
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> process_queues() const;
  std::set<MessageQueue> owned_queues() const;

  // Where a queue new to this consumer starts (rocketmq-facts §4.7).
  Result<std::int64_t> compute_pull_from_where(const MessageQueue& queue);

  // ---- Orderly -----------------------------------------------------------------------------
  // LOCK_BATCH_MQ for one queue on its master; true when the broker granted it. Sets the process
  // queue's lock state when there is one.
  bool lock(const MessageQueue& queue);
  // Re-locks every owned queue, broker by broker; queues a broker refused lose their lock state.
  void lock_all();
  void unlock(const MessageQueue& queue, bool oneway);

 private:
  Status rebalance_topic(const std::string& topic);
  Result<std::vector<MessageQueue>> allocate(const std::string& topic, const std::vector<MessageQueue>& all);
  bool update_process_queues(const std::string& topic, const std::vector<MessageQueue>& owned);
  bool remove_queue(const MessageQueue& queue, const std::shared_ptr<ProcessQueue>& process_queue);
  // Locks `queues` of one broker; the granted subset.
  std::set<MessageQueue> lock_on_broker(const std::string& broker_name, const std::set<MessageQueue>& queues);
  bool clustering() const noexcept { return settings_.message_model == MessageModel::kClustering; }

  std::shared_ptr<ClientInstance> instance_;
  static constexpr std::chrono::milliseconds kFirstRetryDelay{1000};
  static constexpr std::chrono::milliseconds kLongestRetryDelay{16000};
  std::chrono::milliseconds retry_delay_{0};  // after a round that failed; round_mutex_
  const RebalanceSettings settings_;
  std::shared_ptr<plugin::v1::QueueAllocator> allocator_;
  std::shared_ptr<OffsetStore> offsets_;
  RebalanceListener& listener_;

  std::mutex round_mutex_;  // one round (or lock_all, remove_all) at a time
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const SubscriptionData>> subscriptions_;
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> table_;
};

}  // namespace mqkit::client
