// The custom headers of the send requests, decoded and checked the way RocketMQ's
// decodeCommandCustomHeader does: a missing required field is "the custom field <name> is null",
// named as it travels (SEND_MESSAGE_V2's one-letter keys stay one letter).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::broker {

// SendMessageRequestHeader (V1 names; V2 "a".."n").
struct SendMessageRequestHeader {
  std::string producer_group;
  std::string topic;
  std::string default_topic;
  std::int32_t default_topic_queue_nums = 0;
  std::int32_t queue_id = 0;
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;
  std::int32_t flag = 0;
  std::string properties;
  std::int32_t reconsume_times = 0;
  bool unit_mode = false;
  bool batch = false;
  std::optional<std::int32_t> max_reconsume_times;
};

// Reads SEND_MESSAGE's long keys, or the one-letter keys of SEND_MESSAGE_V2 and
// SEND_BATCH_MESSAGE (chosen by the request code).
plugin::v1::Result<SendMessageRequestHeader> parse_send_message_header(const plugin::v1::RemotingCommand& request);

// ConsumerSendMsgBackRequestHeader.
struct ConsumerSendMsgBackRequestHeader {
  std::int64_t offset = 0;  // commit log offset of the consumed message
  std::string group;
  std::int32_t delay_level = 0;
  std::string origin_msg_id;
  std::string origin_topic;
  bool unit_mode = false;
  std::optional<std::int32_t> max_reconsume_times;
};

plugin::v1::Result<ConsumerSendMsgBackRequestHeader> parse_send_back_header(const plugin::v1::RemotingCommand& request);

}  // namespace mqkit::broker
