// Plain ACL administration, as RocketMQ 4.x's tools do it: updateAclConfig, deleteAcl and
// updateGlobalWhiteAddr on one broker (-b) or every broker of a cluster (-c, slaves too: clients
// read from slaves, so they check the same accounts). Each broker rewrites its ACL file.
// clusterAclConfigVersion shows the file's version on one broker or a cluster's masters.
#include <cstdio>
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"

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

int cluster_acl_config_version(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster) {
  auto targets = command_targets(ctx, broker_addr, cluster, false);
  if (!targets) return ctx.fail("clusterAclConfigVersion", targets.status());
  const auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                        const std::string& e, const std::string& f) {
    char text[512];
    std::snprintf(text, sizeof text, "%-16s  %-22s  %-22s  %-20s  %-22s  %-22s\n", a.c_str(), b.c_str(), c.c_str(),
                  d.c_str(), e.c_str(), f.c_str());
    *ctx.out << text;
  };
  // RocketMQ's tool prints the header for a cluster only.
  if (!ctx.json && !cluster.empty()) {
    line("#Cluster Name", "#Broker Name", "#Broker Addr", "#AclFilePath", "#AclConfigVersionNum", "#AclLastUpdateTime");
  }
  int code = 0;
  JsonOut json;
  json.w().StartArray();
  for (const auto& target : *targets) {
    auto answer = ctx.api().get_broker_acl_version(target.address);
    if (!answer) {
      code = ctx.fail("clusterAclConfigVersion on " + target.address, answer.status());
      continue;
    }
    // A broker older than RocketMQ 4.9 sends its one version only.
    auto files = answer->files;
    if (files.empty()) files.emplace("", answer->version);
    if (ctx.json) {
      json.w().StartObject();
      json.field("clusterName", answer->cluster_name);
      json.field("brokerName", answer->broker_name);
      json.field("brokerAddr", answer->broker_addr);
      json.key("files");
      json.w().StartArray();
      for (const auto& [path, version] : files) {
        json.w().StartObject();
        json.field("path", path);
        json.field("counter", version.counter);
        json.field("timestamp", version.timestamp);
        json.w().EndObject();
      }
      json.w().EndArray();
      json.w().EndObject();
      continue;
    }
    for (const auto& [path, version] : files) {
      line(answer->cluster_name, answer->broker_name, answer->broker_addr, path, std::to_string(version.counter),
           local_time(version.timestamp, false));
    }
  }
  json.w().EndArray();
  if (ctx.json) {
    json.print(*ctx.out);
  } else if (code == 0) {
    *ctx.out << (cluster.empty() ? "get broker's plain access config version success.\n"
                                 : "get cluster's plain access config version success.\n");
  }
  return code;
}

}  // namespace mqkit::admin
