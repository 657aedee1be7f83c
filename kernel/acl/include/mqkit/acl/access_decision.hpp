// The ACL decision for one request, whatever protocol brought it (RocketMQ's
// PlainPermissionManager.validate), in its order:
//   1. a client address in global_white_remote_addresses: allowed (globally_white, asked first,
//      before the request is read);
//   2. no AccessKey, or one no account has: refused;
//   3. a client address in the account's white_remote_address: allowed;
//   4. a Signature that is not the account's signature of the request: refused;
//   5. a send to the message trace topic (RMQ_SYS_TRACE_TOPIC): allowed;
//   6. a request only admins may send, from a non-admin account: refused;
//   7. an admin account without topic_perms and group_perms: allowed;
//   8. each topic or group the request needs: the account's entry for it, else its
//      default_topic_perm / default_group_perm, must grant the permission.
// Remoting requests come through access_validator.hpp, the proxy's gRPC calls through its own
// reading of them; both decide here.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "mqkit/acl/acl_rules.hpp"
#include "mqkit/acl/permission.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::acl {

// What a request asks of the ACL: who signs it, and which permission it needs on which topic or
// group. Groups are keyed by their retry topic (%RETRY%group), as the ACL file's group_perms are.
struct AccessRequest {
  std::optional<std::string_view> access_key;  // views into the request
  std::optional<std::string_view> signature;   // Base64, as RocketMQ compares signatures
  bool needs_admin = false;
  std::map<std::string, Permission, std::less<>> needed;  // topic or %RETRY%group → permission
};

// Whether `host` (an IP address) is one of the global white addresses (step 1).
bool globally_white(const AclRules& rules, std::string_view host);

// The Base64 signature the request would carry if `account` had signed it.
using SignatureOf = std::function<plugin::v1::Result<std::string>(const AclAccount& account)>;

// Steps 2–8 for `access` from `host`. `request_name` ("request code 17", "SendMessage") and
// `checker` ("broker", "proxy") word the refusals. OK when allowed; PermissionDenied with the
// reason otherwise.
plugin::v1::Status decide(const AclRules& rules, std::string_view host, const AccessRequest& access,
                          std::string_view request_name, std::string_view checker, const SignatureOf& signature_of);

}  // namespace mqkit::acl
