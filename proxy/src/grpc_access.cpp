#include "grpc_access.hpp"

#include <openssl/evp.h>


#include "apache/rocketmq/v2/service.pb.h"
#include "message_conversion.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/acl/remote_address_pattern.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/text.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;
using plugin::v1::Result;
using plugin::v1::Status;

namespace {

constexpr std::string_view kAuthorization = "authorization";
constexpr std::string_view kDateTime = "x-mq-date-time";

std::optional<std::string_view> header(const CallMetadata& metadata, std::string_view name) {
  const auto it = metadata.find(grpc::string_ref(name.data(), name.size()));
  if (it == metadata.end()) return std::nullopt;
  return std::string_view(it->second.data(), it->second.size());
}

// RocketMQ compares signatures in Base64; gRPC clients send theirs in hexadecimal.
Result<std::string> hex_to_base64(std::string_view hex) {
  const auto bytes = protocol::bytes_of_hex(hex);
  if (!bytes) return Status::invalid_argument("the authorization header's Signature is not hexadecimal");
  std::string encoded(4 * ((bytes->size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                      reinterpret_cast<const unsigned char*>(bytes->data()), static_cast<int>(bytes->size()));
  encoded.resize(static_cast<std::size_t>(written));
  return encoded;
}

// Base64 back to the hexadecimal clients send.
std::string base64_to_hex(std::string_view base64) {
  std::string bytes(3 * base64.size() / 4 + 1, '\0');
  const int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                      reinterpret_cast<const unsigned char*>(base64.data()), static_cast<int>(base64.size()));
  std::size_t size = decoded < 0 ? 0 : static_cast<std::size_t>(decoded);
  // EVP_DecodeBlock counts the padding's zero bytes too.
  for (std::size_t i = base64.size(); i > 0 && base64[i - 1] == '='; --i) --size;
  bytes.resize(size);
  return protocol::hex_upper(bytes);
}

class Needs {
 public:
  void topic(const v2::Resource& topic, acl::Permission permission) { access.needed[wire_name(topic)] = permission; }
  void group(const v2::Resource& group, acl::Permission permission) {
    access.needed[protocol::retry_topic(wire_name(group))] = permission;
  }
  acl::AccessRequest access;
};

}  // namespace

Result<CallSignature> call_signature(const CallMetadata& metadata) {
  CallSignature signature;
  const auto authorization = header(metadata, kAuthorization);
  if (!authorization || authorization->empty()) return signature;
  const auto date_time = header(metadata, kDateTime);
  if (!date_time || date_time->empty()) {
    return Status::invalid_argument("the call is signed (authorization header) but has no x-mq-date-time header");
  }
  signature.date_time = std::string(*date_time);
  // "MQv2-HMAC-SHA1 Credential=AK, SignedHeaders=x-mq-date-time, Signature=HEX": a scheme, then
  // comma-separated key=value items (the credential may go on "/..." scopes, which are ignored).
  const auto space = authorization->find(' ');
  if (space == std::string_view::npos) {
    return Status::invalid_argument("the authorization header is not \"MQv2-HMAC-SHA1 Credential=..., Signature=...\"");
  }
  std::string_view items = authorization->substr(space + 1);
  while (!items.empty()) {
    const auto comma = items.find(',');
    const std::string_view item = protocol::trim(items.substr(0, comma));
    items = comma == std::string_view::npos ? std::string_view() : items.substr(comma + 1);
    const auto equals = item.find('=');
    if (equals == std::string_view::npos) {
      return Status::invalid_argument("the authorization header's item \"" + std::string(item) + "\" is not key=value");
    }
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    if (key == "Credential") {
      signature.access_key = std::string(value.substr(0, value.find('/')));
    } else if (key == "Signature") {
      MQKIT_ASSIGN_OR_RETURN(signature.signature, hex_to_base64(value));
    }
  }
  return signature;
}

Result<std::string> authorization_header(std::string_view access_key, std::string_view secret_key,
                                         std::string_view date_time) {
  MQKIT_ASSIGN_OR_RETURN(const std::string signature, protocol::acl::signature_of(date_time, secret_key));
  return "MQv2-HMAC-SHA1 Credential=" + std::string(access_key) +
         ", SignedHeaders=x-mq-date-time, Signature=" + base64_to_hex(signature);
}

Result<acl::AccessRequest> access_needs(const google::protobuf::Message& request) {
  Needs needs;
  if (const auto* heartbeat = dynamic_cast<const v2::HeartbeatRequest*>(&request)) {
    if (heartbeat->client_type() == v2::PUSH_CONSUMER || heartbeat->client_type() == v2::SIMPLE_CONSUMER) {
      if (!heartbeat->has_group()) return Status::invalid_argument("a consumer's heartbeat names no group");
      needs.group(heartbeat->group(), acl::kSub);
    }
  } else if (const auto* send = dynamic_cast<const v2::SendMessageRequest*>(&request)) {
    for (const auto& message : send->messages()) needs.topic(message.topic(), acl::kPub);
  } else if (const auto* receive = dynamic_cast<const v2::ReceiveMessageRequest*>(&request)) {
    needs.group(receive->group(), acl::kSub);
    needs.topic(receive->message_queue().topic(), acl::kSub);
  } else if (const auto* ack = dynamic_cast<const v2::AckMessageRequest*>(&request)) {
    needs.group(ack->group(), acl::kSub);
    needs.topic(ack->topic(), acl::kSub);
  } else if (const auto* forward = dynamic_cast<const v2::ForwardMessageToDeadLetterQueueRequest*>(&request)) {
    needs.group(forward->group(), acl::kSub);
    needs.topic(forward->topic(), acl::kSub);
  } else if (const auto* change = dynamic_cast<const v2::ChangeInvisibleDurationRequest*>(&request)) {
    needs.group(change->group(), acl::kSub);
    needs.topic(change->topic(), acl::kSub);
  } else if (const auto* end = dynamic_cast<const v2::EndTransactionRequest*>(&request)) {
    needs.topic(end->topic(), acl::kPub);
  } else if (const auto* recall = dynamic_cast<const v2::RecallMessageRequest*>(&request)) {
    needs.topic(recall->topic(), acl::kPub);
  } else if (const auto* route = dynamic_cast<const v2::QueryRouteRequest*>(&request)) {
    needs.topic(route->topic(), acl::kAny);
  } else if (const auto* assignment = dynamic_cast<const v2::QueryAssignmentRequest*>(&request)) {
    needs.group(assignment->group(), acl::kSub);
    needs.topic(assignment->topic(), acl::kSub);
  } else if (const auto* termination = dynamic_cast<const v2::NotifyClientTerminationRequest*>(&request)) {
    // Producers leave without a group; RocketMQ would check the empty name's retry topic.
    if (termination->has_group() && !termination->group().name().empty()) needs.group(termination->group(), acl::kSub);
  } else if (const auto* command = dynamic_cast<const v2::TelemetryCommand*>(&request)) {
    if (command->has_settings()) {
      const v2::Settings& settings = command->settings();
      if (!settings.has_publishing() && !settings.has_subscription()) {
        return Status::invalid_argument("the settings name neither publishing nor subscription");
      }
      for (const auto& topic : settings.publishing().topics()) needs.topic(topic, acl::kPub);
      if (settings.has_subscription()) {
        needs.group(settings.subscription().group(), acl::kSub);
        for (const auto& entry : settings.subscription().subscriptions()) needs.topic(entry.topic(), acl::kSub);
      }
    }
  }
  return std::move(needs.access);
}

Status check_call(const acl::AccessControl& access_control, const CallMetadata& metadata, std::string_view peer,
                  const google::protobuf::Message& request) {
  const auto rules = access_control.rules();
  const std::string_view host = acl::host_of(peer);
  if (acl::globally_white(*rules, host)) return Status::ok();
  MQKIT_ASSIGN_OR_RETURN(const CallSignature signature, call_signature(metadata));
  MQKIT_ASSIGN_OR_RETURN(acl::AccessRequest access, access_needs(request));
  access.access_key = signature.access_key;
  access.signature = signature.signature;
  return acl::decide(*rules, host, access, request.GetDescriptor()->name(), "proxy",
                     [&](const acl::AclAccount& account) {
                       return protocol::acl::signature_of(signature.date_time, account.secret_key);
                     });
}

}  // namespace mqkit::proxy
