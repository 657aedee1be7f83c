#include "outgoing_message.hpp"

#include <array>
#include <charconv>

#include "mqkit/client/compression.hpp"
#include "mqkit/client/message_id.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/request_reply.hpp"
#include "mqkit/protocol/validation.hpp"
#include "namespaced_names.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
namespace property = v1::property;

namespace {

Result<std::string> checked_length(std::string encoded) {
  if (encoded.size() > v1::kMaxPropertiesLength) {
    return Status::invalid_argument("the message properties take " + std::to_string(encoded.size()) +
                                    " bytes encoded, over the limit of " + std::to_string(v1::kMaxPropertiesLength));
  }
  return encoded;
}

// The message's properties encoded in their (sorted) order, with a new UNIQ_KEY where it has
// none (or an empty one), as if it had been set on the message: written straight into the
// encoding rather than into the message's map first, since every sent message needs one.
Result<std::string> encoded_properties_with_unique_id(const Message& message) {
  const Message::PropertyMap& properties = message.properties();
  const bool needs_id = message.unique_id().empty();
  std::array<char, kUniqueIdLength> id{};
  std::size_t size = 0;
  if (needs_id) {
    UniqueIdGenerator::process_default().next_into(id);
    size += v1::encoded_property_size(property::kUniqueKey, std::string_view(id.data(), id.size()));
  }
  for (const auto& [name, value] : properties) size += v1::encoded_property_size(name, value);
  std::string encoded;
  encoded.reserve(size);
  bool id_written = !needs_id;
  for (const auto& [name, value] : properties) {
    if (!id_written && name >= property::kUniqueKey) {
      v1::append_property(encoded, property::kUniqueKey, std::string_view(id.data(), id.size()));
      id_written = true;
      if (name == property::kUniqueKey) continue;  // the empty one it replaces
    }
    v1::append_property(encoded, name, value);
  }
  if (!id_written) v1::append_property(encoded, property::kUniqueKey, std::string_view(id.data(), id.size()));
  return checked_length(std::move(encoded));
}

std::optional<std::int32_t> int_property(const Message& message, std::string_view name) {
  const auto text = message.property(name);
  std::int32_t value = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) {
    return std::nullopt;
  }
  return value;
}

// Aliyun's timed-message property, which RocketMQ's send hooks count as a delay too.
constexpr std::string_view kStartDeliverTime = "__STARTDELIVERTIME";

bool is_retry_topic(std::string_view topic) { return topic.starts_with(protocol::kRetryGroupTopicPrefix); }

// A half message (TRAN_MSG=true): stored invisible until its producer ends the transaction.
bool is_transactional(const Message& message) {
  return message.property(property::kTransactionPrepared).value_or("") == "true";
}

// The batch header carries WAIT only. Java gives the batch a UNIQ_KEY of its own too, but
// brokers append the header's properties to every message, so that key replaced each message's
// own (apache/rocketmq#9416): consumers saw one id for the whole batch.
std::string batch_header_properties(bool wait_store_msg_ok) {
  std::string encoded;
  v1::append_property(encoded, property::kWaitStoreOk, wait_store_msg_ok ? "true" : "false");
  return encoded;
}

// A request-reply reply: it travels alone, as SEND_REPLY_MESSAGE_V2, for the broker to push it.
bool is_reply(const Message& message) {
  return message.property(protocol::reply::property::kMessageType) == protocol::reply::kReplyMessageFlag;
}

// What prepare_batch refuses, checked on a single message.
bool fits_a_batch(const Message& message) {
  return message.delay_time_level() <= 0 && !message.has_delivery_time() && !is_retry_topic(message.topic()) && message.wait_store_msg_ok() &&
         !is_reply(message);
}

}  // namespace

Status validate_message(const Message& message, const ProducerConfig& config) {
  if (Status s = protocol::validate_topic(message.topic()); !s) return s;
  if (protocol::is_not_allowed_send_topic(message.topic())) {
    return Status::invalid_argument("Sending message to topic[" + message.topic() + "] is forbidden.");
  }
  if (message.body().empty()) return Status::invalid_argument("the message body length is zero");
  if (message.has_delivery_time() && message.delay_time_level() > 0) {
    // The broker would let the delay level win and drop the delivery time without a word.
    return Status::invalid_argument("the message has both a delay level (" +
                                    std::to_string(message.delay_time_level()) +
                                    ") and a delivery time (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS): "
                                    "set one of them");
  }
  if (message.body().size() > config.max_message_size) {
    return Status::invalid_argument("the message body size over max value, MAX: " +
                                    std::to_string(config.max_message_size) + ", body: " +
                                    std::to_string(message.body().size()));
  }
  return Status::ok();
}

