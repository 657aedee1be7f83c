#include "mqkit/protocol/request_reply.hpp"

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::protocol::reply {

using plugin::v1::ExtFields;
using plugin::v1::Result;

namespace {

// ReplyMessageRequestHeader's field names.
constexpr std::string_view kProducerGroup = "producerGroup";
constexpr std::string_view kTopic = "topic";
constexpr std::string_view kDefaultTopic = "defaultTopic";
constexpr std::string_view kDefaultTopicQueueNums = "defaultTopicQueueNums";
constexpr std::string_view kQueueId = "queueId";
constexpr std::string_view kSysFlag = "sysFlag";
constexpr std::string_view kBornTimestamp = "bornTimestamp";
constexpr std::string_view kFlag = "flag";
constexpr std::string_view kProperties = "properties";
constexpr std::string_view kReconsumeTimes = "reconsumeTimes";
constexpr std::string_view kUnitMode = "unitMode";
constexpr std::string_view kBornHost = "bornHost";
constexpr std::string_view kStoreHost = "storeHost";
constexpr std::string_view kStoreTimestamp = "storeTimestamp";

void put(ExtFields& fields, std::string_view name, std::string value) { fields.set(std::string(name), std::move(value)); }
void put(ExtFields& fields, std::string_view name, std::int64_t value) { fields.set(std::string(name), value); }

}  // namespace

std::string reply_topic_of(std::string_view cluster) {
  std::string topic(cluster);
  topic += '_';
  topic += kReplyTopicPostfix;
  return topic;
}

bool is_reply(std::string_view encoded_properties) {
  return plugin::v1::find_property(encoded_properties, property::kMessageType) == kReplyMessageFlag;
}

void write(const ReplyMessageHeader& header, ExtFields& fields) {
  fields.reserve(fields.size() + 14);
  put(fields, kProducerGroup, header.producer_group);
  put(fields, kTopic, header.topic);
  put(fields, kDefaultTopic, header.default_topic);
  put(fields, kDefaultTopicQueueNums, std::int64_t{header.default_topic_queue_nums});
  put(fields, kQueueId, std::int64_t{header.queue_id});
  put(fields, kSysFlag, std::int64_t{header.sys_flag});
  put(fields, kBornTimestamp, header.born_timestamp);
  put(fields, kFlag, std::int64_t{header.flag});
  put(fields, kProperties, header.properties);
  if (header.reconsume_times) put(fields, kReconsumeTimes, std::int64_t{*header.reconsume_times});
  fields.set(std::string(kUnitMode), header.unit_mode);
  put(fields, kBornHost, header.born_host);
  put(fields, kStoreHost, header.store_host);
  put(fields, kStoreTimestamp, header.store_timestamp);
}

Result<ReplyMessageHeader> read_reply_message_header(const ExtFields& fields) {
  ReplyMessageHeader h;
  MQKIT_ASSIGN_OR_RETURN(h.producer_group, require(fields, kProducerGroup));
  MQKIT_ASSIGN_OR_RETURN(h.topic, require(fields, kTopic));
  MQKIT_ASSIGN_OR_RETURN(h.default_topic, require(fields, kDefaultTopic));
  MQKIT_ASSIGN_OR_RETURN(h.default_topic_queue_nums, require_int32(fields, kDefaultTopicQueueNums));
  MQKIT_ASSIGN_OR_RETURN(h.queue_id, require_int32(fields, kQueueId));
  MQKIT_ASSIGN_OR_RETURN(h.sys_flag, require_int32(fields, kSysFlag));
  MQKIT_ASSIGN_OR_RETURN(h.born_timestamp, require_int(fields, kBornTimestamp));
  MQKIT_ASSIGN_OR_RETURN(h.flag, require_int32(fields, kFlag));
  h.properties = std::string(fields.get(kProperties).value_or(""));
  MQKIT_ASSIGN_OR_RETURN(h.reconsume_times, optional_int32(fields, kReconsumeTimes));
  h.unit_mode = fields.get_bool(kUnitMode);
  MQKIT_ASSIGN_OR_RETURN(h.born_host, require(fields, kBornHost));
  MQKIT_ASSIGN_OR_RETURN(h.store_host, require(fields, kStoreHost));
  MQKIT_ASSIGN_OR_RETURN(h.store_timestamp, require_int(fields, kStoreTimestamp));
  return h;
}

std::string_view host_address_of(std::string_view java_socket_address) {
  const auto slash = java_socket_address.find('/');
  return slash == std::string_view::npos ? java_socket_address : java_socket_address.substr(slash + 1);
}

}  // namespace mqkit::protocol::reply
