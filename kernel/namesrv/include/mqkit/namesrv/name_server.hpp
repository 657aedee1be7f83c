// NameServer: the mqnamesrv process as a lifecycle component — the [namesrv] section, the route
// tables, the transport it listens on, the scanner that expires silent brokers, and the metrics
// exporter when metrics_exporter_type is PROM (started last, stopped first).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "mqkit/kernel/lifecycle.hpp"
#include "mqkit/metrics/exporter_settings.hpp"
#include "mqkit/metrics/rpc_latency.hpp"
#include "mqkit/namesrv/kv_config_manager.hpp"
#include "mqkit/namesrv/namesrv_processor.hpp"
#include "mqkit/namesrv/namesrv_settings.hpp"
#include "mqkit/namesrv/route_info_manager.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::namesrv {

class NameServer final : public kernel::Component {
 public:
  NameServer(const plugin::v1::ConfigValues& config, std::shared_ptr<plugin::v1::Transport> transport);
  ~NameServer() override;

  std::string_view name() const noexcept override { return "namesrv"; }
  plugin::v1::Status start() override;
  void stop() noexcept override;

  // The port actually bound (listen_port 0 picks an ephemeral one).
  std::uint16_t port() const noexcept { return port_; }
  // The metrics exporter's port (0 when metrics are off).
  std::uint16_t metrics_port() const noexcept { return metrics_port_; }
  RouteInfoManager& routes() noexcept { return routes_; }

 private:
  void scan_loop();

  std::string listen_host_;
  std::uint16_t listen_port_;
  std::shared_ptr<NamesrvSettings> settings_;  // broker_expiry and scan_interval are read at each scan
  metrics::ExporterSettings metrics_exporter_;
  std::shared_ptr<plugin::v1::Transport> transport_;
  RouteInfoManager routes_;
  KvConfigManager kv_;
  std::shared_ptr<NameServerProcessor> processor_;
  std::uint16_t port_ = 0;
  std::unique_ptr<metrics::RpcLatency> rpc_;  // metrics on: request latencies and counts
  std::unique_ptr<metrics::HttpExporter> exporter_;
  std::uint16_t metrics_port_ = 0;

  std::thread scanner_;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
};

}  // namespace mqkit::namesrv
