#include "mqkit/broker/send/send_message_processor.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "append_messages.hpp"
#include "consumer_send_back.hpp"
#include "mqkit/broker/send/schedule_message_service.hpp"
#include "mqkit/broker/send/transaction_service.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/message_trace.hpp"
#include "mqkit/protocol/validation.hpp"
#include "send_checks.hpp"
#include "send_request.hpp"
#include "send_request_headers.hpp"
#include "send_response.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace request_code = protocol::request_code;

namespace {

// Java's Boolean.parseBoolean, which message flags (WAIT, TRAN_MSG) go through.
bool java_boolean(std::optional<std::string_view> text) {
  return text && std::ranges::equal(*text, std::string_view("true"),
                                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// Java's isWaitStoreMsgOK: absent means wait.
bool waits_for_flush(const v1::Properties& properties) {
  const auto wait = get_property(properties, v1::property::kWaitStoreOk);
  return !wait || java_boolean(wait);
}

// A transaction's half message, for the transaction service. (Retries from clients before 4.6.1
// still carry TRAN_MSG and are stored as plain messages, as RocketMQ does.)
bool is_half_message(const OutgoingMessage& m) {
  return java_boolean(get_property(m.properties, v1::property::kTransactionPrepared)) &&
         !(m.reconsume_times > 0 && delay_level_of(m.properties) > 0);
}

// RocketMQ stamps the cluster into every message a producer sends (requests of request-reply
// need it: the responder replies to <CLUSTER>_REPLY_TOPIC), and the broker's region and trace
// switch for message trace (5.x always; 4.x when a send hook is registered, which trace setups
// have). A batch's members get them with the header's other properties.
OutgoingMessage sent_message_from(const SendMessageRequestHeader& header, const SendTarget& target,
                                  const Channel& producer, const BrokerConfig& config) {
  OutgoingMessage m = message_from(header, target, producer);
  if (!config.cluster_name.empty()) set_property(m.properties, v1::property::kCluster, config.cluster_name);
  set_property(m.properties, protocol::property::kMsgRegion, config.region_id);
  set_property(m.properties, protocol::property::kTraceSwitch, config.trace_on ? "true" : "false");
  return m;
}

// What a stored message's answer carries beyond send_response()'s fields.
struct AnswerExtras {
  std::string transaction_id;  // a half message's: the UNIQ_KEY its END_TRANSACTION will carry
  std::string recall_handle;   // a held timer message's (RocketMQ 5.3)
};

// Answers an append with send_response() and `extras`.
AppendedCallback answer_with(const BrokerContext& context, const Responder& responder, std::int32_t queue_id,
                             CountedAs counted, AnswerExtras extras = {}) {
  return [responder, store_host = context.store_host, config = context.config, queue_id, counted = std::move(counted),
          extras = std::move(extras)](v1::Result<AppendedMessages> appended) {
    if (appended) counted.count(*appended);
    RemotingCommand response = send_response(appended, store_host, queue_id, *config);
    if (appended && !extras.transaction_id.empty()) response.ext_fields.set("transactionId", extras.transaction_id);
    if (appended && !extras.recall_handle.empty()) response.ext_fields.set("recallHandle", extras.recall_handle);
    responder.respond(std::move(response));
  };
}

using PropertyViews = std::vector<std::pair<std::string_view, std::string_view>>;

// Appends a batch member's properties as stored to `out`, encoded straight from views of its
// own and the header's: RocketMQ's batch encoder puts the header's properties after the
// member's own, and one the member has already takes its place (set_property's rule).
// `scratch` is reused between members; it ends holding the member's properties.
void append_merged_properties(std::string& out, std::string_view own, const v1::Properties& header,
                              PropertyViews& scratch) {
  scratch.clear();
  while (const auto property = v1::next_property(own)) scratch.push_back(*property);
  for (const auto& [name, value] : header) {
    const auto it = std::ranges::find(scratch, std::string_view(name), &PropertyViews::value_type::first);
    if (it != scratch.end()) {
      it->second = value;
    } else {
      scratch.emplace_back(name, value);
    }
  }
  for (const auto& [name, value] : scratch) v1::append_property(out, name, value);
}

}  // namespace

std::vector<std::int32_t> SendMessageProcessor::codes() const {
  return {request_code::kSendMessage, request_code::kSendMessageV2, request_code::kSendBatchMessage,
          request_code::kConsumerSendMsgBack};
}

void SendMessageProcessor::process(RemotingCommand request, Responder responder) {
  switch (request.code) {
    case request_code::kConsumerSendMsgBack:
      consumer_send_back(context_, request, responder);
      return;
    case request_code::kSendBatchMessage:
      send_batch(std::move(request), responder);
      return;
    default:
      send_message(std::move(request), responder);
      return;
  }
}

void SendMessageProcessor::send_message(RemotingCommand request, const Responder& responder) {
  auto checked = check_single_message_request(context_, request, responder);
  if (auto* refusal = std::get_if<Refusal>(&checked)) return refuse(responder, std::move(*refusal));
  const auto& [header, target] = std::get<0>(checked);
  const BrokerConfig& config = *context_.config;
  OutgoingMessage message = sent_message_from(header, target, *responder.channel(), config);
  const bool half = is_half_message(message);
  if (half && config.reject_transaction_message) {
    return responder.fail(rc::kNoPermission,
                          "the broker[" + config.broker_ip + "] sending transaction message is forbidden");
  }
  message.body = own_body(std::move(request.body));
  const bool wait_for_flush = waits_for_flush(message.properties);
  // WAIT only tells this broker when to answer: RocketMQ saves its bytes in every record.
  erase_property(message.properties, v1::property::kWaitStoreOk);
  if (header.topic.starts_with(protocol::kRetryGroupTopicPrefix)) {
    // A consumer re-sending a message itself: past the group's maximum it is dead. The header
    // counts this delivery already (the message's reconsume times + 1), hence ">", as RocketMQ's
    // handleRetryAndDLQ; a send-back compares the count before it with ">=".
    auto group = find_group(context_, header.topic.substr(protocol::kRetryGroupTopicPrefix.size()));
    if (auto* refusal = std::get_if<Refusal>(&group)) return refuse(responder, std::move(*refusal));
    const auto& group_config = std::get<SubscriptionGroupConfig>(group);
    if (header.reconsume_times > header.max_reconsume_times.value_or(group_config.retry_max_times)) {
      if (auto refusal = move_to_dlq(context_, group_config.group_name, message)) {
        return refuse(responder, std::move(*refusal));
      }
      if (context_.metrics) context_.metrics->count_dead_letter(group_config.group_name, header.topic);
    }
  }
  if (!half) {
    const TimerParking parking = TimerMessageService::park(config, context_.clock(), message);
    if (auto refusal = timer_refusal(parking, config)) return refuse(responder, std::move(*refusal));
    ScheduleMessageService::park(config.delay_level_ms, message);
    // Parked, the message keeps its DELAY or timer properties: it counts as delayed, in the
    // schedule or timer topic.
    CountedAs counted = counted_as(context_, message.topic, message.properties);
    AnswerExtras extras;
    if (parking == TimerParking::kHeld) extras.recall_handle = TimerMessageService::recall_handle(config, message);
    return append_message(context_, std::move(message), wait_for_flush,
                          answer_with(context_, responder, target.queue_id, std::move(counted), std::move(extras)));
  }
  // A half message keeps its DELAY and timer properties until it is committed.
  if (auto prepared = context_.transactions->prepare(message); !prepared) {
    return responder.fail(rc::kSystemError, prepared.message());
  }
  std::string transaction_id(get_property(message.properties, v1::property::kUniqueKey).value_or(""));
  CountedAs counted = counted_as(context_, message.topic, message.properties);  // TRAN_MSG kept, half topic
  append_message(context_, std::move(message), wait_for_flush,
                 answer_with(context_, responder, target.queue_id, std::move(counted), {std::move(transaction_id), {}}));
}

void SendMessageProcessor::send_batch(RemotingCommand request, const Responder& responder) {
  auto checked = check_send_request(context_, request, responder);
  if (auto* refusal = std::get_if<Refusal>(&checked)) return refuse(responder, std::move(*refusal));
  const auto& [header, target] = std::get<0>(checked);
  if (header.topic.starts_with(protocol::kRetryGroupTopicPrefix)) {
    return responder.fail(rc::kMessageIllegal, "batch request does not support retry group " + header.topic);
  }
  if ((header.sys_flag & v1::sys_flag::kTransactionMask) == v1::sys_flag::kTransactionPrepared) {
    return responder.fail(rc::kMessageIllegal, "batch messages cannot be transactional (sysFlag is PREPARED)");
  }
  const BrokerConfig& config = *context_.config;
  const v1::StoredSlice body = own_body(std::move(request.body));
  auto items = v1::decode_batch(body.bytes);
  if (!items) return responder.fail(rc::kMessageIllegal, "the batch body is malformed: " + items.status().message());
  if (items->empty()) return responder.fail(rc::kMessageIllegal, "the batch holds no message");
  OutgoingMessage shared = sent_message_from(header, target, *responder.channel(), config);
  // Each message gets its own properties below: copying the header's with the rest is waste.
  const v1::Properties shared_properties = std::exchange(shared.properties, {});
  BatchMembers batch;
  batch.members.reserve(items->size());
  batch.keep_alive = body.keep_alive;
  std::size_t properties_size = 0;
  for (const auto& [name, value] : shared_properties) properties_size += v1::encoded_property_size(name, value);
  properties_size *= items->size();
  for (const v1::BatchItem& item : *items) properties_size += item.properties.size();
  // Each member carries the header's properties: a small body of many messages could otherwise
  // make one request build gigabytes. RocketMQ encodes a batch within its message size limit.
  if (static_cast<std::int64_t>(properties_size) > config.max_message_size) {
    return responder.fail(rc::kMessageIllegal,
                          "the batch's " + std::to_string(items->size()) + " messages with the request's properties " +
                              "added to each come to " + std::to_string(properties_size) +
                              " bytes of properties, more than the message size limit of " +
                              std::to_string(config.max_message_size) + " bytes");
  }
  batch.properties.reserve(properties_size);
  PropertyViews scratch;
  for (const v1::BatchItem& item : *items) {
    if (auto refusal = check_message_size(config, item.body.size(), item.properties.size())) {
      return refuse(responder, std::move(*refusal));
    }
    const std::size_t begin = batch.properties.size();
    append_merged_properties(batch.properties, item.properties, shared_properties, scratch);
    const bool has_delay = std::ranges::find(scratch, v1::property::kDelayLevel, &PropertyViews::value_type::first) !=
                           scratch.end();
    if (has_delay && delay_level_of(std::string_view(batch.properties).substr(begin)) > 0) {
      return responder.fail(rc::kMessageIllegal, "batch messages cannot be delayed (DELAY is set)");
    }
    const auto transactional = std::ranges::find(scratch, v1::property::kTransactionPrepared,
                                                 &PropertyViews::value_type::first);
    if (transactional != scratch.end() && java_boolean(transactional->second)) {
      return responder.fail(rc::kMessageIllegal, "batch messages cannot be transactional (TRAN_MSG is set)");
    }
    batch.members.push_back({item.flag, item.body, batch.properties.size()});
  }
  CountedAs counted = counted_as(context_, shared.topic, shared_properties);
  append_batch(context_, std::move(shared), std::move(batch), waits_for_flush(shared_properties),
               answer_with(context_, responder, target.queue_id, std::move(counted)));
}

}  // namespace mqkit::broker
