#include "message_conversion.hpp"

#include <algorithm>
#include <charconv>

#include <openssl/evp.h>

#include "mqkit/client/compression.hpp"
#include "mqkit/protocol/namespace.hpp"
#include "mqkit/protocol/pop_receipt.hpp"
#include "proto_time.hpp"
#include "mqkit/client/message.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/text.hpp"
#include "mqkit/protocol/timer.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::proxy {

namespace {

namespace property = plugin::v1::property;

// Character.isISOControl of any code point: C0, DEL and C1 (U+0080..U+009F is C2 80..C2 9F in UTF-8).
bool has_control_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9F) return true;
    }
  }
  return false;
}

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

using Refusal = std::optional<v2::Status>;

Refusal refuse(v2::Code code, std::string message) { return make_status(code, std::move(message)); }

Refusal check_tag(std::string_view tag) {
  if (tag.empty()) return std::nullopt;
  if (is_blank(tag)) return refuse(v2::ILLEGAL_MESSAGE_TAG, "tag cannot be the char sequence of whitespace");
  if (tag.find('|') != std::string_view::npos) return refuse(v2::ILLEGAL_MESSAGE_TAG, "tag cannot contain '|'");
  if (has_control_character(tag)) return refuse(v2::ILLEGAL_MESSAGE_TAG, "tag cannot contain control character");
  return std::nullopt;
}

Refusal check_group(std::string_view group, const ProxySettings& settings) {
  if (group.empty()) return std::nullopt;
  if (is_blank(group)) return refuse(v2::ILLEGAL_MESSAGE_GROUP, "message group cannot be the char sequence of whitespace");
  if (static_cast<std::int64_t>(group.size()) >= settings.max_message_group_size) {
    return refuse(v2::ILLEGAL_MESSAGE_GROUP, "message group exceed the max size " + std::to_string(settings.max_message_group_size));
  }
  if (has_control_character(group)) return refuse(v2::ILLEGAL_MESSAGE_GROUP, "message group cannot contain control character");
  return std::nullopt;
}

// The body as brokers store it (inflated when the client sent gzip), or why it is refused.
std::variant<std::string, v2::Status> stored_body(const v2::Message& message, const ProxySettings& settings) {
  const std::string& body = message.body();
  const auto limit = static_cast<std::size_t>(settings.max_message_size);
  const auto too_large = make_status(v2::MESSAGE_BODY_TOO_LARGE, "message body cannot exceed the max " + std::to_string(limit));
  if (body.size() > limit) return too_large;
  if (message.system_properties().body_encoding() != v2::GZIP) {
    if (body.empty() && settings.enable_message_body_empty_check) {
      return make_status(v2::MESSAGE_BODY_EMPTY, "message body cannot be empty");
    }
    return body;
  }
  auto inflated = client::zlib_uncompress(
      std::span(reinterpret_cast<const std::uint8_t*>(body.data()), body.size()), limit);
  if (!inflated && inflated.status().code() == plugin::v1::StatusCode::kResourceExhausted) return too_large;
  if (!inflated) return make_status(v2::MESSAGE_CORRUPTED, "gzip body: " + inflated.status().message());
  if (inflated->empty() && settings.enable_message_body_empty_check) {
    return make_status(v2::MESSAGE_BODY_EMPTY, "message body cannot be empty");
  }
  return std::move(inflated).value();
}

