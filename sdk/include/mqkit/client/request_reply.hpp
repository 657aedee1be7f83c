// Request-reply messaging (RocketMQ 4.6+, RPC over the queue), wire-compatible with RocketMQ's
// Java clients (DefaultMQProducer.request, MessageUtil.createReplyMessage):
//
//   requester:  auto reply = producer.request(Message("RequestTopic", "ping"), 3000ms);
//   responder:  a push consumer of RequestTopic answers each request it consumes:
//                 auto reply = create_reply_message(request, "pong");
//                 if (reply) reply_producer.send(std::move(*reply));
//
// Producer::request tags the request with CORRELATION_ID, REPLY_TO_CLIENT (its client id) and
// TTL; the broker adds CLUSTER when it stores it. The reply goes to "<CLUSTER>_REPLY_TOPIC" with
// MSG_TYPE=reply (sent as SEND_REPLY_MESSAGE_V2); the broker pushes it to the requesting client,
// which hands it to the waiting request (protocol/request_reply.hpp, docs/sdk.md).
#pragma once

#include <functional>
#include <string>

#include "mqkit/client/message.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/types.hpp"

namespace mqkit::client {

// The reply to a request, or why there is none: Timeout "request timeout, no reply message after
// N ms ..." when no reply came in time; the send's own error when the request could not be sent.
using RequestCallback = std::function<void(Result<MessageExt>)>;

// The reply to `request` (a message consumed from a request topic) carrying `body`: topic
// "<CLUSTER>_REPLY_TOPIC", MSG_TYPE=reply and the request's CORRELATION_ID, REPLY_TO_CLIENT and
// TTL. InvalidArgument naming the property when the request lacks CLUSTER (it was not stored by a
// broker), REPLY_TO_CLIENT or CORRELATION_ID (it was not sent by a request).
Result<Message> create_reply_message(const MessageExt& request, std::string body);

}  // namespace mqkit::client
