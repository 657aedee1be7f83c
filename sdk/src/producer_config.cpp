#include "mqkit/client/producer_config.hpp"

#include <iterator>

#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/protocol/validation.hpp"
#include "trace/trace_settings.hpp"

namespace mqkit::client {

namespace {

using plugin::v1::ConfigField;
using plugin::v1::ValueType;

constexpr double kHourMs = 3'600'000;
constexpr double kMaxFrame = 16.0 * 1024 * 1024;

constexpr ConfigField kProducerFields[] = {
    {.key = "group", .type = ValueType::kString, .default_value = "DEFAULT_PRODUCER",
     .description = "producer group (RocketMQ producerGroup)"},
    {.key = "send_msg_timeout", .type = ValueType::kDuration, .default_value = "3s",
     .description = "time allowed for a whole send, retries included", .min = 1, .max = kHourMs},
    {.key = "retry_times_when_send_failed", .type = ValueType::kInt, .default_value = "2",
     .description = "extra attempts of a sync send, each on another broker when there is one", .min = 0, .max = 16},
    {.key = "retry_times_when_send_async_failed", .type = ValueType::kInt, .default_value = "2",
     .description = "extra attempts of an async send", .min = 0, .max = 16},
    {.key = "retry_another_broker_when_not_store_ok", .type = ValueType::kBool, .default_value = "false",
     .description = "retry a sync send elsewhere when the broker answered FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT or "
                    "SLAVE_NOT_AVAILABLE"},
    {.key = "compress_msg_body_over_howmuch", .type = ValueType::kSize, .default_value = "4KiB",
     .description = "bodies longer than this are zlib-compressed (never batches)", .min = 0, .max = kMaxFrame},
    {.key = "compress_level", .type = ValueType::kInt, .default_value = "5",
     .description = "zlib level of compressed bodies (rocketmq.message.compressLevel)", .min = 1, .max = 9},
    {.key = "max_message_size", .type = ValueType::kSize, .default_value = "4MiB",
     .description = "largest body accepted, checked before compression", .min = 1, .max = kMaxFrame},
    {.key = "default_topic_queue_nums", .type = ValueType::kInt, .default_value = "4",
     .description = "queues per broker of a topic a broker creates on its first message", .min = 1, .max = 1024},
    {.key = "create_topic_key", .type = ValueType::kString, .default_value = "TBW102",
     .description = "topic whose route is used for topics that do not exist yet (auto-creation)"},
    {.key = "max_in_flight_async_messages", .type = ValueType::kInt, .default_value = "10000",
     .description = "async sends awaiting their response at most; a full window makes send_async wait",
     .min = 1, .max = 10'000'000},
    {.key = "max_in_flight_async_bytes", .type = ValueType::kSize, .default_value = "64MiB",
     .description = "body bytes of async sends awaiting their response at most", .min = 1024,
     .max = 68719476736.0},
    {.key = "auto_batch", .type = ValueType::kBool, .default_value = "false",
     .description = "async sends of single messages to one queue go together as one SEND_BATCH_MESSAGE, each "
                    "callback with its own result (RocketMQ autoBatch)"},
    {.key = "batch_max_delay_ms", .type = ValueType::kDuration, .default_value = "0",
     .description = "auto_batch: how long a message to a queue with no request in flight waits for more before "
                    "it is sent; 0 = at once (batches then form from messages that arrive while a request is in "
                    "flight)", .min = 0, .max = 60'000},
    {.key = "batch_max_bytes", .type = ValueType::kSize, .default_value = "256KiB",
     .description = "auto_batch: body and properties bytes of one batch at most (a queue has one request in "
                    "flight, so it moves at most this much per round trip)", .min = 1, .max = kMaxFrame},
    {.key = "total_batch_max_bytes", .type = ValueType::kSize, .default_value = "32MiB",
     .description = "auto_batch: bytes waiting for their batch, over all queues, at most; send_async waits for "
                    "room", .min = 1024, .max = 68719476736.0},
    {.key = "check_thread_pool_size", .type = ValueType::kInt, .default_value = "1",
     .description = "transaction producers: threads that run check_local_transaction for brokers' transaction "
                    "checks (RocketMQ checkThreadPoolMinSize)", .min = 1, .max = 256},
    {.key = "check_request_hold_max", .type = ValueType::kInt, .default_value = "2000",
     .description = "transaction producers: checks waiting for a check thread at most; more are dropped and the "
                    "broker asks again later", .min = 1, .max = 10'000'000},
    trace::kEnableMsgTraceField,
    trace::kCustomizedTraceTopicField,
};
constexpr plugin::v1::ConfigSchema kProducerSchema{kProducerFields, std::size(kProducerFields)};

}  // namespace

Status ProducerConfig::validate() const {
  MQKIT_RETURN_IF_ERROR(client.validate());
  if (Status s = protocol::validate_group(group); !s) return s.with_context("producer group");
  if (send_msg_timeout.count() <= 0) return Status::invalid_argument("send_msg_timeout must be positive");
  if (retry_times_when_send_failed < 0 || retry_times_when_send_async_failed < 0) {
    return Status::invalid_argument("retry times must not be negative");
  }
  if (compress_level < 1 || compress_level > 9) return Status::invalid_argument("compress_level must be 1..9");
  if (max_message_size == 0) return Status::invalid_argument("max_message_size must be positive");
  if (default_topic_queue_nums < 1) return Status::invalid_argument("default_topic_queue_nums must be positive");
  if (Status s = protocol::validate_topic(create_topic_key); !s) return s.with_context("create_topic_key");
  if (max_in_flight_async_messages == 0 || max_in_flight_async_bytes == 0) {
    return Status::invalid_argument("the async window must hold at least one message");
  }
  if (batch_max_delay.count() < 0) return Status::invalid_argument("batch_max_delay_ms must not be negative");
  if (batch_max_bytes == 0 || batch_max_bytes > max_message_size) {
    return Status::invalid_argument("batch_max_bytes must be 1 .. max_message_size (" +
                                    std::to_string(max_message_size) + ")");
  }
  if (total_batch_max_bytes < batch_max_bytes) {
    return Status::invalid_argument("total_batch_max_bytes must be at least batch_max_bytes");
  }
  if (check_thread_pool_size == 0) return Status::invalid_argument("check_thread_pool_size must be positive");
  if (check_request_hold_max == 0) return Status::invalid_argument("check_request_hold_max must be positive");
  return trace::validate_trace_topic(customized_trace_topic);
}

const plugin::v1::ConfigSchema& producer_schema() { return kProducerSchema; }

Result<ProducerConfig> load_producer_config(kernel::Bootstrap& boot) {
  ProducerConfig config;
  MQKIT_ASSIGN_OR_RETURN(config.client, load_client_config(boot));
  MQKIT_ASSIGN_OR_RETURN(auto values, boot.section("producer", producer_schema()));
  config.group = values.get_string("group");
  config.send_msg_timeout = std::chrono::milliseconds(values.get_duration_ms("send_msg_timeout"));
  config.retry_times_when_send_failed = static_cast<int>(values.get_int("retry_times_when_send_failed"));
  config.retry_times_when_send_async_failed = static_cast<int>(values.get_int("retry_times_when_send_async_failed"));
  config.retry_another_broker_when_not_store_ok = values.get_bool("retry_another_broker_when_not_store_ok");
  config.compress_msg_body_over_howmuch = static_cast<std::size_t>(values.get_size("compress_msg_body_over_howmuch"));
  config.compress_level = static_cast<int>(values.get_int("compress_level"));
  config.max_message_size = static_cast<std::size_t>(values.get_size("max_message_size"));
  config.default_topic_queue_nums = static_cast<int>(values.get_int("default_topic_queue_nums"));
  config.create_topic_key = values.get_string("create_topic_key");
  config.max_in_flight_async_messages = static_cast<std::size_t>(values.get_int("max_in_flight_async_messages"));
  config.max_in_flight_async_bytes = static_cast<std::size_t>(values.get_size("max_in_flight_async_bytes"));
  config.auto_batch = values.get_bool("auto_batch");
  config.batch_max_delay = std::chrono::milliseconds(values.get_duration_ms("batch_max_delay_ms"));
  config.batch_max_bytes = static_cast<std::size_t>(values.get_size("batch_max_bytes"));
  config.total_batch_max_bytes = static_cast<std::size_t>(values.get_size("total_batch_max_bytes"));
  config.check_thread_pool_size = static_cast<std::size_t>(values.get_int("check_thread_pool_size"));
  config.check_request_hold_max = static_cast<std::size_t>(values.get_int("check_request_hold_max"));
  config.enable_msg_trace = values.get_bool("enable_msg_trace");
  config.customized_trace_topic = values.get_string("customized_trace_topic");
  return config;
}

}  // namespace mqkit::client
