#include "mqkit/broker/consume/pop_message_processor.hpp"

#include <algorithm>
#include <atomic>

#include "header_reader.hpp"
#include "message_filter.hpp"
#include "mqkit/broker/consumer_offset_manager.hpp"
#include "mqkit/broker/long_polling_service.hpp"
#include "mqkit/broker/subscription_group_manager.hpp"
#include "mqkit/broker/topic_config_manager.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/pop_receipt.hpp"
#include "mqkit/protocol/subscription_expression.hpp"
#include "pop_service.hpp"

namespace mqkit::broker {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
namespace perm = protocol::perm;

namespace {

// RocketMQ's retry flag in extraInfo, startOffsetInfo and msgOffsetInfo: 0 for a topic popped
// as it is (mqkit redelivers in place, never from a pop retry topic).
constexpr std::string_view kNormalTopic = "0";

// startOffsetInfo "0 q start;..." and msgOffsetInfo "0 q o1,o2;..." (ExtraInfoUtil).
void set_offset_infos(RemotingCommand& response, const PopOutcome& outcome) {
  std::string starts;
  std::string offsets;
  for (const auto& queue : outcome.queues) {
    if (!starts.empty()) starts += ';', offsets += ';';
    starts += std::string(kNormalTopic) + " " + std::to_string(queue.queue_id) + " " + std::to_string(queue.start_offset);
    offsets += std::string(kNormalTopic) + " " + std::to_string(queue.queue_id) + " ";
    for (std::size_t i = 0; i < queue.offsets.size(); ++i) {
      if (i > 0) offsets += ',';
      offsets += std::to_string(queue.offsets[i]);
    }
  }
  response.ext_fields.set("startOffsetInfo", starts);
  response.ext_fields.set("msgOffsetInfo", offsets);
}

RemotingCommand answer_of(const PopOutcome& outcome) {
  RemotingCommand response;
  response.code = outcome.records.empty() ? rc::kPullNotFound : rc::kSuccess;
  response.remark = outcome.records.empty() ? "no new message" : "FOUND";
  response.ext_fields.set("popTime", outcome.pop_time);
  response.ext_fields.set("invisibleTime", outcome.invisible_ms);
  response.ext_fields.set("reviveQid", std::int64_t{0});
  response.ext_fields.set("restNum", outcome.rest);
  if (!outcome.records.empty()) set_offset_infos(response, outcome);
  response.body_slices = outcome.records;
  return response;
}

}  // namespace

PopMessageProcessor::PopMessageProcessor(BrokerContext& context) : context_(context) {}

std::vector<std::int32_t> PopMessageProcessor::codes() const {
  return {rq::kPopMessage, rq::kAckMessage, rq::kChangeMessageInvisibleTime};
}

void PopMessageProcessor::process(RemotingCommand request, Responder responder) {
  switch (request.code) {
    case rq::kPopMessage: return pop(request, responder);
    case rq::kAckMessage: return ack(request, responder);
    default: return change_invisible_time(request, responder);
  }
}

namespace {

// Nothing visible for `pop`: it waits for a message on any of its queues, or until one of the
// group's invisible messages becomes visible again, or its poll deadline, whichever is first. A
// wake-up that finds nothing for it (another pop took the message, or its filter does not select
// it) waits again until the poll deadline, as RocketMQ's pops poll again, so that one arrival
// does not answer every waiting pop empty.
void hold_pop(BrokerContext& context, std::shared_ptr<PopService> service, std::shared_ptr<const PopRequest> pop,
              std::int32_t read_queue_nums, std::int64_t poll_deadline, Responder held) {
  std::int64_t deadline = poll_deadline;
  if (const auto visible = service->next_visible(pop->group, pop->topic)) deadline = std::min(deadline, *visible + 1);
  // Held on every queue at once: the first wake-up answers, the others find it answered.
  auto answered = std::make_shared<std::atomic<bool>>(false);
  const auto retry = [&context, service, pop, read_queue_nums, poll_deadline, answered, held] {
    if (answered->exchange(true)) return;
    auto again = service->pop(*pop);
    if (!again) return held.fail(rc::kSystemError, again.status().message());
    if (again->records.empty() && context.clock() < poll_deadline) {
      return hold_pop(context, service, pop, read_queue_nums, poll_deadline, held);
    }
    held.respond(answer_of(*again));
  };
  const std::int32_t first = pop->queue_id >= 0 ? pop->queue_id : 0;
  const std::int32_t last = pop->queue_id >= 0 ? pop->queue_id : read_queue_nums - 1;
  for (std::int32_t queue_id = first; queue_id <= last; ++queue_id) {
    const std::int64_t max_offset = context.store->max_offset(pop->topic, queue_id);
    // Woken by arrivals, and by acks and invisible-time changes (wake_any_notice), after which
    // something may be poppable again: an orderly queue's next message, an earlier visibility.
    context.long_polling->hold(pop->topic, queue_id, LongPollingService::kAnyNotice, deadline, retry);
    // A message dispatched between the pop and the hold woke nobody: wake now.
    if (context.store->max_offset(pop->topic, queue_id) > max_offset) {
      context.long_polling->notify(pop->topic, queue_id, context.store->max_offset(pop->topic, queue_id));
    }
  }
}

}  // namespace

void PopMessageProcessor::pop(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  auto pop = std::make_shared<PopRequest>();
  pop->group = fields.required("consumerGroup");
  pop->topic = fields.required("topic");
  pop->queue_id = fields.required_int32("queueId");
  pop->max_messages = fields.required_int32("maxMsgNums");
  pop->invisible_ms = fields.required_int("invisibleTime");
  const std::int64_t poll_ms = fields.optional_int("pollTime", 0);
  pop->init_from_max = fields.optional_int("initMode", 0) == 1;  // ConsumeInitMode: MIN 0, MAX 1
  const std::string expression = fields.optional("exp");
  // No expression takes every message, whatever expType says (as RocketMQ's PopMessageProcessor).
  const std::string expression_type =
      expression.empty() ? std::string(protocol::kTagExpressionType) : fields.optional("expType");
  pop->order = fields.optional_bool("order", false);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  if (!perm::readable(context_.config->broker_permission)) {
    return responder.fail(rc::kNoPermission, "the broker[" + context_.config->broker_ip + "] pop message is forbidden");
  }
  const auto group = context_.groups->find_or_create(pop->group);
  if (!group) return responder.fail(rc::kSubscriptionGroupNotExist, "subscription group [" + pop->group + "] does not exist");
  if (!group->consume_enable) return responder.fail(rc::kNoPermission, "subscription group no permission, " + pop->group);
  const auto topic = context_.topics->find(pop->topic);
  if (!topic) return responder.fail(rc::kTopicNotExist, "topic[" + pop->topic + "] not exist, apply first please!");
  if (!perm::readable(topic->perm)) {
    return responder.fail(rc::kNoPermission, "the topic[" + pop->topic + "] peeking message is forbidden");
  }
  if (pop->queue_id >= topic->read_queue_nums || pop->queue_id < -1) {
    return responder.fail(rc::kSystemError, "queueId[" + std::to_string(pop->queue_id) + "] is illegal, topic:[" +
                                                pop->topic + "] topicConfig.readQueueNums:[" +
                                                std::to_string(topic->read_queue_nums) + "]");
  }
  if (pop->max_messages <= 0 || pop->invisible_ms <= 0 || pop->invisible_ms > kMaxRequestedWaitMs || poll_ms < 0 ||
      poll_ms > kMaxRequestedWaitMs) {
    return responder.fail(rc::kInvalidParameter, "maxMsgNums must be positive, invisibleTime positive and pollTime "
                                                 "not negative, both at most " + std::to_string(kMaxRequestedWaitMs) + " ms");
  }
  // As a pull, at most the broker's transfer count per answer.
  pop->max_messages = std::min(pop->max_messages, context_.config->max_transfer_count);
  auto sql_filter = sql_filter_of(*context_.config, sql_filters_, pop->group, pop->topic, expression_type, expression);
  if (!sql_filter) return responder.fail(subscription_refusal_code(sql_filter.status()), sql_filter.status().message());
  pop->sql_filter = std::move(sql_filter).value();
  // A SQL92 subscription carries no tags: the store returns every record and the filter chooses.
  if (!pop->sql_filter) pop->tag_codes = protocol::tag_filter_codes(protocol::parse_subscription(pop->topic, expression, 0));
  pop->read_queue_nums = topic->read_queue_nums;
  pop->retry_max_times = group->retry_max_times;

  auto outcome = context_.pops->pop(*pop);
  if (!outcome) return responder.fail(rc::kSystemError, outcome.status().message());
  if (!outcome->records.empty() || poll_ms <= 0) return responder.respond(answer_of(*outcome));

  hold_pop(context_, context_.pops, std::move(pop), topic->read_queue_nums, context_.clock() + poll_ms, responder.held());
}

namespace {

// The delivery an ACK_MESSAGE or CHANGE_MESSAGE_INVISIBLETIME names (AckMessageRequestHeader).
struct NamedDelivery {
  std::string group;
  std::string topic;
  std::int32_t queue_id = 0;
  std::int64_t offset = 0;
  std::int64_t pop_time = 0;
  std::int64_t visible_again_at = 0;  // as the receipt handle says
};

// The delivery, or nullopt once `responder` was answered with what is wrong.
std::optional<NamedDelivery> named_delivery(HeaderReader& fields, const Responder& responder) {
  NamedDelivery d;
  d.group = fields.required("consumerGroup");
  d.topic = fields.required("topic");
  d.queue_id = fields.required_int32("queueId");
  const std::string extra_info = fields.required("extraInfo");
  d.offset = fields.required_int("offset");
  if (!fields.ok()) {
    responder.fail(rc::kSystemError, fields.error());
    return std::nullopt;
  }
  const auto receipt = protocol::decode_pop_receipt(extra_info);
  if (!receipt) {
    responder.fail(rc::kInvalidParameter, receipt.status().message());
    return std::nullopt;
  }
  d.pop_time = receipt->pop_time;
  d.visible_again_at = receipt->visible_again_at();
  return d;
}

}  // namespace

void PopMessageProcessor::ack(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const auto d = named_delivery(fields, responder);
  if (!d) return;
  // An ack of a delivery that is over already (acked, or delivered again) changes nothing and is
  // answered SUCCESS, as RocketMQ answers it.
  if (!context_.pops->ack(d->group, d->topic, d->queue_id, d->offset, d->pop_time)) {
    kernel::logger("broker")->debug("ack of {}:{} offset {} by group {}: that delivery is over", d->topic, d->queue_id,
                                    d->offset, d->group);
  } else if (context_.pops->idle(d->group, d->topic, d->queue_id)) {
    // Nothing of the queue in flight for the group any more: an orderly group's next messages
    // may be popped now.
    context_.long_polling->wake_any_notice(d->topic, d->queue_id);
  }
  RemotingCommand response;
  response.code = rc::kSuccess;
  responder.respond(std::move(response));
}

void PopMessageProcessor::change_invisible_time(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::int64_t invisible_ms = fields.required_int("invisibleTime");
  const auto d = named_delivery(fields, responder);
  if (!d) return;
  if (invisible_ms <= 0 || invisible_ms > kMaxRequestedWaitMs) {
    return responder.fail(rc::kInvalidParameter, "invisibleTime must be positive and at most " +
                                                     std::to_string(kMaxRequestedWaitMs) + " ms");
  }
  const auto new_pop_time = context_.pops->change_invisible(d->group, d->topic, d->queue_id, d->offset, d->pop_time, invisible_ms);
  if (!new_pop_time) {
    return responder.fail(rc::kInvalidParameter, "the delivery this receipt handle names is over (acked, or delivered again)");
  }
  // Held pops wake up when the earliest invisible message turns visible, as they knew it: this
  // one now turns visible sooner (a nack).
  if (context_.clock() + invisible_ms < d->visible_again_at) context_.long_polling->wake_any_notice(d->topic, d->queue_id);
  RemotingCommand response;
  response.code = rc::kSuccess;
  response.ext_fields.set("popTime", *new_pop_time);
  response.ext_fields.set("invisibleTime", invisible_ms);
  response.ext_fields.set("reviveQid", std::int64_t{0});
  responder.respond(std::move(response));
}

}  // namespace mqkit::broker
