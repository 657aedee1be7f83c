// PullMessageSource: a MessageSource over plain long-polling PULL_MESSAGE requests, one pull in
// flight per queue (what RocketMQ's push consumer does underneath, without rebalancing or offset
// commits: a benchmark owns its queues for the whole run).
//
// Threads: pulls are asynchronous; their callbacks (transport I/O threads) deliver to the
// handler and send the next pull at once. A failed pull is retried from the source's own retry
// thread after a short pause.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "message_source.hpp"
#include "mqkit/client/client_instance.hpp"

namespace mqkit::bench {

class PullMessageSource final : public MessageSource {
 public:
  PullMessageSource(std::shared_ptr<client::ClientInstance> instance, std::vector<client::MessageQueue> queues,
                    std::string group, int pull_batch);
  ~PullMessageSource() override;

  client::Status prepare() override;
  client::Status start(MessageHandler handler) override;
  void stop() override;

 private:
  struct Cursor {
    client::MessageQueue queue;
    std::string broker_address;
    std::int64_t offset = 0;
  };
  void pull(std::size_t index);
  void on_pulled(std::size_t index, client::Result<client::PullResult> result);
  void retry_later(std::size_t index);
  void finished_one();
  void retry_loop();

  std::shared_ptr<client::ClientInstance> instance_;
  std::string group_;
  int pull_batch_;
  std::vector<Cursor> cursors_;
  MessageHandler handler_;

  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t in_flight_ = 0;                // pulls awaiting their callback
  std::vector<std::size_t> retries_;         // cursors to pull again after a pause
  std::thread retry_thread_;
};

}  // namespace mqkit::bench
