#include "consumer_send_back.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <variant>

#include "append_messages.hpp"
#include "mqkit/broker/send/schedule_message_service.hpp"
#include "mqkit/broker/send/timer_message_service.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "send_checks.hpp"
#include "send_request_headers.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;

OutgoingMessage retry_copy(const StoredRecordAt& original, const std::string& retry_topic, std::int32_t queue_id) {
  const v1::RecordView& r = original.record;
  OutgoingMessage m = copy_of(r, original.slice.keep_alive);
  m.topic = retry_topic;
  m.queue_id = queue_id;
  m.reconsume_times = v1::next_reconsume_times(r.reconsume_times);
  if (!get_property(m.properties, v1::property::kRetryTopic)) {
    set_property(m.properties, v1::property::kRetryTopic, std::string(r.topic));
  }
  // RocketMQ marks the copy WAIT=false in the stored properties too.
  set_property(m.properties, v1::property::kWaitStoreOk, "false");
  // The first send-back names the original by its offset message id (the header's originMsgId
  // is only informative: RocketMQ ignores it here too).
  const auto origin = get_property(m.properties, v1::property::kOriginMessageId);
  if (!origin || origin->find_first_not_of(' ') == std::string_view::npos) {
    set_property(m.properties, v1::property::kOriginMessageId,
                 v1::make_offset_message_id(r.store_host, r.commit_offset));
  }
  return m;
}

void consumer_send_back(BrokerContext& context, const RemotingCommand& request, const Responder& responder) {
  auto header = parse_send_back_header(request);
  if (!header) return responder.fail(rc::kSystemError, header.status().message());
  auto group = find_group(context, header->group);
  if (auto* refusal = std::get_if<Refusal>(&group)) return refuse(responder, std::move(*refusal));
  const auto& group_config = std::get<SubscriptionGroupConfig>(group);
  if (auto refusal = check_broker_writable(*context.config)) return refuse(responder, std::move(*refusal));
  if (group_config.retry_queue_nums <= 0) {
    // The group does not want retries: the message is dropped, as RocketMQ does.
    RemotingCommand response;
    response.code = rc::kSuccess;
    return responder.respond(std::move(response));
  }
  auto retry = ensure_retry_topic(context, group_config);
  if (auto* refusal = std::get_if<Refusal>(&retry)) return refuse(responder, std::move(*refusal));
  auto original = read_record_at(context, header->offset);
  if (!original) {
    return responder.fail(rc::kSystemError, "look message by offset failed, " + std::to_string(header->offset));
  }
  const std::int32_t reconsumed = original->record.reconsume_times;
  OutgoingMessage message = retry_copy(*original, std::get<protocol::TopicConfig>(retry).topic_name,
                                       random_queue_id(group_config.retry_queue_nums));
  const std::int32_t max_reconsume_times = header->max_reconsume_times.value_or(group_config.retry_max_times);
  if (reconsumed >= max_reconsume_times || header->delay_level < 0) {
    if (auto refusal = move_to_dlq(context, header->group, message)) return refuse(responder, std::move(*refusal));
    // Labelled with the topic the consumer names, as RocketMQ labels it.
    if (context.metrics) context.metrics->count_dead_letter(header->group, header->origin_topic);
  } else {
    // In 64 bits: a stored reconsume count may be near the int limit (the schedule caps the level).
    const std::int64_t level = std::min<std::int64_t>(
        header->delay_level == 0 ? std::int64_t{3} + reconsumed : header->delay_level, std::numeric_limits<std::int32_t>::max());
    set_property(message.properties, v1::property::kDelayLevel, std::to_string(level));
    // The delay level wins: RocketMQ removes a timer message's delivery time from its retry.
    TimerMessageService::park(*context.config, context.clock(), message);
    ScheduleMessageService::park(context.config->delay_level_ms, message);
  }
  // Counted under the topic the message first came from (its RETRY_TOPIC), as RocketMQ does.
  const std::string back_topic(get_property(message.properties, v1::property::kRetryTopic).value_or(""));
  append_message(context, std::move(message), false,
                 [responder, stats = context.stats, back_topic, group = header->group](v1::Result<AppendedMessages> appended) {
    if (appended) stats->count_send_back(back_topic, group);
    RemotingCommand response;
    response.code = appended ? rc::kSuccess : rc::kSystemError;
    if (!appended) response.remark = appended.status().message();
    responder.respond(std::move(response));
  });
}

}  // namespace mqkit::broker
