// ReplyMessageProcessor: SEND_REPLY_MESSAGE (324) and SEND_REPLY_MESSAGE_V2 (325), a responder's
// reply to a request (RocketMQ's ReplyMessageProcessor; protocol/request_reply.hpp).
//
// The reply goes through the send path's header parsing and checks, then to the requester: the
// producer connection of the client its REPLY_TO_CLIENT names gets PUSH_REPLY_MESSAGE_TO_CLIENT
// (ReplyMessageRequestHeader, the reply's body, PUSH_REPLY_TIME added to its properties). With
// store_reply_message_enable the reply is also stored, as sent, in its topic
// (<cluster>_REPLY_TOPIC). The responder's answer:
//   push answered SUCCESS: SUCCESS, with the stored message's msgId / queueOffset, or msgId "0"
//                          and queueOffset 0 when it was not stored;
//   otherwise:             SYSTEM_ERROR with RocketMQ's remark (no REPLY_TO_CLIENT, no
//                          connection of that client, the push failed or was refused).
// A failed store is logged; it does not change the answer (as in RocketMQ).
//
// Threads: process() runs on transport worker threads and never waits: the push is an async
// invoke (bounded by kCallClientTimeout) and the store's append answers through its callback.
// Whichever of the two finishes last answers the responder, on a transport thread, the store's
// thread or the calling thread.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class ReplyMessageProcessor final : public RequestProcessor {
 public:
  // `context` must outlive the processor and every push and append it started.
  explicit ReplyMessageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  BrokerContext& context_;
};

}  // namespace mqkit::broker
