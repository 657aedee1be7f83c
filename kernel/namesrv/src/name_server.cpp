#include "mqkit/namesrv/name_server.hpp"

#include <chrono>
#include <cstdlib>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/namesrv/namesrv_metrics_page.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::namesrv {

using plugin::v1::Status;
using plugin::v1::ValueType;

namespace {

constexpr plugin::v1::ConfigField kFields[] = {
    {.key = "listen_host", .type = ValueType::kString, .default_value = "0.0.0.0",
     .description = "Address to listen on"},
    {.key = "listen_port", .type = ValueType::kInt, .default_value = "9876",
     .description = "TCP port for brokers and clients (0 = any free port)", .min = 0, .max = 65535},
    {.key = "broker_expiry", .type = ValueType::kDuration, .default_value = "120s",
     .description = "A broker that has not registered for this long is dropped from routes", .min = 1000},
    {.key = "scan_interval", .type = ValueType::kDuration, .default_value = "10s",
     .description = "How often silent brokers are looked for", .min = 10},
    {.key = "kv_config_path", .type = ValueType::kString, .default_value = "",
     .description = "File keeping the KV config (ORDER_TOPIC_CONFIG, ...); empty = memory only"},
    {.key = "order_message_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Fill orderTopicConf in routes from the ORDER_TOPIC_CONFIG namespace"},
    // Prometheus metrics (docs/metrics.md), with the broker's keys; 5557 is the broker's port.
    metrics::kExporterTypeField,
    metrics::kExporterHostField,
    {.key = "metrics_prom_exporter_port", .type = ValueType::kInt, .default_value = "5558",
     .description = "Port of the metrics exporter (0 = any free port)", .min = 0, .max = 65535},
};
constexpr plugin::v1::ConfigSchema kSchema{kFields, std::size(kFields)};


std::string expand_home(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return (home ? std::string(home) : std::string(".")) + path.substr(1);
}

}  // namespace

const plugin::v1::ConfigSchema& namesrv_schema() { return kSchema; }

NameServer::NameServer(const plugin::v1::ConfigValues& config, std::shared_ptr<plugin::v1::Transport> transport)
    : listen_host_(config.get_string("listen_host")),
      listen_port_(static_cast<std::uint16_t>(config.get_int("listen_port"))),
      broker_expiry_ms_(config.get_duration_ms("broker_expiry")),
      scan_interval_ms_(config.get_duration_ms("scan_interval")),
      metrics_exporter_(metrics::exporter_settings_from(config, "metrics_prom_exporter_port")),
      transport_(std::move(transport)),
      kv_(expand_home(config.get_string("kv_config_path"))) {
  processor_ = std::make_shared<NameServerProcessor>(
      routes_, kv_, NameServerOptions{.order_message_enable = config.get_bool("order_message_enable")}, &kernel::wall_clock_ms);
  if (metrics_exporter_.enabled) {
    rpc_ = std::make_unique<metrics::RpcLatency>();
    processor_->record_latency_in(rpc_.get());
  }
}

NameServer::~NameServer() { stop(); }

Status NameServer::start() {
  MQKIT_RETURN_IF_ERROR(kv_.load());
  auto port = transport_->listen({listen_host_, listen_port_}, processor_);
  if (!port) return port.status().with_context("listening on " + listen_host_ + ":" + std::to_string(listen_port_));
  port_ = *port;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  scanner_ = std::thread([this] {
    plugin::v1::name_this_thread("ScanBroker");
    scan_loop();
  });
  kernel::logger("namesrv")->info("name server listening on {}:{}", listen_host_, port_);
  if (rpc_) {
    exporter_ = std::make_unique<metrics::HttpExporter>([this] { return namesrv_metrics_page(routes_, *rpc_); });
    auto bound = metrics::start_exporter(*exporter_, metrics_exporter_, listen_host_, "namesrv");
    if (!bound) {
      stop();
      return bound.status();
    }
    metrics_port_ = *bound;
  }
  return Status::ok();
}

void NameServer::stop() noexcept {
  if (exporter_) exporter_->stop();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (scanner_.joinable()) scanner_.join();
  if (transport_) transport_->shutdown();
}

void NameServer::scan_loop() {
  std::unique_lock lock(mutex_);
  while (!stop_signal_.wait_for(lock, std::chrono::milliseconds(scan_interval_ms_), [this] { return stopping_; })) {
    for (const auto& addr : routes_.expire_brokers(kernel::wall_clock_ms(), broker_expiry_ms_)) {
      kernel::logger("namesrv")->warn("broker {} expired: no registration for {} ms", addr, broker_expiry_ms_);
    }
  }
}

}  // namespace mqkit::namesrv
