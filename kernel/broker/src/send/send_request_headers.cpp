#include "send_request_headers.hpp"

#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {

using plugin::v1::ExtFields;
using plugin::v1::Result;
using protocol::optional_int32;
using protocol::require_int32;

namespace {

// One header field under both of its names.
struct Field {
  std::string_view v1;
  std::string_view v2;
};

constexpr Field kProducerGroup{"producerGroup", "a"};
constexpr Field kTopic{"topic", "b"};
constexpr Field kDefaultTopic{"defaultTopic", "c"};
constexpr Field kDefaultTopicQueueNums{"defaultTopicQueueNums", "d"};
constexpr Field kQueueId{"queueId", "e"};
constexpr Field kSysFlag{"sysFlag", "f"};
constexpr Field kBornTimestamp{"bornTimestamp", "g"};
constexpr Field kFlag{"flag", "h"};
constexpr Field kProperties{"properties", "i"};
constexpr Field kReconsumeTimes{"reconsumeTimes", "j"};
constexpr Field kUnitMode{"unitMode", "k"};
constexpr Field kMaxReconsumeTimes{"maxReconsumeTimes", "l"};
constexpr Field kBatch{"batch", "m"};

}  // namespace

Result<SendMessageRequestHeader> parse_send_message_header(const plugin::v1::RemotingCommand& request) {
  // SEND_MESSAGE and SEND_REPLY_MESSAGE carry SendMessageRequestHeader; the others its V2 form.
  const bool short_keys = request.code != protocol::request_code::kSendMessage &&
                          request.code != protocol::request_code::kSendReplyMessage;
  const auto name = [short_keys](const Field& f) { return short_keys ? f.v2 : f.v1; };
  const ExtFields& f = request.ext_fields;
  SendMessageRequestHeader h;
  MQKIT_ASSIGN_OR_RETURN(h.producer_group, protocol::require(f, name(kProducerGroup)));
  MQKIT_ASSIGN_OR_RETURN(h.topic, protocol::require(f, name(kTopic)));
  MQKIT_ASSIGN_OR_RETURN(h.default_topic, protocol::require(f, name(kDefaultTopic)));
  MQKIT_ASSIGN_OR_RETURN(h.default_topic_queue_nums, require_int32(f, name(kDefaultTopicQueueNums)));
  MQKIT_ASSIGN_OR_RETURN(h.queue_id, require_int32(f, name(kQueueId)));
  MQKIT_ASSIGN_OR_RETURN(h.sys_flag, require_int32(f, name(kSysFlag)));
  MQKIT_ASSIGN_OR_RETURN(h.born_timestamp, protocol::require_int(f, name(kBornTimestamp)));
  MQKIT_ASSIGN_OR_RETURN(h.flag, require_int32(f, name(kFlag)));
  h.properties = std::string(f.get(name(kProperties)).value_or(""));
  MQKIT_ASSIGN_OR_RETURN(std::optional<std::int32_t> reconsume_times, optional_int32(f, name(kReconsumeTimes)));
  h.reconsume_times = reconsume_times.value_or(0);
  h.unit_mode = f.get_bool(name(kUnitMode));
  h.batch = f.get_bool(name(kBatch));
  MQKIT_ASSIGN_OR_RETURN(h.max_reconsume_times, optional_int32(f, name(kMaxReconsumeTimes)));
  return h;
}

Result<ConsumerSendMsgBackRequestHeader> parse_send_back_header(const plugin::v1::RemotingCommand& request) {
  const ExtFields& f = request.ext_fields;
  ConsumerSendMsgBackRequestHeader h;
  MQKIT_ASSIGN_OR_RETURN(h.offset, protocol::require_int(f, "offset"));
  MQKIT_ASSIGN_OR_RETURN(h.group, protocol::require(f, "group"));
  MQKIT_ASSIGN_OR_RETURN(h.delay_level, require_int32(f, "delayLevel"));
  h.origin_msg_id = std::string(f.get("originMsgId").value_or(""));
  h.origin_topic = std::string(f.get("originTopic").value_or(""));
  h.unit_mode = f.get_bool("unitMode");
  MQKIT_ASSIGN_OR_RETURN(h.max_reconsume_times, optional_int32(f, "maxReconsumeTimes"));
  return h;
}

}  // namespace mqkit::broker