// The message's properties as brokers store them, or why they are refused.
std::variant<plugin::v1::Properties, v2::Status> stored_properties(const v2::Message& message, std::string_view producer_group,
                                                                   const ProxySettings& settings, std::string_view peer_host,
                                                                   std::int64_t now_ms) {
  const auto& system = message.system_properties();
  plugin::v1::Properties out;
  std::int64_t user_size = 0;
  if (static_cast<std::int64_t>(message.user_properties_size()) > settings.user_property_max_num) {
    return make_status(v2::MESSAGE_PROPERTIES_TOO_LARGE,
                       "too many user properties, max is " + std::to_string(settings.user_property_max_num));
  }
  for (const auto& [key, value] : message.user_properties()) {
    if (client::is_system_property(key)) {
      return make_status(v2::ILLEGAL_MESSAGE_PROPERTY_KEY, "property is used by system: " + key);
    }
    if (has_control_character(key)) {
      return make_status(v2::ILLEGAL_MESSAGE_PROPERTY_KEY, "the key of property cannot contain control character");
    }
    if (has_control_character(value)) {
      return make_status(v2::ILLEGAL_MESSAGE_PROPERTY_KEY, "the value of property cannot contain control character");
    }
    user_size += static_cast<std::int64_t>(key.size() + value.size());
    out.emplace_back(key, value);
  }
  // A map's order is unspecified: sorted, one message always stores the same bytes.
  std::sort(out.begin(), out.end());

  if (auto refused = check_tag(system.tag())) return *refused;
  if (!system.tag().empty()) out.emplace_back(property::kTags, system.tag());
  user_size += static_cast<std::int64_t>(system.tag().size());

  std::string keys;
  for (const auto& key : system.keys()) {
    if (key.empty()) continue;
    if (is_blank(key)) return make_status(v2::ILLEGAL_MESSAGE_KEY, "key cannot be the char sequence of whitespace");
    if (has_control_character(key)) return make_status(v2::ILLEGAL_MESSAGE_KEY, "key cannot contain control character");
    if (!keys.empty()) keys += ' ';
    keys += key;
    user_size += static_cast<std::int64_t>(key.size());
  }
  if (!keys.empty()) out.emplace_back(property::kKeys, keys);
  if (user_size > settings.max_user_property_size) {
    return make_status(v2::MESSAGE_PROPERTIES_TOO_LARGE, "the total size of user property is too large, max is " +
                                                             std::to_string(settings.max_user_property_size));
  }

  if (is_blank(system.message_id())) return make_status(v2::ILLEGAL_MESSAGE_ID, "message id cannot be empty");
  out.emplace_back(property::kUniqueKey, system.message_id());

  if (system.message_type() == v2::TRANSACTION) {
    out.emplace_back(property::kTransactionPrepared, "true");
    if (system.has_orphaned_transaction_recovery_duration()) {
      out.emplace_back(protocol::transaction::property::kCheckImmunitySeconds,
                       std::to_string(ms_of(system.orphaned_transaction_recovery_duration()) / 1000));
    }
  }
  if (system.has_delivery_timestamp()) {
    const std::int64_t deliver_ms = ms_of(system.delivery_timestamp());
    if (deliver_ms - now_ms > settings.max_delay_time.count()) {
      return make_status(v2::ILLEGAL_DELIVERY_TIME,
                         "the max delay time of message is too large, max is " + std::to_string(settings.max_delay_time.count()));
    }
    out.emplace_back(protocol::timer::property::kDeliverMs, std::to_string(deliver_ms));
  }
  out.emplace_back(property::kReconsumeTime, std::to_string(system.delivery_attempt()));
  out.emplace_back(property::kProducerGroup, producer_group);
  if (system.has_message_group()) {
    if (auto refused = check_group(system.message_group(), settings)) return *refused;
    if (!system.message_group().empty()) out.emplace_back("__SHARDINGKEY", system.message_group());
  }
  if (!system.trace_context().empty()) out.emplace_back("TRACE_CONTEXT", system.trace_context());
  const std::string_view born_host = is_blank(system.born_host()) ? peer_host : std::string_view(system.born_host());
  if (!born_host.empty()) out.emplace_back("__BORNHOST", std::string(born_host));
  if (system.has_born_timestamp()) out.emplace_back("BORN_TIMESTAMP", std::to_string(ms_of(system.born_timestamp())));
  return out;
}

}  // namespace

