// Asking a group's online consumers for the offsets they hold in memory
// (INVOKE_BROKER_TO_GET_CONSUMER_STATUS, RocketMQ's Broker2Client.getConsumeStatus; mqadmin
// getConsumerStatus). Each consumer, or only the one named, gets GET_CONSUMER_STATUS_FROM_CLIENT
// over its own connection; the answer lists every answer by client id (GetConsumerStatusBody's
// consumerTable). A consumer that fails or does not answer within kConsumerStatusTimeout is left
// out, as RocketMQ leaves it out; RocketMQ asks one consumer after the other, mqkit all at once,
// answering when the last is in.
//
// Any request thread; the answer goes from the thread of the last consumer's answer.
#pragma once

#include <chrono>
#include <string>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

// RocketMQ waits this long for each consumer.
inline constexpr std::chrono::milliseconds kConsumerStatusTimeout{5000};

struct ConsumerStatusRequest {
  std::string topic;
  std::string group;
  std::string client_id;  // empty: every online consumer of the group
};

// SYSTEM_ERROR when no consumer of the group is online or one is older than 3.0.7 (RocketMQ's
// checks); SUCCESS with an empty table when the named client is not among them.
void gather_consumer_status(const BrokerContext& context, const ConsumerStatusRequest& request,
                            const Responder& responder);

}  // namespace mqkit::broker
