#include "mqkit/acl/access_decision.hpp"

#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::acl {

using plugin::v1::Status;

namespace {

bool is_group(std::string_view resource) { return resource.starts_with(protocol::kRetryGroupTopicPrefix); }

std::string resource_name(std::string_view resource) {
  if (is_group(resource)) return "group " + std::string(resource.substr(protocol::kRetryGroupTopicPrefix.size()));
  return "topic " + std::string(resource);
}

Status check_permissions(const AclAccount& account, const AccessRequest& access, std::string_view request_name) {
  if (access.needs_admin && !account.admin) {
    return Status::permission_denied(std::string(request_name) + " needs an admin account; AccessKey " +
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

bool globally_white(const AclRules& rules, std::string_view host) {
  for (const auto& pattern : rules.global_white_remote_addresses) {
    if (pattern.matches(host)) return true;
  }
  return false;
}

Status decide(const AclRules& rules, std::string_view host, const AccessRequest& access, std::string_view request_name,
              std::string_view checker, const SignatureOf& signature_of) {
  if (!access.access_key) {
    return Status::permission_denied("the request carries no AccessKey: this " + std::string(checker) +
                                     " checks ACL, sign requests with an account's access key and secret key");
  }
  const auto account = rules.accounts.find(*access.access_key);
  if (account == rules.accounts.end()) {
    return Status::permission_denied("no account has AccessKey " + std::string(*access.access_key));
  }
  if (account->second.white_remote_address.matches(host)) return Status::ok();
  auto expected = signature_of(account->second);
  if (!expected) return expected.status();
  if (!protocol::acl::signatures_match(*expected, access.signature.value_or(""))) {
    return Status::permission_denied("signature check failed for AccessKey " + account->second.access_key +
                                     ": the request was not signed with this account's secret key");
  }
  // Message traces reach the trace topic with whatever account the application uses (RocketMQ).
  if (const auto trace = access.needed.find(protocol::kTraceTopic);
      trace != access.needed.end() && trace->second == kPub) {
    return Status::ok();
  }
  return check_permissions(account->second, access, request_name);
}

}  // namespace mqkit::acl