namespace {

// Uppercase hex MD5, as RocketMQ's proxy and clients write digests.
std::string md5_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_md5(), nullptr);
  return protocol::hex_upper(std::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace

v2::Message to_grpc_message(const client::MessageExt& m, const v2::Resource& topic) {
  v2::Message out;
  *out.mutable_topic() = topic;
  out.set_body(m.body());
  auto& system = *out.mutable_system_properties();
  const auto property = [&m](std::string_view name) { return m.property(name); };
  if (const auto tag = property(property::kTags)) system.set_tag(std::string(*tag));
  if (const auto keys = property(property::kKeys)) {
    for (std::string_view rest = *keys; !rest.empty();) {
      const auto space = rest.find(' ');
      if (space != 0) system.add_keys(std::string(rest.substr(0, space)));
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  }
  system.set_message_id(std::string(property(property::kUniqueKey).value_or(m.msg_id())));
  system.mutable_body_digest()->set_type(v2::MD5);
  system.mutable_body_digest()->set_checksum(md5_hex(m.body()));
  system.set_body_encoding(v2::IDENTITY);  // bodies come inflated from the SDK
  const auto deliver_ms = property(protocol::timer::property::kDeliverMs);
  if (property(property::kTransactionPrepared) == "true") {
    system.set_message_type(v2::TRANSACTION);
  } else if (deliver_ms || property(property::kDelayLevel) || property(protocol::timer::property::kDelaySec)) {
    system.set_message_type(v2::DELAY);
  } else if (property("__SHARDINGKEY")) {
    system.set_message_type(v2::FIFO);
  } else {
    system.set_message_type(v2::NORMAL);
  }
  *system.mutable_born_timestamp() = timestamp_of(m.born_timestamp);
  system.set_born_host(std::string(property("__BORNHOST").value_or(m.born_host)));
  *system.mutable_store_timestamp() = timestamp_of(m.store_timestamp);
  system.set_store_host(m.store_host);
  if (deliver_ms) {
    std::int64_t at = 0;
    const auto [end, error] = std::from_chars(deliver_ms->data(), deliver_ms->data() + deliver_ms->size(), at);
    if (error == std::errc() && end == deliver_ms->data() + deliver_ms->size()) *system.mutable_delivery_timestamp() = timestamp_of(at);
  }
  if (const auto group = property("__SHARDINGKEY")) system.set_message_group(std::string(*group));
  if (const auto receipt = property("POP_CK")) {
    system.set_receipt_handle(std::string(*receipt));
    if (auto parsed = protocol::decode_pop_receipt(*receipt)) {
      *system.mutable_invisible_duration() = duration_of(parsed->invisible_ms);
    }
  }
  system.set_queue_id(m.queue_id);
  system.set_queue_offset(m.queue_offset);
  system.set_delivery_attempt(plugin::v1::next_reconsume_times(m.reconsume_times));
  if (const auto trace = property("TRACE_CONTEXT")) system.set_trace_context(std::string(*trace));
  auto& user = *out.mutable_user_properties();
  for (const auto& [name, value] : m.properties()) {
    if (!client::is_system_property(name)) user[name] = value;
  }
  return out;
}

std::string wire_name(const v2::Resource& resource) {
  return protocol::wrap_namespace(resource.resource_namespace(), resource.name());
}

std::variant<BrokerBoundSend, v2::Status> to_broker_send(const v2::SendMessageRequest& request,
                                                         const ProxySettings& settings, std::string_view peer_host,
                                                         std::int64_t now_ms) {
  if (request.messages_size() == 0) return make_status(v2::MESSAGE_CORRUPTED, "no message to send");
  const v2::Message& first = request.messages(0);
  const std::string& topic_name = first.topic().name();
  if (auto invalid = protocol::validate_topic(topic_name); !invalid) {
    return make_status(v2::ILLEGAL_TOPIC, invalid.message());
  }
  if (protocol::is_not_allowed_send_topic(topic_name)) {
    return make_status(v2::ILLEGAL_TOPIC, "cannot access system topic: " + topic_name);
  }
  BrokerBoundSend send;
  send.topic = wire_name(first.topic());
  send.message_count = static_cast<std::size_t>(request.messages_size());
  send.request.producer_group = send.topic;
  send.request.topic = send.topic;
  send.request.born_timestamp = first.system_properties().has_born_timestamp()
                                    ? ms_of(first.system_properties().born_timestamp()) : now_ms;
  send.request.reconsume_times = first.system_properties().delivery_attempt();
  send.request.batch = request.messages_size() > 1;
  send.transactional = first.system_properties().message_type() == v2::TRANSACTION;
  if (send.transactional && send.request.batch) {
    return make_status(v2::BAD_REQUEST, "transactional messages are sent one at a time");
  }
  if (send.transactional) send.request.sys_flag |= plugin::v1::sys_flag::kTransactionPrepared;
  std::string batch_body;
  for (const auto& message : request.messages()) {
    if (message.topic().name() != first.topic().name() ||
        message.topic().resource_namespace() != first.topic().resource_namespace()) {
      return make_status(v2::MESSAGE_CORRUPTED, "topic in message is not same");
    }
    auto body = stored_body(message, settings);
    if (auto* refused = std::get_if<v2::Status>(&body)) return *refused;
    auto properties = stored_properties(message, send.topic, settings, peer_host, now_ms);
    if (auto* refused = std::get_if<v2::Status>(&properties)) return *refused;
    const std::string encoded = plugin::v1::encode_properties(std::get<plugin::v1::Properties>(properties));
    const std::string& bytes = std::get<std::string>(body);
    if (!send.request.batch) {
      send.request.properties = encoded;
      send.request.body = std::make_shared<const std::string>(bytes);
      // RocketMQ's proxy hashes the group only for a lone message.
      send.message_group = message.system_properties().message_group();
    } else {
      plugin::v1::append_batch_item(batch_body, 0,
                                    std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), encoded);
    }
  }
  if (send.request.batch) send.request.body = std::make_shared<const std::string>(std::move(batch_body));
  return send;
}

}  // namespace mqkit::proxy
