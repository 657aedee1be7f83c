// MessageSource: the consumer side of a benchmark, as the run sees it — the seam between mqbench
// and however messages are consumed. The run only needs: position at the end of every queue
// before producing (so only this run's messages count), start delivering later (at once, or
// after a backlog was produced), and stop.
//
// Two implementations: the SDK's PushConsumer (push_message_source.hpp, the default: what
// applications use), and raw long-polling PULL_MESSAGE per queue (pull_message_source.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mqkit/client/client_config.hpp"

#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/types.hpp"

namespace mqkit::bench {

// Called with each batch of messages read from one queue, possibly from several threads at
// once; must not block.
using MessageHandler =
    std::function<void(const client::MessageQueue& queue, std::span<const client::MessageExt> messages)>;

class MessageSource {
 public:
  virtual ~MessageSource() = default;
  // Takes the current end of each of its queues as the starting point.
  virtual client::Status prepare() = 0;
  // Delivers every message stored after the starting point to `handler` until stop().
  virtual client::Status start(MessageHandler handler) = 0;
  // Stops delivering; once it returns `handler` is not running and will not be called.
  virtual void stop() = 0;
};

struct SourceSettings {
  client::ClientConfig client{};    // name servers and credentials of the run
  std::string group = "mqbench_consumer";
  std::vector<std::string> topics{};
  int consumers = 1;                // sources to make; the topics' queues are split between them
  int pull_batch = 32;              // messages per pull request
  int consume_threads = 4;          // push consumer: listener threads per consumer
};

// ---- Shared by the sources ------------------------------------------------------------------

// One consumer's client (its own connections), and later its share of the queues.
struct ConsumerClient {
  std::shared_ptr<client::ClientInstance> instance;
  std::vector<client::MessageQueue> queues;
};
// `settings.consumers` clients, each knowing the route of every topic.
client::Result<std::vector<ConsumerClient>> connect_consumers(const SourceSettings& settings);
// Every readable queue of `topics`, topic by topic, from `client`'s route cache.
std::vector<client::MessageQueue> all_queues(ConsumerClient& client, const std::vector<std::string>& topics);

// Where a queue ends now, and its master's address.
struct QueueEnd {
  std::string broker_address;
  std::int64_t offset = 0;
};
client::Result<QueueEnd> queue_end(client::ClientInstance& instance, const client::MessageQueue& queue);

// ---- The sources ---------------------------------------------------------------------------

// `settings.consumers` sources, each with its own client connection and a share of the queues
// of `settings.topics` (read from the name server now).
client::Result<std::vector<std::unique_ptr<MessageSource>>> make_pull_sources(const SourceSettings& settings);
// `settings.consumers` push consumers of one group new to the brokers (settings.group plus a
// per-run suffix), each with its own client connection and a fixed share of the queues.
client::Result<std::vector<std::unique_ptr<MessageSource>>> make_push_sources(const SourceSettings& settings);

}  // namespace mqkit::bench
