// TopicQueueWatch: the lite pull consumer's TopicMessageQueueChangeListeners (RocketMQ's
// topicMessageQueueChangeListenerMap with messageQueuesForTopic): per watched topic, its listener
// and the queue set last seen. check() looks every watched topic up and calls the listener of
// each whose queues differ from the last set seen; a topic with no set seen yet counts as changed
// as soon as a look-up succeeds. A failed look-up changes nothing (the next check tries again).
//
// Threads: thread-safe. Listeners run on the thread calling check(), with no lock held (they may
// register listeners); checks are meant to come from one thread.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mqkit/client/lite_pull_consumer.hpp"

namespace mqkit::client {

class TopicQueueWatch {
 public:
  // The readable queues of a topic, as the name server tells them now.
  using QueueSource = std::function<Result<std::vector<MessageQueue>>(const std::string& topic)>;

  // Watches `topic` with `listener` (replacing an earlier one), from `seen` on (nullopt: none yet).
  void watch(const std::string& topic, TopicMessageQueueChangeListener listener,
             std::optional<std::set<MessageQueue>> seen);
  // Records the current queues of every topic with none seen yet, without calling listeners
  // (the consumer's start).
  void take_baseline(const QueueSource& source);
  void check(const QueueSource& source);
  bool empty() const;

 private:
  struct Watched {
    TopicMessageQueueChangeListener listener;
    std::optional<std::set<MessageQueue>> seen;
  };
  std::vector<std::string> topics() const;

  mutable std::mutex mutex_;
  std::map<std::string, Watched> watched_;
};

// The queues of `source` for `topic` as a set; nullopt (the failure logged at debug) when it failed.
std::optional<std::set<MessageQueue>> look_up_queues(const TopicQueueWatch::QueueSource& source,
                                                     const std::string& topic);

}  // namespace mqkit::client
