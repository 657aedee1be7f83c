#include "mqkit/client/consumer_config.hpp"

#include <cstdlib>
#include <ctime>
#include <iterator>

#include "mqkit/client/process_queue.hpp"
#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/validation.hpp"
#include "trace/trace_settings.hpp"

namespace mqkit::client {

namespace {

using plugin::v1::ConfigField;
using plugin::v1::ValueType;

constexpr double kHourMs = 3'600'000;
constexpr double kDayMinutes = 24 * 60;
constexpr int kDefaultMaxReconsumeTimes = 16;
constexpr int kOrderlyUnlimitedReconsumeTimes = 0x7fffffff;  // Integer.MAX_VALUE
constexpr std::int64_t kHalfHourMs = 30 * 60 * 1000;

constexpr const char* kMessageModels[] = {"CLUSTERING", "BROADCASTING", nullptr};
constexpr const char* kConsumeFromWheres[] = {"CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_FIRST_OFFSET",
                                              "CONSUME_FROM_TIMESTAMP", nullptr};

constexpr ConfigField kConsumerFields[] = {
    {.key = "group", .type = ValueType::kString, .default_value = "",
     .description = "consumer group (RocketMQ consumerGroup); required"},
    {.key = "message_model", .type = ValueType::kString, .default_value = "CLUSTERING",
     .description = "CLUSTERING (the group shares queues) or BROADCASTING (every consumer reads everything)",
     .allowed = kMessageModels},
    {.key = "consume_from_where", .type = ValueType::kString, .default_value = "CONSUME_FROM_LAST_OFFSET",
     .description = "where a group new to a queue starts", .allowed = kConsumeFromWheres},
    {.key = "consume_timestamp", .type = ValueType::kString, .default_value = "",
     .description = "for CONSUME_FROM_TIMESTAMP: local time yyyyMMddHHmmss; empty = half an hour before start"},
    {.key = "pull_batch_size", .type = ValueType::kInt, .default_value = "32",
     .description = "messages asked for per pull", .min = 1, .max = 1024},
    {.key = "consume_message_batch_max_size", .type = ValueType::kInt, .default_value = "1",
     .description = "messages handed to one listener call", .min = 1, .max = 1024},
    {.key = "pull_threshold_for_queue", .type = ValueType::kInt, .default_value = "1000",
     .description = "a queue caching more messages than this is not pulled", .min = 1, .max = 65535},
    {.key = "pull_threshold_size_for_queue", .type = ValueType::kSize, .default_value = "100MiB",
     .description = "a queue caching more body bytes than this is not pulled", .min = 1024, .max = 1073741824.0},
    {.key = "consume_concurrently_max_span", .type = ValueType::kInt, .default_value = "2000",
     .description = "concurrent: a queue whose cached offsets span more than this is not pulled", .min = 1,
     .max = 65535},
    {.key = "max_reconsume_times", .type = ValueType::kInt, .default_value = "-1",
     .description = "deliveries before a message goes to %DLQ%<group>; -1 = 16 (concurrent) / unlimited (orderly)",
     .min = -1, .max = 2147483647.0},
    {.key = "consume_timeout", .type = ValueType::kInt, .default_value = "15",
     .description = "concurrent: minutes after which a message still being consumed is sent back for redelivery",
     .min = 1, .max = kDayMinutes},
    {.key = "consume_thread_count", .type = ValueType::kInt, .default_value = "20",
     .description = "threads running listeners", .min = 1, .max = 1000},
    {.key = "broker_suspend_max_time", .type = ValueType::kDuration, .default_value = "15s",
     .description = "long polling: how long a broker may hold a pull", .min = 0, .max = kHourMs},
    {.key = "consumer_timeout_when_suspend", .type = ValueType::kDuration, .default_value = "30s",
     .description = "long polling: how long the client waits for a held pull", .min = 1, .max = kHourMs},
    {.key = "pull_time_delay_when_exception", .type = ValueType::kDuration, .default_value = "1s",
     .description = "pause before pulling a queue again after a failed pull", .min = 1, .max = kHourMs},
    {.key = "pull_interval", .type = ValueType::kDuration, .default_value = "0ms",
     .description = "pause between pulls of one queue", .min = 0, .max = kHourMs},
    {.key = "suspend_current_queue_time", .type = ValueType::kDuration, .default_value = "1s",
     .description = "orderly: pause before a suspended queue is consumed again", .min = 1, .max = kHourMs},
    {.key = "lock_interval", .type = ValueType::kDuration, .default_value = "20s",
     .description = "orderly: how often owned queues are re-locked on their brokers (below 30s)", .min = 100,
     .max = 29'999},
    {.key = "offset_store_dir", .type = ValueType::kString, .default_value = "",
     .description = "broadcasting offsets directory; empty = $HOME/.rocketmq_offsets"},
    {.key = "auto_commit", .type = ValueType::kBool, .default_value = "true",
     .description = "lite pull: commit what poll returned every auto_commit_interval and at shutdown"},
    {.key = "auto_commit_interval", .type = ValueType::kDuration, .default_value = "5s",
     .description = "lite pull: how often poll commits when auto_commit is on", .min = 1, .max = kHourMs},
    {.key = "poll_timeout", .type = ValueType::kDuration, .default_value = "5s",
     .description = "lite pull: how long poll() without a timeout waits for messages", .min = 0, .max = kHourMs},
    {.key = "pull_threshold_for_all", .type = ValueType::kInt, .default_value = "10000",
     .description = "lite pull: no queue is pulled while this many messages wait for poll()", .min = 1,
     .max = 1000000},
    {.key = "topic_metadata_check_interval", .type = ValueType::kDuration, .default_value = "30s",
     .description = "lite pull: how often the queues of topics with a queue change listener are looked up",
     .min = 1, .max = kHourMs},
    trace::kEnableMsgTraceField,
    trace::kCustomizedTraceTopicField,
};
constexpr plugin::v1::ConfigSchema kConsumerSchema{kConsumerFields, std::size(kConsumerFields)};

bool all_digits(std::string_view text) {
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int number(std::string_view text) {
  int value = 0;
  for (const char c : text) value = value * 10 + (c - '0');
  return value;
}

}  // namespace

std::string_view to_string(MessageModel model) noexcept {
  return model == MessageModel::kBroadcasting ? "BROADCASTING" : "CLUSTERING";
}

std::string_view to_string(ConsumeFromWhere where) noexcept {
  switch (where) {
    case ConsumeFromWhere::kFirstOffset: return "CONSUME_FROM_FIRST_OFFSET";
    case ConsumeFromWhere::kTimestamp: return "CONSUME_FROM_TIMESTAMP";
    case ConsumeFromWhere::kLastOffset: break;
  }
  return "CONSUME_FROM_LAST_OFFSET";
}

Result<std::int64_t> parse_consume_timestamp(std::string_view text) {
  if (text.empty()) {
    return kernel::wall_clock_ms() - kHalfHourMs;
  }
  if (text.size() != 14 || !all_digits(text)) {
    return Status::invalid_argument("consume_timestamp '" + std::string(text) + "' is not yyyyMMddHHmmss");
  }
  std::tm tm{};
  tm.tm_year = number(text.substr(0, 4)) - 1900;
  tm.tm_mon = number(text.substr(4, 2)) - 1;
  tm.tm_mday = number(text.substr(6, 2));
  tm.tm_hour = number(text.substr(8, 2));
  tm.tm_min = number(text.substr(10, 2));
  tm.tm_sec = number(text.substr(12, 2));
  tm.tm_isdst = -1;
  const std::tm asked = tm;
  const std::time_t seconds = std::mktime(&tm);
  // mktime normalizes out-of-range fields (month 13, day 32): such a date was not a real one.
  if (seconds == static_cast<std::time_t>(-1) || tm.tm_mon != asked.tm_mon || tm.tm_mday != asked.tm_mday ||
      tm.tm_min != asked.tm_min || tm.tm_sec != asked.tm_sec) {
    return Status::invalid_argument("consume_timestamp '" + std::string(text) + "' is not a valid date and time");
  }
  return static_cast<std::int64_t>(seconds) * 1000;
}

Status ConsumerConfig::validate() const {
  MQKIT_RETURN_IF_ERROR(client.validate());
  if (group.empty()) return Status::invalid_argument("consumer group is empty: set [consumer] group");
  if (Status s = protocol::validate_group(group); !s) return s.with_context("consumer group");
  if (pull_batch_size < 1 || pull_batch_size > 1024) return Status::invalid_argument("pull_batch_size must be 1..1024");
  if (consume_message_batch_max_size < 1 || consume_message_batch_max_size > 1024) {
    return Status::invalid_argument("consume_message_batch_max_size must be 1..1024");
  }
  if (pull_threshold_for_queue < 1) return Status::invalid_argument("pull_threshold_for_queue must be positive");
  if (pull_threshold_size_for_queue == 0) {
    return Status::invalid_argument("pull_threshold_size_for_queue must be positive");
  }
  if (consume_concurrently_max_span < 1) {
    return Status::invalid_argument("consume_concurrently_max_span must be positive");
  }
  if (max_reconsume_times < -1) return Status::invalid_argument("max_reconsume_times must be -1 or more");
  if (consume_timeout.count() <= 0) return Status::invalid_argument("consume_timeout must be positive");
  if (consume_thread_count < 1 || consume_thread_count > 1000) {
    return Status::invalid_argument("consume_thread_count must be 1..1000");
  }
  if (broker_suspend_max_time.count() < 0 || consumer_timeout_when_suspend <= broker_suspend_max_time) {
    return Status::invalid_argument("consumer_timeout_when_suspend must be longer than broker_suspend_max_time");
  }
  if (pull_time_delay_when_exception.count() <= 0 || suspend_current_queue_time.count() <= 0 ||
      lock_interval.count() <= 0 || pull_interval.count() < 0 || auto_commit_interval.count() <= 0 ||
      poll_timeout.count() < 0 || topic_metadata_check_interval.count() <= 0) {
    return Status::invalid_argument("consumer pauses and intervals must be positive");
  }
  if (lock_interval >= ProcessQueue::kLockMaxLive) {
    return Status::invalid_argument("lock_interval must be shorter than " +
                                    std::to_string(ProcessQueue::kLockMaxLive.count()) +
                                    " ms, after which a queue lock counts as lost");
  }
  if (pull_threshold_for_all < 1) return Status::invalid_argument("pull_threshold_for_all must be positive");
  if (consume_from_where == ConsumeFromWhere::kTimestamp) {
    if (auto parsed = parse_consume_timestamp(consume_timestamp); !parsed) return parsed.status();
  }
  return trace::validate_trace_topic(customized_trace_topic);
}

int ConsumerConfig::effective_max_reconsume_times(bool orderly) const noexcept {
  if (max_reconsume_times >= 0) return max_reconsume_times;
  return orderly ? kOrderlyUnlimitedReconsumeTimes : kDefaultMaxReconsumeTimes;
}

std::filesystem::path ConsumerConfig::local_offsets_file(std::string_view client_id) const {
  std::filesystem::path dir = offset_store_dir;
  if (dir.empty()) {
    const char* home = std::getenv("HOME");
    dir = std::filesystem::path(home != nullptr && *home != '\0' ? home : ".") / ".rocketmq_offsets";
  }
  return dir / std::string(client_id) / group / "offsets.json";
}

const plugin::v1::ConfigSchema& consumer_schema() { return kConsumerSchema; }

Result<ConsumerConfig> load_consumer_config(kernel::Bootstrap& boot) {
  ConsumerConfig config;
  MQKIT_ASSIGN_OR_RETURN(config.client, load_client_config(boot));
  MQKIT_ASSIGN_OR_RETURN(auto values, boot.section("consumer", consumer_schema()));
  using std::chrono::milliseconds;
  config.group = values.get_string("group");
  config.message_model =
      values.get_string("message_model") == "BROADCASTING" ? MessageModel::kBroadcasting : MessageModel::kClustering;
  const std::string where = values.get_string("consume_from_where");
  config.consume_from_where = where == "CONSUME_FROM_FIRST_OFFSET" ? ConsumeFromWhere::kFirstOffset
                              : where == "CONSUME_FROM_TIMESTAMP"  ? ConsumeFromWhere::kTimestamp
                                                                   : ConsumeFromWhere::kLastOffset;
  config.consume_timestamp = values.get_string("consume_timestamp");
  config.pull_batch_size = static_cast<int>(values.get_int("pull_batch_size"));
  config.consume_message_batch_max_size = static_cast<int>(values.get_int("consume_message_batch_max_size"));
  config.pull_threshold_for_queue = static_cast<int>(values.get_int("pull_threshold_for_queue"));
  config.pull_threshold_size_for_queue = static_cast<std::size_t>(values.get_size("pull_threshold_size_for_queue"));
  config.consume_concurrently_max_span = values.get_int("consume_concurrently_max_span");
  config.max_reconsume_times = static_cast<int>(values.get_int("max_reconsume_times"));
  config.consume_timeout = std::chrono::minutes(values.get_int("consume_timeout"));
  config.consume_thread_count = static_cast<int>(values.get_int("consume_thread_count"));
  config.broker_suspend_max_time = milliseconds(values.get_duration_ms("broker_suspend_max_time"));
  config.consumer_timeout_when_suspend = milliseconds(values.get_duration_ms("consumer_timeout_when_suspend"));
  config.pull_time_delay_when_exception = milliseconds(values.get_duration_ms("pull_time_delay_when_exception"));
  config.pull_interval = milliseconds(values.get_duration_ms("pull_interval"));
  config.suspend_current_queue_time = milliseconds(values.get_duration_ms("suspend_current_queue_time"));
  config.lock_interval = milliseconds(values.get_duration_ms("lock_interval"));
  config.offset_store_dir = values.get_string("offset_store_dir");
  config.auto_commit = values.get_bool("auto_commit");
  config.auto_commit_interval = milliseconds(values.get_duration_ms("auto_commit_interval"));
  config.poll_timeout = milliseconds(values.get_duration_ms("poll_timeout"));
  config.pull_threshold_for_all = static_cast<int>(values.get_int("pull_threshold_for_all"));
  config.topic_metadata_check_interval = milliseconds(values.get_duration_ms("topic_metadata_check_interval"));
  config.enable_msg_trace = values.get_bool("enable_msg_trace");
  config.customized_trace_topic = values.get_string("customized_trace_topic");
  return config;
}

}  // namespace mqkit::client
