#include "mqkit/namesrv/namesrv_metrics_page.hpp"

#include "mqkit/metrics/exposition.hpp"

namespace mqkit::namesrv {

using metrics::MetricType;

std::string namesrv_metrics_page(const RouteInfoManager& routes, const metrics::RpcLatency& rpc) {
  const ClusterInfo clusters = routes.cluster_info();
  metrics::ExpositionWriter out({{"node_type", "nameserver"}});
  out.family("mqkit_namesrv_cluster_number", MetricType::kGauge, "Clusters with at least one registered broker");
  out.sample({}, static_cast<std::int64_t>(clusters.cluster_addr_table.size()));
  out.family("mqkit_namesrv_broker_number", MetricType::kGauge,
             "Live broker addresses (masters and slaves) registered in each cluster");
  for (const auto& [cluster, broker_names] : clusters.cluster_addr_table) {
    std::int64_t addresses = 0;
    for (const auto& name : broker_names) {
      if (const auto it = clusters.broker_addr_table.find(name); it != clusters.broker_addr_table.end()) {
        addresses += static_cast<std::int64_t>(it->second.broker_addrs.size());
      }
    }
    out.sample({{"cluster", cluster}}, addresses);
  }
  out.family("mqkit_namesrv_topic_number", MetricType::kGauge, "Topics some live broker serves");
  out.sample({}, static_cast<std::int64_t>(routes.topics().size()));
  rpc.write(out);
  return out.take();
}

}  // namespace mqkit::namesrv