Result<PreparedMessage> prepare_message(Message message, const ProducerConfig& config) {
  apply_namespace(config.client.name_space, message);
  MQKIT_RETURN_IF_ERROR(validate_message(message, config));
  PreparedMessage out;
  out.topic = message.topic();
  out.tags = std::string(message.tags());
  out.keys = std::string(message.keys());
  out.flag = message.flag();
  if (is_transactional(message)) out.sys_flag |= v1::sys_flag::kTransactionPrepared;
  out.batchable = fits_a_batch(message);
  out.delayed = message.delay_time_level() > 0 || message.property(kStartDeliverTime).has_value();
  if (is_retry_topic(out.topic)) {
    // A consumer re-sending a message to its retry topic carries the counters in the header.
    out.reconsume_times = int_property(message, property::kReconsumeTime).value_or(0);
    out.max_reconsume_times = int_property(message, property::kMaxReconsumeTimes);
  }
  MQKIT_ASSIGN_OR_RETURN(out.properties, encoded_properties_with_unique_id(message));
  std::string body = message.release_body();
  if (body.size() > config.compress_msg_body_over_howmuch) {
    auto compressed = zlib_compress(body, config.compress_level);
    if (compressed) {
      body = std::move(compressed).value();
      out.sys_flag |= v1::sys_flag::kCompressed;
    }
  }
  out.batchable = out.batchable && out.sys_flag == 0;
  out.body = std::make_shared<const std::string>(std::move(body));
  return out;
}

SendMessageRequest send_request_for(const PreparedMessage& message, const ProducerConfig& config,
                                    std::int32_t queue_id) {
  SendMessageRequest request;
  request.producer_group = config.group;
  request.topic = message.topic;
  request.default_topic = config.create_topic_key;
  request.default_topic_queue_nums = config.default_topic_queue_nums;
  request.queue_id = queue_id;
  request.sys_flag = message.sys_flag;
  request.flag = message.flag;
  request.properties = message.properties;
  request.reconsume_times = message.reconsume_times;
  request.max_reconsume_times = message.max_reconsume_times;
  request.batch = message.batch;
  request.body = message.body;
  return request;
}

Result<PreparedMessage> prepare_batch(std::vector<Message> messages, const ProducerConfig& config) {
  if (messages.empty()) return Status::invalid_argument("a batch needs at least one message");
  const Message& first = messages.front();
  std::string body;
  for (auto& message : messages) {
    apply_namespace(config.client.name_space, message);
    if (message.topic() != first.topic()) {
      return Status::invalid_argument("The topic of the messages in one batch should be the same");
    }
    if (message.delay_time_level() > 0) return Status::invalid_argument("TimeDelayLevel is not supported for batching");
    if (message.has_delivery_time()) {
      // A broker holds a batch by the batch's own properties only: its members would be delivered at once.
      return Status::invalid_argument(
          "a message with a delivery time (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS) cannot be batched: "
          "send it alone");
    }
    if (is_retry_topic(message.topic())) return Status::invalid_argument("Retry Group is not supported for batching");
    if (is_reply(message)) {
      return Status::invalid_argument("reply messages cannot be batched: each goes alone, for the broker to push it");
    }
    if (is_transactional(message)) {
      // Each half message needs its own END_TRANSACTION, which a batch's single answer cannot give.
      return Status::invalid_argument(
          "a transactional message (TRAN_MSG=true) cannot be sent in a batch: send each one with "
          "TransactionProducer::send_message_in_transaction");
    }
    if (message.wait_store_msg_ok() != first.wait_store_msg_ok()) {
      return Status::invalid_argument("The waitStoreMsgOK of the messages in one batch should the same");
    }
    MQKIT_RETURN_IF_ERROR(validate_message(message, config));
    MQKIT_ASSIGN_OR_RETURN(const std::string properties, encoded_properties_with_unique_id(message));
    const std::string& bytes = message.body();
    v1::append_batch_item(body, message.flag(), {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
                          properties);
  }
  if (body.size() > config.max_message_size) {
    return Status::invalid_argument("the message body size over max value, MAX: " +
                                    std::to_string(config.max_message_size) + ", batch body: " +
                                    std::to_string(body.size()));
  }
  PreparedMessage out;
  out.topic = first.topic();
  out.batch = true;
  out.properties = batch_header_properties(first.wait_store_msg_ok());
  out.body = std::make_shared<const std::string>(std::move(body));
  return out;
}

std::size_t batch_item_size(const PreparedMessage& message) {
  return v1::batch_item_size(message.body->size(), message.properties.size());
}

PreparedMessage join_batch(std::span<const std::shared_ptr<const PreparedMessage>> parts) {
  std::size_t size = 0;
  for (const auto& part : parts) size += batch_item_size(*part);
  std::string body;
  body.reserve(size);
  for (const auto& part : parts) {
    const std::string& bytes = *part->body;
    v1::append_batch_item(body, part->flag, {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
                          part->properties);
  }
  PreparedMessage out;
  out.topic = parts.front()->topic;
  out.batch = true;
  out.properties = batch_header_properties(true);  // batchable messages wait for the store
  out.body = std::make_shared<const std::string>(std::move(body));
  return out;
}

}  // namespace mqkit::client
