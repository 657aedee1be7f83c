#include "consume_queue_set.hpp"

#include <charconv>
#include <mutex>

#include "commit_log.hpp"
#include "mapped_file.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {

bool parse_queue_id(std::string_view name, std::int32_t* queue_id) {
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), *queue_id);
  return !name.empty() && error == std::errc() && end == name.data() + name.size() && *queue_id >= 0;
}

}  // namespace

ConsumeQueueSet::ConsumeQueueSet(Env& env, Logger log, std::string root, std::int64_t file_size)
    : env_(env), log_(log), root_(std::move(root)), file_size_(file_size) {}

v1::Result<std::vector<ConsumeQueueSet::LoadedQueue>> ConsumeQueueSet::load() {
  std::vector<LoadedQueue> loaded;
  auto topics = env_.list_dir(root_);
  if (!topics.is_ok()) {
    if (topics.status().code() == v1::StatusCode::kNotFound) return loaded;
    return topics.status();
  }
  decltype(queues_) queues;
  for (const auto& topic : *topics) {
    const std::string topic_dir = join_path(root_, topic);
    if (!env_.is_directory(topic_dir)) continue;
    MQKIT_ASSIGN_OR_RETURN(const auto ids, env_.list_dir(topic_dir));
    for (const auto& id : ids) {
      std::int32_t queue_id = 0;
      if (!parse_queue_id(id, &queue_id)) {
        log_.warn("ignoring " + join_path(topic_dir, id) + ": not a queue id");
        continue;
      }
      auto queue = std::make_shared<ConsumeQueue>(env_, log_, topic, queue_id, join_path(topic_dir, id), file_size_);
      MQKIT_ASSIGN_OR_RETURN(auto recovered, queue->recover());
      queues[topic][queue_id] = queue;
      loaded.push_back({std::move(queue), std::move(recovered)});
    }
  }
  std::unique_lock lock(mutex_);
  queues_ = std::move(queues);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return loaded;
}

std::shared_ptr<ConsumeQueue> ConsumeQueueSet::find(std::string_view topic, std::int32_t queue_id) const {
  std::shared_lock lock(mutex_);
  const auto by_topic = queues_.find(topic);
  if (by_topic == queues_.end()) return nullptr;
  const auto it = by_topic->second.find(queue_id);
  return it == by_topic->second.end() ? nullptr : it->second;
}

v1::Result<std::shared_ptr<ConsumeQueue>> ConsumeQueueSet::find_or_create(std::string_view topic,
                                                                          std::int32_t queue_id) {
  if (auto queue = find(topic, queue_id)) return queue;
  std::unique_lock lock(mutex_);
  auto by_topic = queues_.find(topic);
  if (by_topic == queues_.end()) by_topic = queues_.emplace(std::string(topic), decltype(by_topic->second){}).first;
  auto& slot = by_topic->second[queue_id];
  if (!slot) {
    slot = std::make_shared<ConsumeQueue>(env_, log_, std::string(topic), queue_id,
                                          join_path(join_path(root_, topic), std::to_string(queue_id)), file_size_);
  }
  return slot;
}

std::vector<std::shared_ptr<ConsumeQueue>> ConsumeQueueSet::all() const {
  std::shared_lock lock(mutex_);
  std::vector<std::shared_ptr<ConsumeQueue>> out;
  for (const auto& [topic, by_id] : queues_) {
    for (const auto& [id, queue] : by_id) out.push_back(queue);
  }
  return out;
}

std::size_t ConsumeQueueSet::size() const {
  std::shared_lock lock(mutex_);
  std::size_t count = 0;
  for (const auto& [topic, by_id] : queues_) count += by_id.size();
  return count;
}

v1::Status ConsumeQueueSet::delete_topic(std::string_view topic) {
  std::map<std::int32_t, std::shared_ptr<ConsumeQueue>> removed;
  {
    std::unique_lock lock(mutex_);
    const auto it = queues_.find(topic);
    if (it != queues_.end()) {
      removed = std::move(it->second);
      queues_.erase(it);
      generation_.fetch_add(1, std::memory_order_acq_rel);
    }
  }
  for (auto& [id, queue] : removed) MQKIT_RETURN_IF_ERROR(queue->destroy());
  return env_.remove_tree(join_path(root_, topic));
}

v1::Status ConsumeQueueSet::remove_queue(const std::shared_ptr<ConsumeQueue>& queue) {
  std::unique_lock lock(mutex_);
  const auto by_topic = queues_.find(queue->topic());
  if (by_topic == queues_.end()) return v1::Status::ok();
  const auto it = by_topic->second.find(queue->queue_id());
  if (it == by_topic->second.end() || it->second != queue) return v1::Status::ok();
  by_topic->second.erase(it);
  const bool last_of_topic = by_topic->second.empty();
  if (last_of_topic) queues_.erase(by_topic);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  // Still under the lock: a queue of this topic created next must not see its directory go.
  MQKIT_RETURN_IF_ERROR(queue->destroy());
  MQKIT_RETURN_IF_ERROR(env_.remove_tree(queue->dir()));
  return last_of_topic ? env_.remove_tree(join_path(root_, queue->topic())) : v1::Status::ok();
}

v1::Status ConsumeQueueSet::flush(std::int64_t least_pages) {
  v1::Status first_error;
  for (const auto& queue : all()) {
    v1::Status status = queue->flush(least_pages);
    if (!status.is_ok() && first_error.is_ok()) first_error = status;
  }
  return first_error;
}

plugin::v1::Status ConsumeQueueDispatcher::dispatch(const plugin::v1::DispatchRecord& record) noexcept {
  if (!takes_queue_offset(record.sys_flag)) return plugin::v1::Status::ok();
  if (const std::uint64_t generation = queues_.generation(); generation != known_generation_) {
    known_.clear();
    known_generation_ = generation;
  }
  auto known = known_.find(QueueKeyView{record.topic, record.queue_id});
  if (known == known_.end()) {
    auto queue = queues_.find_or_create(record.topic, record.queue_id);
    if (!queue.is_ok()) return queue.status();
    known = known_.emplace(QueueKey{std::string(record.topic), record.queue_id}, std::move(*queue)).first;
  }
  MQKIT_RETURN_IF_ERROR(known->second->put(record.queue_offset, {record.commit_offset, record.size, record.tags_code}));
  last_store_timestamp_.store(record.store_timestamp, std::memory_order_release);
  return plugin::v1::Status::ok();
}

}  // namespace mqkit::plugins::stores::commitlog
