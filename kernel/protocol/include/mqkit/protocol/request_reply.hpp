// RocketMQ request-reply (4.6+, RPC over the queue) on the wire: the properties that tie a reply
// to its request, the reply topic, and the header of PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker →
// requesting client). Shared by the broker (ReplyMessageProcessor) and the SDK (Producer::request,
// create_reply_message) so each is spelled and coded in one place.
//
//   requester: sends the request with CORRELATION_ID, REPLY_TO_CLIENT (its client id) and TTL;
//   broker:    stores it with CLUSTER (its cluster name);
//   responder: replies to "<CLUSTER>_REPLY_TOPIC" with MSG_TYPE=reply and the request's
//              CORRELATION_ID, REPLY_TO_CLIENT and TTL, by SEND_REPLY_MESSAGE(_V2);
//   broker:    pushes the reply to the connection of REPLY_TO_CLIENT, stamped PUSH_REPLY_TIME.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::protocol::reply {

// MixAll.REPLY_TOPIC_POSTFIX and REPLY_MESSAGE_FLAG.
inline constexpr std::string_view kReplyTopicPostfix = "REPLY_TOPIC";
inline constexpr std::string_view kReplyMessageFlag = "reply";

// "<cluster>_REPLY_TOPIC": every broker of the cluster has it (MixAll.getReplyTopic).
std::string reply_topic_of(std::string_view cluster);

// MessageConst property names (CLUSTER is plugin::v1::property::kCluster).
namespace property {
inline constexpr std::string_view kCorrelationId = "CORRELATION_ID";
inline constexpr std::string_view kReplyToClient = "REPLY_TO_CLIENT";
inline constexpr std::string_view kTtl = "TTL";  // the request's timeout, ms as decimal text
inline constexpr std::string_view kMessageType = "MSG_TYPE";
inline constexpr std::string_view kPushReplyTime = "PUSH_REPLY_TIME";  // set by the broker, ms
inline constexpr std::string_view kReplyArriveTime = "ARRIVE_TIME";    // set by the requester, ms
}  // namespace property

// Whether encoded properties ("name\x01value\x02...") mark a reply (MSG_TYPE=reply): the
// producer then sends with SEND_REPLY_MESSAGE_V2 instead of SEND_MESSAGE_V2.
bool is_reply(std::string_view encoded_properties);

// ReplyMessageRequestHeader: the reply's send header, plus where and when the broker got it.
// Hosts are text as Java's SocketAddress.toString() writes them ("/127.0.0.1:10911").
struct ReplyMessageHeader {
  std::string producer_group;
  std::string topic;
  std::string default_topic;
  std::int32_t default_topic_queue_nums = 0;
  std::int32_t queue_id = 0;
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;
  std::int32_t flag = 0;
  std::string properties;  // encoded
  std::optional<std::int32_t> reconsume_times;
  bool unit_mode = false;
  std::string born_host;
  std::string store_host;
  std::int64_t store_timestamp = 0;
};

void write(const ReplyMessageHeader& header, plugin::v1::ExtFields& fields);
// Required (@CFNotNull): producerGroup, topic, defaultTopic, defaultTopicQueueNums, queueId,
// sysFlag, bornTimestamp, flag, bornHost, storeHost, storeTimestamp ("the custom field <name> is
// null" when absent; numbers must be numbers).
plugin::v1::Result<ReplyMessageHeader> read_reply_message_header(const plugin::v1::ExtFields& fields);

// "ip:port" of a host as Java writes it ("/ip:port", "name/ip:port") or as mqkit does ("ip:port").
std::string_view host_address_of(std::string_view java_socket_address);

}  // namespace mqkit::protocol::reply
