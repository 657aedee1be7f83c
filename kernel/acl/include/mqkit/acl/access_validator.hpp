// The ACL check of a remoting request (access_decision.hpp's decision over what
// access_request.hpp reads from the request, with RocketMQ 4.x's request signatures).
#pragma once

#include <string_view>

#include "mqkit/acl/acl_rules.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::acl {

// OK when `request` from `remote_address` ("ip:port") is allowed; PermissionDenied with the
// reason otherwise (InvalidArgument when the request cannot be read).
plugin::v1::Status validate(const AclRules& rules, const plugin::v1::RemotingCommand& request,
                            std::string_view remote_address);

}  // namespace mqkit::acl
