#include "push_message_source.hpp"

#include <unistd.h>

#include <chrono>
#include <map>
#include <set>
#include <utility>

namespace mqkit::bench {

using client::MessageQueue;
using client::Status;

namespace {

// Long polling: a broker holds a pull this long when its queue has nothing new (a message
// arriving answers it at once). Short, so a consumer stopped between runs lets go soon.
constexpr std::chrono::milliseconds kSuspend{1000};
constexpr std::chrono::milliseconds kSuspendAnswerTimeout{kSuspend + std::chrono::milliseconds(4000)};

// The by_config allocator's key of a queue: it applies to every topic the consumer subscribes.
std::string allocator_key(const MessageQueue& queue) {
  return queue.broker_name + ":" + std::to_string(queue.queue_id);
}

}  // namespace

PushMessageSource::PushMessageSource(client::ConsumerConfig config, std::shared_ptr<client::ClientInstance> instance,
                                     std::vector<std::string> topics, std::vector<MessageQueue> owned)
    : config_(std::move(config)), instance_(std::move(instance)), topics_(std::move(topics)), owned_(std::move(owned)) {}

PushMessageSource::~PushMessageSource() { stop(); }

Status PushMessageSource::prepare() {
  for (const MessageQueue& queue : owned_) {
    MQKIT_ASSIGN_OR_RETURN(QueueEnd end, queue_end(*instance_, queue));
    if (Status s = instance_->api().update_consumer_offset(end.broker_address, config_.group, queue, end.offset); !s) {
      return s.with_context("committing the start offset of " + queue.to_string());
    }
  }
  return Status::ok();
}

Status PushMessageSource::start(MessageHandler handler) {
  consumer_ = std::make_unique<client::PushConsumer>(config_, instance_);
  for (const std::string& topic : topics_) {
    if (Status s = consumer_->subscribe(topic, "*"); !s) return s;
  }
  Status registered = consumer_->register_listener(
      [handler = std::move(handler)](std::span<const client::MessageExt> messages,
                                     client::ConsumeConcurrentlyContext& context) {
        handler(context.queue, messages);
        return client::ConsumeConcurrentlyStatus::kConsumeSuccess;
      });
  if (!registered) return registered;
  return consumer_->start();
}

void PushMessageSource::stop() {
  if (consumer_) consumer_->shutdown();
}

client::Result<std::vector<std::unique_ptr<MessageSource>>> make_push_sources(const SourceSettings& settings) {
  MQKIT_ASSIGN_OR_RETURN(std::vector<ConsumerClient> clients, connect_consumers(settings));
  // Queues are shared out by broker and queue id (the allocator's key), the same for every topic.
  const std::vector<MessageQueue> queues = all_queues(clients.front(), settings.topics);
  std::map<std::string, std::size_t> owner_of;
  for (const MessageQueue& queue : queues) owner_of.try_emplace(allocator_key(queue), owner_of.size() % clients.size());
  std::vector<std::set<std::string>> keys(clients.size());
  for (const MessageQueue& queue : queues) {
    const std::size_t owner = owner_of.at(allocator_key(queue));
    keys[owner].insert(allocator_key(queue));
    clients[owner].queues.push_back(queue);
  }

  // A group new to the brokers: nothing of an earlier run (offsets, members) is in the way.
  const std::string group = settings.group + "_" + std::to_string(::getpid()) + "_" +
                            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
  std::vector<std::unique_ptr<MessageSource>> sources;
  for (std::size_t i = 0; i < clients.size(); ++i) {
    client::ConsumerConfig config;
    config.group = group;
    config.consume_from_where = client::ConsumeFromWhere::kLastOffset;  // unused: prepare() commits offsets
    config.pull_batch_size = settings.pull_batch;
    config.consume_message_batch_max_size = settings.pull_batch;  // a listener call per pulled batch
    config.consume_thread_count = settings.consume_threads;
    config.broker_suspend_max_time = kSuspend;
    config.consumer_timeout_when_suspend = kSuspendAnswerTimeout;
    std::string owned;
    for (const std::string& key : keys[i]) owned += (owned.empty() ? "" : ",") + key;
    config.client.allocator = client::PluginChoice{"by_config", {{"queues", owned}}};
    sources.push_back(std::make_unique<PushMessageSource>(std::move(config), clients[i].instance, settings.topics,
                                                          std::move(clients[i].queues)));
  }
  return sources;
}

}  // namespace mqkit::bench
