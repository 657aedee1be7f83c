// clusterList: every broker of every cluster with its addresses. wipeWritePerm / addWritePerm:
// a broker name's write permission on every name server.
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"

namespace mqkit::admin {

int cluster_list(AdminContext& ctx) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return ctx.fail("clusterList", info.status());
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    for (const auto& [cluster, names] : info->cluster_addr_table) {
      json.key(cluster);
      json.w().StartArray();
      for (const auto& name : names) {
        json.w().StartObject();
        json.field("brokerName", name);
        json.key("brokerAddrs");
        json.w().StartObject();
        if (auto broker = info->broker_addr_table.find(name); broker != info->broker_addr_table.end()) {
          for (const auto& [id, address] : broker->second.broker_addrs) json.field(std::to_string(id), address);
        }
        json.w().EndObject();
        json.w().EndObject();
      }
      json.w().EndArray();
    }
    json.w().EndObject();
    json.print(*ctx.out);
    return 0;
  }
  Table table({"#Cluster Name", "#Broker Name", "#BID", "#Addr"});
  for (const auto& [cluster, names] : info->cluster_addr_table) {
    for (const auto& name : names) {
      auto broker = info->broker_addr_table.find(name);
      if (broker == info->broker_addr_table.end()) continue;
      for (const auto& [id, address] : broker->second.broker_addrs) {
        table.add({cluster, name, std::to_string(id), address});
      }
    }
  }
  table.print(*ctx.out);
  return 0;
}

int set_write_perm(AdminContext& ctx, const std::string& broker_name, bool writable) {
  const char* verb = writable ? "add" : "wipe";
  const auto addresses = ctx.api().namesrv_addresses();
  if (addresses.empty()) return ctx.fail("no name server address (-n)");
  JsonOut json;
  json.w().StartArray();
  int failures = 0;
  for (const auto& address : addresses) {
    auto changed = ctx.api().set_write_perm_of_broker(address, broker_name, writable);
    if (!changed) {
      ++failures;
      std::cerr << verb << " write perm of broker[" << broker_name << "] in name server[" << address
                << "] failed: " << changed.status().to_string() << "\n";
      continue;
    }
    if (ctx.json) {
      json.w().StartObject();
      json.field("namesrvAddr", address);
      json.field("brokerName", broker_name);
      json.field(writable ? "addTopicCount" : "wipeTopicCount", *changed);
      json.w().EndObject();
    } else {
      // RocketMQ's WipeWritePermSubCommand / AddWritePermSubCommand line.
      *ctx.out << verb << " write perm of broker[" << broker_name << "] in name server[" << address << "] OK, "
               << *changed << "\n";
    }
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return failures == 0 ? 0 : 1;
}

}  // namespace mqkit::admin
