#include "mqkit/client/message.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/timer.hpp"

namespace mqkit::client {

namespace property = plugin::v1::property;
namespace timer_property = protocol::timer::property;

namespace {

// MessageConst names (4.9 and the 5.x additions a 4.x broker may see).
constexpr std::string_view kSystemProperties[] = {
    "KEYS", "TAGS", "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID", "TRAN_MSG", "PGROUP",
    "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG", "CORRECTION_FLAG",
    "MQ2_FLAG", "RECONSUME_TIME", "MSG_REGION", "TRACE_ON", "UNIQ_KEY", "MAX_RECONSUME_TIMES",
    "CONSUME_START_TIME", "TRAN_PREPARED_QUEUE_OFFSET", "TRANSACTION_CHECK_TIMES",
    "CHECK_IMMUNITY_TIME_IN_SECONDS", "INSTANCE_ID", "CORRELATION_ID", "REPLY_TO_CLIENT", "TTL",
    "ARRIVE_TIME", "PUSH_REPLY_TIME", "CLUSTER", "MSG_TYPE", "__transactionId__", "EXTEND_UNIQ_INFO",
    "DUP_INFO", "INNER_NUM", "INNER_BASE", "__SHARDINGKEY", "__STARTDELIVERTIME", "TIMER_DELIVER_MS",
    "TIMER_DELAY_SEC", "TIMER_DELAY_MS", "TIMER_OUT_MS", "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS",
    "TIMER_ROLL_TIMES", "TIMER_DEL_UNIQKEY", "TIMER_DELAY_LEVEL", "POP_CK", "POP_CK_OFFSET", "1ST_POP_TIME",
    "__BORNHOST", "BORN_TIMESTAMP", "TRACE_CONTEXT", "DLQ_ORIGIN_TOPIC", "DLQ_ORIGIN_MESSAGE_ID", "__CRC32#",
    "INNER_MULTI_DISPATCH", "INNER_MULTI_QUEUE_OFFSET"};

}  // namespace

Message::Message(std::string topic, std::string body) : topic_(std::move(topic)), body_(std::move(body)) {}

Message::Message(std::string topic, std::string tags, std::string body) : Message(std::move(topic), std::move(body)) {
  set_tags(std::move(tags));
}

Message::Message(std::string topic, std::string tags, std::string keys, std::string body)
    : Message(std::move(topic), std::move(tags), std::move(body)) {
  set_keys(std::move(keys));
}

std::string_view Message::tags() const { return property(property::kTags).value_or(std::string_view()); }

void Message::set_tags(std::string tags) {
  if (tags.empty()) return clear_property(property::kTags);
  set_property(std::string(property::kTags), std::move(tags));
}

std::string_view Message::keys() const { return property(property::kKeys).value_or(std::string_view()); }

void Message::set_keys(std::string keys) {
  if (keys.empty()) return clear_property(property::kKeys);
  set_property(std::string(property::kKeys), std::move(keys));
}

void Message::set_keys(const std::vector<std::string>& keys) {
  std::string joined;
  for (const auto& key : keys) {
    if (key.empty()) continue;
    if (!joined.empty()) joined += ' ';
    joined += key;
  }
  set_keys(std::move(joined));
}

int Message::delay_time_level() const {
  const auto text = property(property::kDelayLevel);
  int level = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), level).ec != std::errc()) return 0;
  return level;
}

void Message::set_delay_time_level(int level) {
  if (level <= 0) return clear_property(property::kDelayLevel);
  set_property(std::string(property::kDelayLevel), std::to_string(level));
}

std::int64_t Message::int64_property(std::string_view name) const {
  const auto text = property(name);
  std::int64_t value = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) return 0;
  return value;
}

void Message::set_delivery_property(std::string_view name, std::int64_t value) {
  for (const std::string_view each : {timer_property::kDeliverMs, timer_property::kDelaySec, timer_property::kDelayMs}) {
    clear_property(each);
  }
  if (value > 0) set_property(std::string(name), std::to_string(value));
}

std::int64_t Message::deliver_time_ms() const { return int64_property(timer_property::kDeliverMs); }
void Message::set_deliver_time_ms(std::int64_t epoch_ms) { set_delivery_property(timer_property::kDeliverMs, epoch_ms); }
std::int64_t Message::delay_time_sec() const { return int64_property(timer_property::kDelaySec); }
void Message::set_delay_time_sec(std::int64_t seconds) { set_delivery_property(timer_property::kDelaySec, seconds); }
std::int64_t Message::delay_time_ms() const { return int64_property(timer_property::kDelayMs); }
void Message::set_delay_time_ms(std::int64_t milliseconds) {
  set_delivery_property(timer_property::kDelayMs, milliseconds);
}

bool Message::has_delivery_time() const {
  return property(timer_property::kDeliverMs) || property(timer_property::kDelaySec) ||
         property(timer_property::kDelayMs);
}

bool Message::wait_store_msg_ok() const {
  // RocketMQ: absent means true.
  return property(property::kWaitStoreOk).value_or("true") != "false";
}

void Message::set_wait_store_msg_ok(bool wait) {
  set_property(std::string(property::kWaitStoreOk), wait ? "true" : "false");
}

std::string_view Message::unique_id() const { return property(property::kUniqueKey).value_or(std::string_view()); }

std::optional<std::string_view> Message::property(std::string_view name) const {
  const auto it = properties_.find(name);
  if (it == properties_.end()) return std::nullopt;
  return std::string_view(it->second);
}

void Message::set_property(std::string name, std::string value) { properties_[std::move(name)] = std::move(value); }

void Message::clear_property(std::string_view name) {
  if (const auto it = properties_.find(name); it != properties_.end()) properties_.erase(it);
}

Status Message::put_user_property(std::string name, std::string value) {
  if (name.empty() || value.empty()) {
    return Status::invalid_argument("a user property needs a non-empty name and value (name '" + name + "')");
  }
  if (is_system_property(name)) {
    return Status::invalid_argument("the property '" + name + "' is used by the system; choose another name");
  }
  set_property(std::move(name), std::move(value));
  return Status::ok();
}

bool is_system_property(std::string_view name) {
  return std::find(std::begin(kSystemProperties), std::end(kSystemProperties), name) != std::end(kSystemProperties);
}

}  // namespace mqkit::client
