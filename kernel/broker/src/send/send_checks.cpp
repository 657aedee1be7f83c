#include "send_checks.hpp"

#include <algorithm>
#include <random>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace rc = protocol::response_code;
namespace perm = protocol::perm;
using protocol::TopicConfig;

namespace {

// The TopicSysFlag bit a unit-mode producer's topic gets (RocketMQ's TopicSysFlag.buildSysFlag).
constexpr std::int32_t kTopicUnit = 0x1;

bool is_retry_topic(std::string_view topic) { return topic.starts_with(protocol::kRetryGroupTopicPrefix); }

std::optional<TopicConfig> create_for_send(BrokerContext& context, const SendMessageRequestHeader& header,
                                           std::string_view producer_address) {
  kernel::logger("broker")->warn("the topic {} does not exist, producer: {}", header.topic, producer_address);
  if (is_retry_topic(header.topic)) {
    // A consumer whose send-back failed re-sends the message to its retry topic itself.
    auto group = context.groups->find_or_create(header.topic.substr(protocol::kRetryGroupTopicPrefix.size()));
    auto created = context.topics->ensure(header.topic, group ? std::max(1, group->retry_queue_nums) : 1,
                                          perm::kRead | perm::kWrite);
    if (created) return *created;
    kernel::logger("broker")->warn("creating {}: {}", header.topic, created.status().to_string());
    return std::nullopt;
  }
  const std::int32_t topic_sys_flag = header.unit_mode ? kTopicUnit : 0;
  auto created = context.topics->create_on_send(header.topic, header.default_topic, header.default_topic_queue_nums,
                                                topic_sys_flag);
  if (created) return *created;
  kernel::logger("broker")->warn("auto-creating {}: {}", header.topic, created.status().to_string());
  return std::nullopt;
}

}  // namespace

std::optional<Refusal> check_broker_writable(const BrokerConfig& config) {
  if (perm::writeable(config.broker_permission)) return std::nullopt;
  return Refusal{rc::kNoPermission, "the broker[" + config.broker_ip + "] sending message is forbidden"};
}

OrRefusal<SendTarget> resolve_send_target(BrokerContext& context, const SendMessageRequestHeader& header,
                                          std::string_view producer_address) {
  const std::string& topic = header.topic;
  if (auto valid = protocol::validate_topic(topic); !valid) return Refusal{rc::kSystemError, valid.message()};
  if (protocol::is_not_allowed_send_topic(topic)) {
    return Refusal{rc::kNoPermission, "Sending message to topic[" + topic + "] is forbidden."};
  }
  auto config = context.topics->find(topic);
  if (!config) config = create_for_send(context, header, producer_address);
  if (!config) return Refusal{rc::kTopicNotExist, "topic[" + topic + "] not exist, apply first please!"};
  if (!perm::writeable(config->perm)) {
    return Refusal{rc::kNoPermission, "the topic[" + topic + "] sending message is forbidden"};
  }
  // As RocketMQ: a queue beyond the write queues but within the read queues is still accepted
  // (producers with an older route while queues shrink).
  const std::int32_t queue_limit = std::max(config->write_queue_nums, config->read_queue_nums);
  if (header.queue_id >= queue_limit || (header.queue_id < 0 && config->write_queue_nums <= 0)) {
    return Refusal{rc::kSystemError, "queueId[" + std::to_string(header.queue_id) + "] is illegal, topic:[" + topic +
                                         "] topicConfig.writeQueueNums:[" + std::to_string(config->write_queue_nums) +
                                         "] consumer:[" + std::string(producer_address) + "]"};
  }
  const std::int32_t queue_id = header.queue_id < 0 ? random_queue_id(config->write_queue_nums) : header.queue_id;
  return SendTarget{std::move(*config), queue_id};
}

std::optional<Refusal> timer_refusal(TimerParking parking, const BrokerConfig& config) {
  switch (parking) {
    case TimerParking::kIllegal:
      return Refusal{rc::kMessageIllegal,
                     "timer message illegal, the delay time should not be bigger than the max delay " +
                         std::to_string(config.timer_max_delay_sec * 1000) +
                         "ms; or if set del msg, the delay time should be bigger than the current time"};
    case TimerParking::kNotEnabled:
      return Refusal{rc::kSystemError, "accurate timer message is not enabled, timerWheelEnable is false"};
    case TimerParking::kNotHeld:
    case TimerParking::kHeld:
      break;
  }
  return std::nullopt;
}

std::optional<Refusal> check_message_size(const BrokerConfig& config, std::size_t body_size,
                                          std::size_t properties_size) {
  if (static_cast<std::int64_t>(body_size) <= config.max_message_size &&
      properties_size <= plugin::v1::kMaxPropertiesLength) {
    return std::nullopt;
  }
  return Refusal{rc::kMessageIllegal,
                 "the message is illegal, maybe msg body or properties length not matched. msg body length limit " +
                     std::to_string(config.max_message_size) + "B, msg properties length limit 32KB."};
}

OrRefusal<SubscriptionGroupConfig> find_group(BrokerContext& context, const std::string& group) {
  if (auto config = context.groups->find_or_create(group)) return *config;
  return Refusal{rc::kSubscriptionGroupNotExist, "subscription group not exist, " + group};
}

OrRefusal<TopicConfig> ensure_retry_topic(BrokerContext& context, const SubscriptionGroupConfig& group) {
  const std::string topic = protocol::retry_topic(group.group_name);
  auto config = context.topics->ensure(topic, group.retry_queue_nums, perm::kRead | perm::kWrite);
  if (!config) return Refusal{rc::kSystemError, "topic[" + topic + "] not exist"};
  if (!perm::writeable(config->perm)) {
    return Refusal{rc::kNoPermission, "the topic[" + topic + "] sending message is forbidden"};
  }
  return std::move(config).value();
}

OrRefusal<TopicConfig> ensure_dlq_topic(BrokerContext& context, const std::string& group) {
  const std::string topic = protocol::dlq_topic(group);
  auto config = context.topics->ensure(topic, 1, perm::kRead | perm::kWrite);
  if (!config) return Refusal{rc::kSystemError, "topic[" + topic + "] not exist"};
  return std::move(config).value();
}

std::optional<Refusal> move_to_dlq(BrokerContext& context, const std::string& group, OutgoingMessage& message) {
  auto dlq = ensure_dlq_topic(context, group);
  if (auto* refusal = std::get_if<Refusal>(&dlq)) return std::move(*refusal);
  message.topic = std::get<TopicConfig>(dlq).topic_name;
  message.queue_id = 0;  // RocketMQ writes a DLQ's first queue only, whatever its queue count
  erase_property(message.properties, plugin::v1::property::kDelayLevel);
  return std::nullopt;
}

std::int32_t random_queue_id(std::int32_t queue_nums) {
  thread_local std::minstd_rand engine{std::random_device{}()};
  return std::uniform_int_distribution<std::int32_t>(0, queue_nums - 1)(engine);
}

}  // namespace mqkit::broker
