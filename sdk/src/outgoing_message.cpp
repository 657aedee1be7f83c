#include "outgoing_message.hpp"

#include <charconv>

#include "compression.hpp"
#include "mqkit/client/message_id.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
namespace property = v1::property;

namespace {

v1::Properties as_list(const Message::PropertyMap& properties) { return {properties.begin(), properties.end()}; }

Result<std::string> encoded_properties(const Message& message) {
  std::string encoded = v1::encode_properties(as_list(message.properties()));
  if (encoded.size() > v1::kMaxPropertiesLength) {
    return Status::invalid_argument("the message properties take " + std::to_string(encoded.size()) +
                                    " bytes encoded, over the limit of " + std::to_string(v1::kMaxPropertiesLength));
  }
  return encoded;
}

void ensure_unique_id(Message& message) {
  if (message.unique_id().empty()) message.set_property(std::string(property::kUniqueKey), new_unique_id());
}

std::optional<std::int32_t> int_property(const Message& message, std::string_view name) {
  const auto text = message.property(name);
  std::int32_t value = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) {
    return std::nullopt;
  }
  return value;
}

bool is_retry_topic(std::string_view topic) { return topic.starts_with(protocol::kRetryGroupTopicPrefix); }

// The batch header carries WAIT only. Java gives the batch a UNIQ_KEY of its own too, but
// brokers append the header's properties to every message, so that key replaced each message's
// own (apache/rocketmq#9416): consumers saw one id for the whole batch.
Result<std::string> batch_header_properties(const std::string& topic, bool wait_store_msg_ok) {
  Message header(topic, std::string());
  header.set_wait_store_msg_ok(wait_store_msg_ok);
  return encoded_properties(header);
}

// What prepare_batch refuses, checked on a single message.
bool fits_a_batch(const Message& message) {
  return message.delay_time_level() <= 0 && !is_retry_topic(message.topic()) && message.wait_store_msg_ok();
}

}  // namespace

Status validate_message(const Message& message, const ProducerConfig& config) {
  if (Status s = protocol::validate_topic(message.topic()); !s) return s;
  if (protocol::is_not_allowed_send_topic(message.topic())) {
    return Status::invalid_argument("Sending message to topic[" + message.topic() + "] is forbidden.");
  }
  if (message.body().empty()) return Status::invalid_argument("the message body length is zero");
  if (message.body().size() > config.max_message_size) {
    return Status::invalid_argument("the message body size over max value, MAX: " +
                                    std::to_string(config.max_message_size) + ", body: " +
                                    std::to_string(message.body().size()));
  }
  return Status::ok();
}

Result<PreparedMessage> prepare_message(Message message, const ProducerConfig& config) {
  MQKIT_RETURN_IF_ERROR(validate_message(message, config));
  ensure_unique_id(message);
  PreparedMessage out;
  out.topic = message.topic();
  out.tags = std::string(message.tags());
  out.keys = std::string(message.keys());
  out.flag = message.flag();
  if (message.property(property::kTransactionPrepared).value_or("") == "true") {
    out.sys_flag |= v1::sys_flag::kTransactionPrepared;
  }
  out.batchable = fits_a_batch(message);
  if (is_retry_topic(out.topic)) {
    // A consumer re-sending a message to its retry topic carries the counters in the header.
    out.reconsume_times = int_property(message, property::kReconsumeTime).value_or(0);
    out.max_reconsume_times = int_property(message, property::kMaxReconsumeTimes);
  }
  MQKIT_ASSIGN_OR_RETURN(out.properties, encoded_properties(message));
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

Result<PreparedMessage> prepare_batch(std::vector<Message> messages, const ProducerConfig& config) {
  if (messages.empty()) return Status::invalid_argument("a batch needs at least one message");
  const Message& first = messages.front();
  std::vector<std::uint8_t> body;
  for (auto& message : messages) {
    if (message.topic() != first.topic()) {
      return Status::invalid_argument("The topic of the messages in one batch should be the same");
    }
    if (message.delay_time_level() > 0) return Status::invalid_argument("TimeDelayLevel is not supported for batching");
    if (is_retry_topic(message.topic())) return Status::invalid_argument("Retry Group is not supported for batching");
    if (message.wait_store_msg_ok() != first.wait_store_msg_ok()) {
      return Status::invalid_argument("The waitStoreMsgOK of the messages in one batch should the same");
    }
    MQKIT_RETURN_IF_ERROR(validate_message(message, config));
    ensure_unique_id(message);
    MQKIT_ASSIGN_OR_RETURN(const std::string properties, encoded_properties(message));
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
  MQKIT_ASSIGN_OR_RETURN(out.properties, batch_header_properties(first.topic(), first.wait_store_msg_ok()));
  out.body = std::make_shared<const std::string>(body.begin(), body.end());
  return out;
}

std::size_t batch_item_size(const PreparedMessage& message) {
  return 4 + 4 + 4 + 4 + 4 + message.body->size() + 2 + message.properties.size();
}

PreparedMessage join_batch(std::span<const std::shared_ptr<const PreparedMessage>> parts) {
  std::size_t size = 0;
  for (const auto& part : parts) size += batch_item_size(*part);
  std::vector<std::uint8_t> body;
  body.reserve(size);
  for (const auto& part : parts) {
    const std::string& bytes = *part->body;
    v1::append_batch_item(body, part->flag, {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
                          part->properties);
  }
  PreparedMessage out;
  out.topic = parts.front()->topic;
  out.batch = true;
  // Batchable messages wait for the store, and a header of a valid topic always encodes.
  out.properties = batch_header_properties(out.topic, true).value();
  out.body = std::make_shared<const std::string>(body.begin(), body.end());
  return out;
}

}  // namespace mqkit::client
