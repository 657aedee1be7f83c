// Plain ACL administration, as RocketMQ 4.x's tools do it: updateAclConfig, deleteAcl and
// updateGlobalWhiteAddr on one broker (-b) or every broker of a cluster (-c, slaves too: clients
// read from slaves, so they check the same accounts). Each broker rewrites its ACL file.
#include <iostream>

#include "admin.hpp"

namespace mqkit::admin {

namespace {

// Runs `change` on one broker (-b) or every broker of a cluster, slaves too (-c).
int on_every_target(AdminContext& ctx, const std::string& what, const std::string& broker_addr,
                    const std::string& cluster, const std::string& done,
                    const std::function<client::Status(const std::string&)>& change) {
  auto targets = command_targets(ctx, broker_addr, cluster, true);
  if (!targets) return ctx.fail(what, targets.status());
  return on_every_broker(ctx, what, *targets, done, [&](const std::string& address) -> client::Result<std::string> {
    MQKIT_RETURN_IF_ERROR(change(address));
    return std::string();
  });
}

}  // namespace

int update_acl_config(AdminContext& ctx, const AclConfigOptions& options) {
  return on_every_target(ctx, "updateAclConfig " + options.account.access_key, options.broker_addr, options.cluster,
                         "create or update plain access config to ", [&](const std::string& address) {
                           return ctx.api().update_acl_config(address, options.account);
                         });
}

int delete_acl(AdminContext& ctx, const std::string& access_key, const std::string& broker_addr,
               const std::string& cluster) {
  return on_every_target(ctx, "deleteAcl " + access_key, broker_addr, cluster, "delete plain access config account from ",
                         [&](const std::string& address) { return ctx.api().delete_acl_config(address, access_key); });
}

int update_global_white_addresses(AdminContext& ctx, const std::vector<std::string>& addresses,
                                  const std::string& broker_addr, const std::string& cluster) {
  return on_every_target(ctx, "updateGlobalWhiteAddr", broker_addr, cluster, "update global white remote addresses to ",
                         [&](const std::string& address) {
                           return ctx.api().update_global_white_addresses(address, addresses);
                         });
}

}  // namespace mqkit::admin
