// The ACL check of gRPC calls (RocketMQ 5's proxy with ACL on): a client signs the call's
// `x-mq-date-time` header and names its account in `authorization`:
//
//   authorization: MQv2-HMAC-SHA1 Credential=<AccessKey>, SignedHeaders=x-mq-date-time, Signature=<hex>
//   x-mq-date-time: 20261201T130722Z
//
// where the signature is HmacSHA1(secret key, the date-time header) in hexadecimal. Each call
// needs permissions on the topics and groups it names, as RocketMQ 5.1's PlainAccessResource
// reads them; access_decision.hpp decides with the rules of the proxy's ACL file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <google/protobuf/message.h>
#include <grpcpp/support/string_ref.h>

#include "mqkit/acl/access_decision.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::acl {
class AccessControl;
}

namespace mqkit::proxy {

using CallMetadata = std::multimap<grpc::string_ref, grpc::string_ref>;

// What a call's headers say of its signer.
struct CallSignature {
  std::optional<std::string> access_key;
  std::optional<std::string> signature;  // Base64, as the ACL compares
  std::string date_time;                 // the signed content
};
// InvalidArgument naming what is wrong when `authorization` is there but not as above, or when
// the date-time header it signs is missing. No `authorization`: an unsigned call.
plugin::v1::Result<CallSignature> call_signature(const CallMetadata& metadata);

// The authorization header a client of `access_key` sends with the x-mq-date-time header
// `date_time` (what RocketMQ 5's clients send; InvalidArgument for an empty secret key).
plugin::v1::Result<std::string> authorization_header(std::string_view access_key, std::string_view secret_key,
                                                     std::string_view date_time);

// The topics and groups `request` (a MessagingService request or a TelemetryCommand) needs.
// InvalidArgument for a request the ACL cannot place: a consumer's heartbeat without a group,
// settings naming neither publishing nor subscription.
plugin::v1::Result<acl::AccessRequest> access_needs(const google::protobuf::Message& request);

// OK when ACL lets the call carrying `metadata` from `peer` ("ip:port", "[ip6]:port") make
// `request`; PermissionDenied or InvalidArgument with the reason otherwise.
plugin::v1::Status check_call(const acl::AccessControl& access_control, const CallMetadata& metadata,
                              std::string_view peer, const google::protobuf::Message& request);

}  // namespace mqkit::proxy
