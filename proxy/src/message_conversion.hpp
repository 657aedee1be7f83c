// From a RocketMQ 5 SendMessageRequest to the SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE a broker
// takes, with RocketMQ's proxy's checks and property mapping (docs/proxy.md "Sending"):
//   tag → TAGS, keys → KEYS (space-separated), message id → UNIQ_KEY, message group →
//   __SHARDINGKEY, delivery timestamp → TIMER_DELIVER_MS, delivery attempt → RECONSUME_TIME,
//   trace context → TRACE_CONTEXT, born host / timestamp → __BORNHOST / BORN_TIMESTAMP, and the
//   topic as PGROUP (RocketMQ's proxy names the producer group after the topic, so the broker's
//   checks of a transaction come back to the proxy for that topic); a TRANSACTION message as a
//   half message (TRAN_MSG, its recovery duration as CHECK_IMMUNITY_TIME_IN_SECONDS);
//   user properties as they are. A gzip body is inflated, so every consumer reads it plainly.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "apache/rocketmq/v2/service.pb.h"
#include "grpc_status.hpp"
#include "mqkit/client/client_api.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/proxy/proxy_settings.hpp"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

struct BrokerBoundSend {
  std::string topic{};          // as brokers name it: "<namespace>%<topic>" in a namespace
  std::string message_group{};  // of a single message; it picks the queue
  std::size_t message_count = 0;
  bool transactional = false;  // a half message (TRAN_MSG, TRANSACTION_PREPARED)
  client::SendMessageRequest request{};  // the caller sets queue_id
};

// The broker's name for a resource: RocketMQ's namespace rule (protocol/namespace.hpp), so
// "<namespace>%<name>" when it has one.
std::string wire_name(const v2::Resource& resource);

// The request to send, or the Status (RocketMQ's code and words) refusing it. `peer_host` is
// the client's address, the born host when the message does not name one.
std::variant<BrokerBoundSend, v2::Status> to_broker_send(const v2::SendMessageRequest& request,
                                                         const ProxySettings& settings, std::string_view peer_host,
                                                         std::int64_t now_ms);

// A popped message as RocketMQ 5 clients receive it (RocketMQ's GrpcConverter): TAGS, KEYS,
// UNIQ_KEY, __SHARDINGKEY, TIMER_DELIVER_MS, TRACE_CONTEXT, born and store hosts and times back in
// their system properties, the body's MD5 digest, delivery attempt = reconsume times + 1, the
// message's POP_CK as its receipt handle; the other non-system properties as user properties.
// `topic` is the resource the client asked for (its namespace kept).
v2::Message to_grpc_message(const client::MessageExt& message, const v2::Resource& topic);

}  // namespace mqkit::proxy
