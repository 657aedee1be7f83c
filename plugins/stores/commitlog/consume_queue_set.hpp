// ConsumeQueueSet: every consume queue of the store, by topic and queue id, under
// consumequeue/<topic>/<queueId>/ — and the Dispatcher that builds them from committed records
// (RocketMQ's CommitLogDispatcherBuildConsumeQueue).
//
// Threads: lookups from any thread (shared lock); queues are created by the reput thread (the
// dispatcher) and removed by delete_topic() from any thread. A ConsumeQueue found by a reader
// stays valid through its shared_ptr even if its topic is deleted meanwhile.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "consume_queue.hpp"
#include "env.hpp"
#include "logger.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "queue_key.hpp"

namespace mqkit::plugins::stores::commitlog {

class ConsumeQueueSet {
 public:
  ConsumeQueueSet(Env& env, Logger log, std::string root, std::int64_t file_size);

  // Opens and recovers every queue directory. Each queue's recovery verdict is returned.
  struct LoadedQueue {
    std::shared_ptr<ConsumeQueue> queue;
    ConsumeQueue::Recovered recovered;
  };
  v1::Result<std::vector<LoadedQueue>> load();

  std::shared_ptr<ConsumeQueue> find(std::string_view topic, std::int32_t queue_id) const;
  v1::Result<std::shared_ptr<ConsumeQueue>> find_or_create(std::string_view topic, std::int32_t queue_id);
  std::vector<std::shared_ptr<ConsumeQueue>> all() const;
  std::size_t size() const;

  // Removes the topic's queues from the set and their files from disk.
  v1::Status delete_topic(std::string_view topic);
  // Removes one queue, if `queue` is still the one the set holds, with its files (and its
  // topic's directory when it was the topic's last queue).
  v1::Status remove_queue(const std::shared_ptr<ConsumeQueue>& queue);
  // Changes whenever a queue leaves the set (delete_topic, load): a holder of queues found
  // earlier looks them up again.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }
  v1::Status flush(std::int64_t least_pages);

 private:
  Env& env_;
  Logger log_;
  const std::string root_;
  const std::int64_t file_size_;
  // Looked up by string_view on every append and every dispatched record: hashed, no key built.
  struct TopicHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view topic) const noexcept { return std::hash<std::string_view>{}(topic); }
  };
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::map<std::int32_t, std::shared_ptr<ConsumeQueue>>, TopicHash, std::equal_to<>>
      queues_;
  std::atomic<std::uint64_t> generation_{0};
};

// Writes one unit per committed record into its queue. Prepared and rolled-back transaction
// records are skipped, as in RocketMQ.
class ConsumeQueueDispatcher final : public plugin::v1::Dispatcher {
 public:
  explicit ConsumeQueueDispatcher(ConsumeQueueSet& queues) : queues_(queues) {}
  std::string_view name() const noexcept override { return "build_consume_queue"; }
  plugin::v1::Status dispatch(const plugin::v1::DispatchRecord& record) noexcept override;
  // Store timestamp of the last record dispatched (the checkpoint's logicsMsgTimestamp).
  std::int64_t last_store_timestamp() const noexcept { return last_store_timestamp_.load(std::memory_order_acquire); }
  void set_last_store_timestamp(std::int64_t timestamp) noexcept {
    last_store_timestamp_.store(timestamp, std::memory_order_release);
  }

 private:
  ConsumeQueueSet& queues_;
  // The queues this dispatcher wrote to, valid while the set's generation stays the same: found
  // here with plain reads, no lock or reference count per record (see ConsumeQueue::writing_).
  // Only the dispatch thread uses it.
  QueueMap<std::shared_ptr<ConsumeQueue>> known_;
  std::uint64_t known_generation_ = 0;
  std::atomic<std::int64_t> last_store_timestamp_{0};
};

}  // namespace mqkit::plugins::stores::commitlog
