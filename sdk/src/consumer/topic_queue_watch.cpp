#include "topic_queue_watch.hpp"

#include <exception>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

}  // namespace

std::optional<std::set<MessageQueue>> look_up_queues(const TopicQueueWatch::QueueSource& source,
                                                     const std::string& topic) {
  auto queues = source(topic);
  if (!queues) {
    log()->debug("looking up the queues of {}: {}", topic, queues.status().to_string());
    return std::nullopt;
  }
  return std::set<MessageQueue>(queues->begin(), queues->end());
}

void TopicQueueWatch::watch(const std::string& topic, TopicMessageQueueChangeListener listener,
                            std::optional<std::set<MessageQueue>> seen) {
  std::lock_guard lock(mutex_);
  watched_[topic] = Watched{std::move(listener), std::move(seen)};
}

std::vector<std::string> TopicQueueWatch::topics() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [topic, watched] : watched_) out.push_back(topic);
  return out;
}

bool TopicQueueWatch::empty() const {
  std::lock_guard lock(mutex_);
  return watched_.empty();
}

void TopicQueueWatch::take_baseline(const QueueSource& source) {
  for (const auto& topic : topics()) {
    {
      std::lock_guard lock(mutex_);
      if (watched_.at(topic).seen) continue;
    }
    auto queues = look_up_queues(source, topic);
    if (!queues) continue;
    std::lock_guard lock(mutex_);
    auto& seen = watched_.at(topic).seen;
    if (!seen) seen = std::move(queues);
  }
}

void TopicQueueWatch::check(const QueueSource& source) {
  for (const auto& topic : topics()) {
    auto queues = look_up_queues(source, topic);
    if (!queues) continue;
    TopicMessageQueueChangeListener listener;
    {
      std::lock_guard lock(mutex_);
      Watched& watched = watched_.at(topic);  // topics are never unwatched
      if (watched.seen == queues) continue;
      watched.seen = queues;
      listener = watched.listener;
    }
    log()->info("the queues of {} changed: {} now", topic, queues->size());
    try {
      listener(topic, *queues);
    } catch (const std::exception& e) {
      log()->warn("the queue change listener of {} threw: {}", topic, e.what());
    } catch (...) {
      log()->warn("the queue change listener of {} threw (not a std::exception)", topic);
    }
  }
}

}  // namespace mqkit::client
