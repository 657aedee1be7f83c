#include "mqkit/acl/access_validator.hpp"

#include <span>

#include "mqkit/acl/access_decision.hpp"
#include "mqkit/acl/access_request.hpp"
#include "mqkit/protocol/acl_signature.hpp"

namespace mqkit::acl {

using plugin::v1::Status;

Status validate(const AclRules& rules, const plugin::v1::RemotingCommand& request, std::string_view remote_address) {
  const std::string_view host = host_of(remote_address);
  if (globally_white(rules, host)) return Status::ok();
  auto access = access_request_of(request);
  if (!access) return access.status();
  static constexpr std::string_view kOldClientExclusions[] = {protocol::acl::kUniqueKeyQueryFlag};
  const std::span<const std::string_view> excluded = request.version <= kLastVersionSigningWithoutUniqueKeyFlag
                                                         ? std::span(kOldClientExclusions)
                                                         : std::span<const std::string_view>();
  return decide(rules, host, *access, "request code " + std::to_string(request.code), "broker",
                [&](const AclAccount& account) {
                  return protocol::acl::request_signature(request, account.secret_key, excluded);
                });
}

}  // namespace mqkit::acl
