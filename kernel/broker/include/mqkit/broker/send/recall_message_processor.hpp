// RecallMessageProcessor: RECALL_MESSAGE (370), RocketMQ 5.3's RecallMessageProcessor. A producer
// gives back the recall handle of a timer message's send answer; before the message is due, the
// broker writes a deletion marker for it (TIMER_DEL_UNIQKEY, real topic + UNIQ_KEY) through the
// timer topic, and the timer service cancels the waiting message when it reads the marker
// (docs/timer-messages.md). Off unless recall_message_enable, as in RocketMQ.
//
// Threads: the transport's request threads; the answer comes from the store's callback.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class RecallMessageProcessor final : public RequestProcessor {
 public:
  explicit RecallMessageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  BrokerContext& context_;
};

}  // namespace mqkit::broker
