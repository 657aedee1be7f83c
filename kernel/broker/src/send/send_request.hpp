// A producer's send request read into what the send processors store: the header checked
// against the broker and its topics, the fields every message of the request shares, and how
// its messages count in the metrics.
// Shared by SEND_MESSAGE(_V2), SEND_BATCH_MESSAGE and SEND_REPLY_MESSAGE(_V2).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "append_messages.hpp"

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"
#include "send_checks.hpp"
#include "send_request_headers.hpp"

namespace mqkit::broker {

// The header (its keys chosen by the request code), the broker's write permission and the
// topic (created when allowed) with the queue to store into.
OrRefusal<std::pair<SendMessageRequestHeader, SendTarget>> check_send_request(BrokerContext& context,
                                                                              const RemotingCommand& request,
                                                                              const Responder& responder);

// check_send_request for a request of one message, whose body and properties must also be
// within the broker's limits (check_message_size).
OrRefusal<std::pair<SendMessageRequestHeader, SendTarget>> check_single_message_request(BrokerContext& context,
                                                                                        const RemotingCommand& request,
                                                                                        const Responder& responder);

// What every message of a send request takes from its header and connection: topic, queue,
// flags (MULTI_TAGS for a MULTI_TAG topic), born time and host, reconsume times, the header's
// properties. Body and broker-added properties are the caller's.
OutgoingMessage message_from(const SendMessageRequestHeader& header, const SendTarget& target, const Channel& producer);

// The request body in a slice that keeps it alive, so the store reads it where it is.
plugin::v1::StoredSlice own_body(std::vector<std::uint8_t> body);

// How a send request's stored messages count: in the broker's stats (TOPIC_PUT_NUMS and the
// totals, BrokerStats) and, when metrics are on, in rocketmq_messages_in_total (docs/metrics.md),
// with the type their properties give them. Both count them in the topic they are stored in, as
// RocketMQ does: the schedule topic for a delayed message, the half topic for a transaction's.
struct CountedAs {
  std::shared_ptr<BrokerStats> stats;
  std::shared_ptr<BrokerMetrics> metrics;
  std::string topic;
  MessageType type = MessageType::kNormal;

  void count(const AppendedMessages& appended) const;
};
CountedAs counted_as(const BrokerContext& context, const std::string& stored_topic,
                     const plugin::v1::Properties& properties);

}  // namespace mqkit::broker
