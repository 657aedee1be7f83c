#include "mqkit/acl/permission.hpp"

#include "mqkit/protocol/text.hpp"

namespace mqkit::acl {

using plugin::v1::Result;
using plugin::v1::Status;

Result<Permission> parse_permission(std::string_view text) {
  const std::string_view name = protocol::trim(text);
  if (name == "DENY") return kDeny;
  if (name == "PUB") return kPub;
  if (name == "SUB") return kSub;
  if (name == "PUB|SUB" || name == "SUB|PUB") return static_cast<Permission>(kPub | kSub);
  return Status::invalid_argument(protocol::quoted(text) + " is not a permission: expected DENY, PUB, SUB or PUB|SUB");
}

std::string permission_name(Permission permission) {
  if ((permission & kDeny) != 0) return "DENY";
  if ((permission & kAny) != 0) return "ANY";
  if ((permission & kPub) != 0 && (permission & kSub) != 0) return "PUB|SUB";
  if ((permission & kPub) != 0) return "PUB";
  if ((permission & kSub) != 0) return "SUB";
  return "none";
}

bool permits(Permission needed, Permission owned) {
  if ((owned & kDeny) != 0) return false;
  if ((needed & kAny) != 0) return (owned & (kPub | kSub)) != 0;
  return (needed & owned) != 0;
}

Result<ResourcePermission> parse_resource_permission(std::string_view text) {
  const auto equals = text.find('=');
  const std::string_view resource = protocol::trim(text.substr(0, equals));
  if (equals == std::string_view::npos || resource.empty() || text.find('=', equals + 1) != std::string_view::npos) {
    return Status::invalid_argument(protocol::quoted(text) + " is not name=PERMISSION (e.g. TopicA=PUB|SUB)");
  }
  auto permission = parse_permission(text.substr(equals + 1));
  if (!permission) return permission.status().with_context(protocol::quoted(text));
  return ResourcePermission{std::string(resource), *permission};
}

}  // namespace mqkit::acl
