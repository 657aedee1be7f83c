// MessageSource: the consumer side of a benchmark, as the run sees it — the seam between mqbench
// and however messages are consumed. The run only needs: position at the end of every queue
// before producing (so only this run's messages count), start delivering later (at once, or
// after a backlog was produced), and stop.
//
// Today's implementation long-polls PULL_MESSAGE per queue (pull_message_source.hpp). A push
// consumer fits the same shape: prepare() commits the queues' max offsets for its group and
// start() starts the consumer from the committed offsets, delivering from its consume threads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/types.hpp"

namespace mqkit::bench {

// Called with each batch of messages read from one queue, possibly from several threads at
// once; must not block.
using MessageHandler =
    std::function<void(const client::MessageQueue& queue, const std::vector<client::MessageExt>& messages)>;

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
  std::string namesrv{};            // "host:port;host:port"
  std::string group = "mqbench_consumer";
  std::vector<std::string> topics{};
  int consumers = 1;                // sources to make; the topics' queues are split between them
  int pull_batch = 32;              // messages per pull request
};

// `settings.consumers` sources, each with its own client connection and a share of the queues
// of `settings.topics` (read from the name server now).
client::Result<std::vector<std::unique_ptr<MessageSource>>> make_pull_sources(const SourceSettings& settings);

}  // namespace mqkit::bench
