#include "mqkit/broker/consume/pull_message_processor.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "header_reader.hpp"
#include "message_filter.hpp"
#include "mqkit/broker/long_polling_service.hpp"
#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/subscription_expression.hpp"
#include "mqkit/protocol/codes.hpp"
#include "offset_commit.hpp"

namespace mqkit::broker {

namespace {

namespace rc = protocol::response_code;
namespace perm = protocol::perm;
using plugin::v1::ReadStatus;
using protocol::is_tag_expression;
using protocol::kTagExpressionType;
using protocol::parse_subscription;
using protocol::tag_filter_codes;

struct PullHeader {
  std::string group;
  std::string topic;
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;
  std::int32_t max_msg_nums = 0;
  std::int32_t sys_flag = 0;
  std::int64_t commit_offset = 0;
  std::int64_t suspend_timeout_ms = 0;
  std::string subscription;
  std::int64_t sub_version = 0;
  std::string expression_type;
  std::int64_t max_msg_bytes = 0;  // 5.x clients; 0 = the broker's limit
  std::string client_address;      // for messages only

  bool has(std::int32_t flag) const { return (sys_flag & flag) != 0; }
};

std::string_view status_name(ReadStatus status) {
  switch (status) {
    case ReadStatus::kFound: return "FOUND";
    case ReadStatus::kNoMatchedMessage: return "NO_MATCHED_MESSAGE";
    case ReadStatus::kMessageWasRemoving: return "MESSAGE_WAS_REMOVING";
    case ReadStatus::kOffsetFoundNull: return "OFFSET_FOUND_NULL";
    case ReadStatus::kOffsetOverflowBadly: return "OFFSET_OVERFLOW_BADLY";
    case ReadStatus::kOffsetOverflowOne: return "OFFSET_OVERFLOW_ONE";
    case ReadStatus::kOffsetTooSmall: return "OFFSET_TOO_SMALL";
    case ReadStatus::kNoMatchedLogicQueue: return "NO_MATCHED_LOGIC_QUEUE";
    case ReadStatus::kNoMessageInQueue: return "NO_MESSAGE_IN_QUEUE";
  }
  return "UNKNOWN";
}

// RocketMQ's mapping of GetMessageStatus to pull response codes.
std::int32_t pull_code(ReadStatus status, std::int64_t requested_offset) {
  switch (status) {
    case ReadStatus::kFound:
      return rc::kSuccess;
    case ReadStatus::kMessageWasRemoving:
    case ReadStatus::kNoMatchedMessage:
      return rc::kPullRetryImmediately;
    case ReadStatus::kNoMatchedLogicQueue:
    case ReadStatus::kNoMessageInQueue:
      // An empty or unknown queue: a consumer asking for anything but 0 must start over.
      return requested_offset != 0 ? rc::kPullOffsetMoved : rc::kPullNotFound;
    case ReadStatus::kOffsetFoundNull:
    case ReadStatus::kOffsetOverflowOne:
      return rc::kPullNotFound;
    case ReadStatus::kOffsetOverflowBadly:
    case ReadStatus::kOffsetTooSmall:
      return rc::kPullOffsetMoved;
  }
  return rc::kSystemError;
}

RemotingCommand refusal(std::int32_t code, std::string remark) {
  RemotingCommand response;
  response.code = code;
  response.remark = std::move(remark);
  return response;
}

// The subscription to filter by: the request's own when it carries one (the SUBSCRIPTION flag,
// which Java and ali-ons always set), else what the group registered by heartbeat. A refusal
// when there is none to use.
std::optional<RemotingCommand> resolve_subscription(const BrokerContext& context, const PullHeader& header,
                                                    const SubscriptionGroupConfig& group,
                                                    protocol::SubscriptionData& out) {
  if (header.has(pull_sys_flag::kSubscription)) {
    if (header.expression_type == filter::kSql92ExpressionType) {
      out.topic = header.topic;
      out.sub_string = header.subscription;  // an expression, not tags to split
      out.sub_version = header.sub_version;
      out.expression_type = header.expression_type;
    } else {
      out = protocol::parse_subscription(header.topic, header.subscription, header.sub_version);
      out.expression_type =
          header.expression_type.empty() ? std::string(protocol::kTagExpressionType) : header.expression_type;
    }
  } else {
    const auto info = context.consumers->find(header.group);
    if (!info) return refusal(rc::kSubscriptionNotExist, "the consumer's group info not exist");
    if (!group.consume_broadcast_enable && info->message_model == "BROADCASTING") {
      return refusal(rc::kNoPermission, "the consumer group[" + header.group + "] can not consume by broadcast way");
    }
    const auto found = info->subscriptions.find(header.topic);
    if (found == info->subscriptions.end()) return refusal(rc::kSubscriptionNotExist, "the consumer's subscription not exist");
    if (found->second.sub_version < header.sub_version) {
      return refusal(rc::kSubscriptionNotLatest, "the consumer's subscription not latest");
    }
    out = found->second;
  }
  return std::nullopt;
}

// RocketMQ's isSuggestPullingFromSlave: the consumer reads data the commit log has outgrown by
// more than access_message_in_memory_max_ratio % of physical memory, which is likely out of the
// page cache. RocketMQ measures from the last consume queue entry it examined; here from the last
// record the store returned, so a read that returned none is never slow.
bool reads_beyond_memory(const BrokerContext& context, const plugin::v1::ReadResult& result) {
  if (result.records.empty()) return false;
  const auto last = plugin::v1::decode_record(result.records.back().bytes);
  if (!last) return false;
  const std::int64_t behind = context.store->stats().commit_log_max_offset - last->commit_offset;
  const auto in_memory = static_cast<std::int64_t>(static_cast<double>(context.physical_memory_bytes) *
                                                   (context.config->access_message_in_memory_max_ratio / 100.0));
  return behind > in_memory;
}

// suggestWhichBrokerId as RocketMQ 4.9 answers it. A slave with slave_read_enable off still
// serves the pull and suggests the master: RocketMQ sets PULL_RETRY_IMMEDIATELY there but the
// store status overwrites that code, which is what lets consumers read a slave whose master is
// down (docs/slave-read.md).
std::int64_t suggested_broker(const BrokerConfig& config, const SubscriptionGroupConfig& group, bool slow) {
  if (!config.slave_read_enable) return 0;
  return slow ? group.which_broker_when_consume_slowly : group.broker_id;
}

// The store statuses whose next_begin_offset moves the consumer elsewhere. A slave leaves the
// consumer where it is (RocketMQ's nextOffsetCorrection without offsetCheckInSlave): it may just
// not have replicated that far yet.
bool corrects_offset(ReadStatus status) {
  switch (status) {
    case ReadStatus::kNoMatchedLogicQueue:
    case ReadStatus::kNoMessageInQueue:
    case ReadStatus::kOffsetTooSmall:
    case ReadStatus::kOffsetOverflowBadly:
    case ReadStatus::kOffsetFoundNull:
      return true;
    default:
      return false;
  }
}

void run_parked(BrokerContext& context, const std::shared_ptr<filter::SqlFilterCache>& sql_filters,
                const std::shared_ptr<const PullHeader>& header, const Responder& responder) noexcept;

// Runs one pull. Returns the answer, or nullopt when the pull was parked for long polling (only
// possible with allow_suspend; the parked pull answers itself later).
std::optional<RemotingCommand> pull_once(BrokerContext& context,
                                         const std::shared_ptr<filter::SqlFilterCache>& sql_filters,
                                         const std::shared_ptr<const PullHeader>& header_ptr,
                                         const Responder& responder, bool allow_suspend) {
  const PullHeader& header = *header_ptr;
  const BrokerConfig& config = *context.config;
  if (!perm::readable(config.broker_permission)) {
    return refusal(rc::kNoPermission, "the broker[" + config.broker_ip + "] pulling message is forbidden");
  }
  const auto group = context.groups->find_or_create(header.group);
  if (!group) {
    return refusal(rc::kSubscriptionGroupNotExist, "subscription group [" + header.group + "] does not exist");
  }
  if (!group->consume_enable) return refusal(rc::kNoPermission, "subscription group no permission, " + header.group);
  const auto topic = context.topics->find(header.topic);
  if (!topic) return refusal(rc::kTopicNotExist, "topic[" + header.topic + "] not exist, apply first please!");
  if (!perm::readable(topic->perm)) {
    return refusal(rc::kNoPermission, "the topic[" + header.topic + "] pulling message is forbidden");
  }
  if (header.queue_id < 0 || header.queue_id >= topic->read_queue_nums) {
    return refusal(rc::kSystemError, "queueId[" + std::to_string(header.queue_id) + "] is illegal, topic:[" +
                                         header.topic + "] topicConfig.readQueueNums:[" +
                                         std::to_string(topic->read_queue_nums) + "] consumer:[" +
                                         header.client_address + "]");
  }
  protocol::SubscriptionData subscription;
  if (auto refused = resolve_subscription(context, header, *group, subscription)) return refused;

  auto sql_filter = sql_filter_of(config, *sql_filters, header.group, header.topic, subscription.expression_type,
                                  subscription.sub_string);
  if (!sql_filter) return refusal(subscription_refusal_code(sql_filter.status()), sql_filter.status().message());
  const std::optional<filter::SqlFilter>& sql = *sql_filter;
  // A SQL92 subscription carries no tags: the store returns every record and the filter chooses.
  const std::vector<std::int32_t> tag_codes =
      sql ? std::vector<std::int32_t>{} : protocol::tag_filter_codes(subscription);
  plugin::v1::ReadRequest read;
  read.topic = header.topic;
  read.queue_id = header.queue_id;
  read.offset = header.queue_offset;
  read.max_count = std::max(1, std::min(header.max_msg_nums, config.max_transfer_count));
  read.max_bytes = header.max_msg_bytes > 0 ? std::min(header.max_msg_bytes, config.max_transfer_bytes)
                                            : config.max_transfer_bytes;
  read.tag_codes = tag_codes;
  auto result = context.store->read(read);
  if (!result) return refusal(rc::kSystemError, "store getMessage failed: " + result.status().message());
  // Judged on what the store read, before the SQL filter drops records, as RocketMQ does.
  const bool slow = config.slave_read_enable && reads_beyond_memory(context, *result);
  if (sql && result->status == ReadStatus::kFound) {
    keep_selected(*result, *sql, header.group, header.topic, header.queue_id);
  }
  const bool slave = config.broker_id != 0;
  if (slave && corrects_offset(result->status)) result->next_begin_offset = header.queue_offset;

  RemotingCommand response;
  response.code = pull_code(result->status, header.queue_offset);
  response.remark = std::string(status_name(result->status));
  std::int64_t suggested = suggested_broker(config, *group, slow);
  if (slave && response.code == rc::kPullOffsetMoved) {
    // Not the consumer's offset that is wrong, maybe: send it to the group's broker to check.
    response.code = rc::kPullRetryImmediately;
    suggested = group->broker_id;
  }
  response.ext_fields.set("suggestWhichBrokerId", suggested);
  response.ext_fields.set("nextBeginOffset", result->next_begin_offset);
  response.ext_fields.set("minOffset", result->min_offset);
  response.ext_fields.set("maxOffset", result->max_offset);
  if (response.code == rc::kSuccess) {
    const auto messages = static_cast<std::int64_t>(result->records.size());
    context.stats->count_get(header.topic, header.group, messages, result->total_bytes);
    if (context.metrics) {
      context.metrics->count_out(header.topic, header.group, messages, result->total_bytes);
      context.metrics->note_pulled(header.group, header.topic, header.queue_id, result->next_begin_offset);
    }
    response.body_slices = std::move(result->records);
  }
  if (response.code == rc::kPullOffsetMoved) {
    kernel::logger("broker")->info("pull offset {} of {}:{} by group {} moved to {}", header.queue_offset,
                                   header.topic, header.queue_id, header.group, result->next_begin_offset);
  }

  // Stored once, by the first run of a pull only (a parked pull re-runs with the same header).
  if (allow_suspend && header.has(pull_sys_flag::kCommitOffset) && config.broker_id == 0) {
    commit_client_offset(*context.offsets, header.group, header.topic, header.queue_id, header.commit_offset);
  }

  if (response.code == rc::kPullNotFound && allow_suspend && header.has(pull_sys_flag::kSuspend)) {
    // RocketMQ takes any suspendTimeoutMillis; past a week it makes no difference but to "now + it".
    const std::int64_t wait_ms = config.long_polling_enable
                                     ? std::clamp<std::int64_t>(header.suspend_timeout_ms, 0, kMaxRequestedWaitMs)
                                     : config.short_polling_time_ms;
    LongPollingService& polling = *context.long_polling;
    polling.hold(header.topic, header.queue_id, header.queue_offset, context.clock() + wait_ms,
                 [&context, sql_filters, header_ptr, responder = responder.held()] {
                   run_parked(context, sql_filters, header_ptr, responder);
                 });
    // A message dispatched between the read and the hold woke nobody: wake the pull now.
    const std::int64_t max_offset = context.store->max_offset(header.topic, header.queue_id);
    if (max_offset > header.queue_offset) polling.notify(header.topic, header.queue_id, max_offset);
    return std::nullopt;
  }
  return response;
}

void run_parked(BrokerContext& context, const std::shared_ptr<filter::SqlFilterCache>& sql_filters,
                const std::shared_ptr<const PullHeader>& header, const Responder& responder) noexcept {
  try {
    if (auto response = pull_once(context, sql_filters, header, responder, /*allow_suspend=*/false)) {
      responder.respond(std::move(*response));
    }
  } catch (const std::exception& e) {
    responder.fail(rc::kSystemError, e.what());
  }
}

}  // namespace

std::vector<std::int32_t> PullMessageProcessor::codes() const {
  return {protocol::request_code::kPullMessage, protocol::request_code::kLitePullMessage};
}

void PullMessageProcessor::process(RemotingCommand request, Responder responder) {
  HeaderReader fields(request.ext_fields);
  auto header = std::make_shared<PullHeader>();
  header->group = fields.required("consumerGroup");
  header->topic = fields.required("topic");
  header->queue_id = fields.required_int32("queueId");
  header->queue_offset = fields.required_int("queueOffset");
  header->max_msg_nums = fields.required_int32("maxMsgNums");
  header->sys_flag = fields.required_int32("sysFlag");
  header->commit_offset = fields.optional_int("commitOffset", 0);
  header->suspend_timeout_ms = fields.optional_int("suspendTimeoutMillis", 0);
  header->subscription = fields.optional("subscription");
  header->sub_version = fields.optional_int("subVersion", 0);
  header->expression_type = fields.optional("expressionType");
  header->max_msg_bytes = fields.optional_int("maxMsgBytes", 0);
  if (!fields.ok()) return responder.fail(protocol::response_code::kSystemError, fields.error());
  header->client_address = responder.channel()->remote_address();
  if (auto response = pull_once(context_, sql_filters_, header, responder, /*allow_suspend=*/true)) {
    responder.respond(std::move(*response));
  }
}

}  // namespace mqkit::broker
