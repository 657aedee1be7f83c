// clusterList: every broker of every cluster with its addresses.
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

}  // namespace mqkit::admin
