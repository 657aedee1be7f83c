// SendMessageProcessor: how producers and consumers put messages into this broker — RocketMQ's
// SendMessageProcessor (rocketmq-facts §1.9, §5.1, §5.3):
//   SEND_MESSAGE (10) and SEND_MESSAGE_V2 (310, one-letter header keys): one message;
//   SEND_BATCH_MESSAGE (320): several messages to one queue, consecutive queue offsets;
//   CONSUMER_SEND_MSG_BACK (36): a consumed message back to %RETRY%group (or %DLQ%group).
// Messages with a delay level go through ScheduleMessageService::park().
//
// Threads: process() runs on transport worker threads, many at once, and keeps no state of its
// own. The answer is sent from the store's append callback: on the calling thread, or later on
// the store's flush thread when the producer waits for a sync flush.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class SendMessageProcessor final : public RequestProcessor {
 public:
  // `context` must outlive the processor and every append it started.
  explicit SendMessageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  void send_message(RemotingCommand request, const Responder& responder);
  void send_batch(RemotingCommand request, const Responder& responder);

  BrokerContext& context_;
};

}  // namespace mqkit::broker
