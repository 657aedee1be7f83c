// PushMessageSource: a MessageSource over the SDK's PushConsumer — what applications consume
// with, so the end-to-end latency includes its pull → consume-thread handoff.
//
// prepare() commits the current end of the consumer's queues as its group's offsets (a group
// new to the brokers, named per run), so the consumer starts there whether it starts before
// producing or after a backlog was produced. Each consumer owns a fixed share of the queues
// (the by_config allocator), so several consumers never hand queues to each other mid-run
// (which would redeliver messages and count as duplicates).
//
// Threads: the handler runs on the consumer's consume threads (SourceSettings::consume_threads).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "message_source.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::bench {

class PushMessageSource final : public MessageSource {
 public:
  // `config.client.allocator` already names this consumer's queues; `owned` are the queues it
  // will own (their offsets are committed by prepare()).
  PushMessageSource(client::ConsumerConfig config, std::shared_ptr<client::ClientInstance> instance,
                    std::vector<std::string> topics, std::vector<client::MessageQueue> owned);
  ~PushMessageSource() override;

  client::Status prepare() override;
  client::Status start(MessageHandler handler) override;
  void stop() override;

 private:
  client::ConsumerConfig config_;
  std::shared_ptr<client::ClientInstance> instance_;
  std::vector<std::string> topics_;
  std::vector<client::MessageQueue> owned_;
  std::unique_ptr<client::PushConsumer> consumer_;
};

}  // namespace mqkit::bench
