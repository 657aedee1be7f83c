// The broker's /metrics page (docs/metrics.md): BrokerMetrics' counters and the gauges computed
// at scrape time from what the broker keeps anyway — its config, topic and group tables, the
// consumer offsets and the store's offsets and statistics — with RocketMQ 5's names and labels
// (cluster, node_type="broker", node_id = the broker name on every sample).
//
// Runs on the exporter's thread; reads the tables through their own thread-safe accessors.
#pragma once

#include <cstdint>
#include <string>

#include "mqkit/broker/broker_context.hpp"

namespace mqkit::broker {

// `context.metrics` must not be null. `now_ms` is the wall clock the latencies are measured to.
std::string broker_metrics_page(const BrokerContext& context, std::int64_t now_ms);

}  // namespace mqkit::broker
