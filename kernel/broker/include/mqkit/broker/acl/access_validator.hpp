// The ACL decision for one request (RocketMQ's PlainPermissionManager.validate), in its order:
//   1. a client address in global_white_remote_addresses: allowed;
//   2. no AccessKey, or one no account has: refused;
//   3. a client address in the account's white_remote_address: allowed;
//   4. a Signature that is not the account's signature of the request: refused;
//   5. a send to the message trace topic (RMQ_SYS_TRACE_TOPIC): allowed;
//   6. an admin request code from a non-admin account: refused;
//   7. an admin account without topic_perms and group_perms: allowed;
//   8. each topic or group the request needs (access_request.hpp): the account's entry for it,
//      else its default_topic_perm / default_group_perm, must grant the permission.
#pragma once

#include <string_view>

#include "mqkit/broker/acl/acl_rules.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::broker::acl {

// OK when `request` from `remote_address` ("ip:port") is allowed; PermissionDenied with the
// reason otherwise (InvalidArgument when the request cannot be read).
plugin::v1::Status validate(const AclRules& rules, const plugin::v1::RemotingCommand& request,
                            std::string_view remote_address);

}  // namespace mqkit::broker::acl
