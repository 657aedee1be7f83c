// The checks a message passes before it is stored, with RocketMQ's response codes and remarks
// (AbstractSendMessageProcessor.msgCheck and friends), and the broker's own retry/DLQ topics.
// Each returns what to store into, or a Refusal: the error response to send instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"
#include "mqkit/broker/send/timer_message_service.hpp"
#include "send_request_headers.hpp"

namespace mqkit::broker {

struct Refusal {
  std::int32_t code = 0;
  std::string remark;
};

template <typename T>
using OrRefusal = std::variant<T, Refusal>;

inline void refuse(const Responder& responder, Refusal refusal) {
  responder.fail(refusal.code, std::move(refusal.remark));
}

// The answer RocketMQ gives a timer message park() would not hold (WHEEL_TIMER_MSG_ILLEGAL,
// WHEEL_TIMER_NOT_ENABLE); nullopt for one it held or that is no timer message.
std::optional<Refusal> timer_refusal(TimerParking parking, const BrokerConfig& config);

// Producers may send only while the broker's permission includes write.
std::optional<Refusal> check_broker_writable(const BrokerConfig& config);

struct SendTarget {
  protocol::TopicConfig topic;
  std::int32_t queue_id = 0;  // the requested queue, or a random writable one when negative
};

// Topic name, topics producers may not send to, auto creation (TBW102; %RETRY% topics with the
// group's retry queues), topic write permission and queue id.
OrRefusal<SendTarget> resolve_send_target(BrokerContext& context, const SendMessageRequestHeader& header,
                                          std::string_view producer_address);

// Body and properties within the broker's limits.
std::optional<Refusal> check_message_size(const BrokerConfig& config, std::size_t body_size,
                                          std::size_t properties_size);

// The group's settings (created on first use when auto creation is on).
OrRefusal<SubscriptionGroupConfig> find_group(BrokerContext& context, const std::string& group);
// %RETRY%group with the group's retry queues, created if absent.
OrRefusal<protocol::TopicConfig> ensure_retry_topic(BrokerContext& context, const SubscriptionGroupConfig& group);
// %DLQ%group with one read-write queue, created if absent.
OrRefusal<protocol::TopicConfig> ensure_dlq_topic(BrokerContext& context, const std::string& group);

// Sends `message` to %DLQ%group instead, undelayed: a retry beyond the group's maximum.
std::optional<Refusal> move_to_dlq(BrokerContext& context, const std::string& group, OutgoingMessage& message);

// A queue in [0, queue_nums); queue_nums > 0.
std::int32_t random_queue_id(std::int32_t queue_nums);

}  // namespace mqkit::broker
