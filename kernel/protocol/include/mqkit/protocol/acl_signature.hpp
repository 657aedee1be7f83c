// Request signatures of RocketMQ 4.x plain ACL (AclClientRPCHook on clients, PlainAccessValidator
// on brokers): a signed request carries the AccessKey, optionally a SecurityToken, and a
// Signature = Base64(HmacSHA1(secret key, content)), where the content is the value of every
// extField except the Signature, in key order, followed by the body. Shared by the SDK (which
// signs) and the broker (which checks, and signs its own requests to other brokers).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/remoting_command.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol::acl {

// extField names (RocketMQ's SessionCredentials).
inline constexpr std::string_view kAccessKey = "AccessKey";
inline constexpr std::string_view kSignature = "Signature";
inline constexpr std::string_view kSecurityToken = "SecurityToken";
// QUERY_MESSAGE's "look up a UNIQ_KEY" flag: clients up to 4.9.3 added it after signing, so a
// broker leaves it out of their content (MixAll.UNIQUE_MSG_QUERY_FLAG).
inline constexpr std::string_view kUniqueKeyQueryFlag = "_UNIQUE_KEY_QUERY";

// An account's keys as a client holds them. No access key = requests go out unsigned.
struct Credentials {
  std::string access_key{};
  std::string secret_key{};
  std::string security_token{};  // sent (and signed) when not empty

  bool empty() const noexcept { return access_key.empty(); }
};

// The bytes that are signed: the values of every extField except the Signature and `excluded`,
// ordered by key, then the body (body, then body_slices, as they go on the wire).
std::string content_to_sign(const plugin::v1::RemotingCommand& request,
                            std::span<const std::string_view> excluded = {});

// Base64(HmacSHA1(secret_key, content)). InvalidArgument for an empty secret key (Java's
// SecretKeySpec refuses one), Internal when libcrypto fails.
plugin::v1::Result<std::string> signature_of(std::string_view content, std::string_view secret_key);
// The same over content_to_sign(request, excluded), without copying the body.
plugin::v1::Result<std::string> request_signature(const plugin::v1::RemotingCommand& request,
                                                  std::string_view secret_key,
                                                  std::span<const std::string_view> excluded = {});

// What AclClientRPCHook does before a request leaves: sets AccessKey (and SecurityToken when
// given), then the Signature over every field and the body. Call it last, once the request is
// complete; signing again replaces the old signature.
plugin::v1::Status sign(plugin::v1::RemotingCommand& request, const Credentials& credentials);

// Compares two signatures in time independent of where they differ.
bool signatures_match(std::string_view expected, std::string_view given) noexcept;

}  // namespace mqkit::protocol::acl
