// Permissions of RocketMQ 4.x plain ACL (its Permission class): what an account owns on a topic
// or group, and what a request needs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::acl {

// Bits; an account owns DENY, PUB, SUB or PUB|SUB. A request needs PUB, SUB or ANY (either).
using Permission = std::uint8_t;
inline constexpr Permission kDeny = 1;
inline constexpr Permission kAny = 1 << 1;
inline constexpr Permission kPub = 1 << 2;
inline constexpr Permission kSub = 1 << 3;

// "DENY", "PUB", "SUB", "PUB|SUB" or "SUB|PUB" (blanks around it ignored). Anything else is
// InvalidArgument: RocketMQ reads it as DENY without a word, which hides typos.
plugin::v1::Result<Permission> parse_permission(std::string_view text);

// The text of an owned or needed permission ("PUB|SUB", "ANY", ...), for messages.
std::string permission_name(Permission permission);

// Whether owning `owned` grants `needed`: never when DENY is owned; ANY is granted by PUB or SUB.
bool permits(Permission needed, Permission owned);

// One "resource=PERM" entry of topic_perms or group_perms ("TopicA=PUB|SUB").
struct ResourcePermission {
  std::string resource;
  Permission permission = kDeny;
};
plugin::v1::Result<ResourcePermission> parse_resource_permission(std::string_view text);

}  // namespace mqkit::acl
