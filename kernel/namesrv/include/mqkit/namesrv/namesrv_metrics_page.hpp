// The name server's /metrics page (docs/metrics.md). RocketMQ's name server exports no metrics;
// mqkit's says what its route tables hold — clusters, live brokers per cluster, topics — under
// mqkit_namesrv_* names, and how long requests took with RocketMQ's remoting histogram
// (rocketmq_rpc_latency, whose _count series are the request counts), all labelled
// node_type="nameserver". Runs on the exporter's thread.
#pragma once

#include <string>

#include "mqkit/metrics/rpc_latency.hpp"
#include "mqkit/namesrv/route_info_manager.hpp"

namespace mqkit::namesrv {

std::string namesrv_metrics_page(const RouteInfoManager& routes, const metrics::RpcLatency& rpc);

}  // namespace mqkit::namesrv
