#include "mqkit/broker/acl/access_validator.hpp"

#include <span>

#include "mqkit/broker/acl/access_request.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker::acl {

using plugin::v1::Status;

namespace {

bool is_group(std::string_view resource) { return resource.starts_with(protocol::kRetryGroupTopicPrefix); }

std::string resource_name(std::string_view resource) {
  if (is_group(resource)) return "group " + std::string(resource.substr(protocol::kRetryGroupTopicPrefix.size()));
  return "topic " + std::string(resource);
}

Status check_signature(const AclAccount& account, const plugin::v1::RemotingCommand& request,
                       std::string_view given) {
  static constexpr std::string_view kOldClientExclusions[] = {protocol::acl::kUniqueKeyQueryFlag};
  const std::span<const std::string_view> excluded =
      request.version <= kLastVersionSigningWithoutUniqueKeyFlag ? std::span(kOldClientExclusions)
                                                                 : std::span<const std::string_view>();
  auto expected = protocol::acl::request_signature(request, account.secret_key, excluded);
  if (!expected) return expected.status();
  if (!protocol::acl::signatures_match(*expected, given)) {
    return Status::permission_denied("signature check failed for AccessKey " + account.access_key +
                                     ": the request was not signed with this account's secret key");
  }
  return Status::ok();
}

Status check_permissions(const AclAccount& account, const AccessRequest& access, std::int32_t code) {
  if (access.needs_admin && !account.admin) {
    return Status::permission_denied("request code " + std::to_string(code) + " needs an admin account; AccessKey " +
                                     account.access_key + " is not admin");
  }
  if (account.admin && account.resource_perms.empty()) return Status::ok();
  for (const auto& [resource, needed] : access.needed) {
    const auto owned_entry = account.resource_perms.find(resource);
    const Permission owned = owned_entry != account.resource_perms.end() ? owned_entry->second
                             : is_group(resource)                      ? account.default_group_perm
                                                                       : account.default_topic_perm;
    if (!permits(needed, owned)) {
      return Status::permission_denied("AccessKey " + account.access_key + " has no " + permission_name(needed) +
                                       " permission on " + resource_name(resource) + " (it has " +
                                       permission_name(owned) + ")");
    }
  }
  return Status::ok();
}

}  // namespace

Status validate(const AclRules& rules, const plugin::v1::RemotingCommand& request, std::string_view remote_address) {
  const std::string_view host = host_of(remote_address);
  for (const auto& pattern : rules.global_white_remote_addresses) {
    if (pattern.matches(host)) return Status::ok();
  }
  auto access = access_request_of(request);
  if (!access) return access.status();
  if (!access->access_key) {
    return Status::permission_denied("the request carries no AccessKey: this broker checks ACL, sign requests "
                                     "with an account's access key and secret key");
  }
  const auto account = rules.accounts.find(*access->access_key);
  if (account == rules.accounts.end()) {
    return Status::permission_denied("no account has AccessKey " + std::string(*access->access_key));
  }
  if (account->second.white_remote_address.matches(host)) return Status::ok();
  MQKIT_RETURN_IF_ERROR(check_signature(account->second, request, access->signature.value_or("")));
  // Message traces reach the trace topic with whatever account the application uses (RocketMQ).
  if (const auto trace = access->needed.find(protocol::kTraceTopic);
      trace != access->needed.end() && trace->second == kPub) {
    return Status::ok();
  }
  return check_permissions(account->second, *access, request.code);
}

}  // namespace mqkit::broker::acl
