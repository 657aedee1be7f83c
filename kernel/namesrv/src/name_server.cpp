#include "mqkit/namesrv/name_server.hpp"

#include <chrono>
#include <cstdlib>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/namesrv/namesrv_metrics_page.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::namesrv {

using plugin::v1::Status;

namespace {




std::string expand_home(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return (home ? std::string(home) : std::string(".")) + path.substr(1);
}

}  // namespace

NameServer::NameServer(const plugin::v1::ConfigValues& config, std::shared_ptr<plugin::v1::Transport> transport)
    : listen_host_(config.get_string("listen_host")),
      listen_port_(static_cast<std::uint16_t>(config.get_int("listen_port"))),
      settings_(std::make_shared<NamesrvSettings>(config)),
      metrics_exporter_(metrics::exporter_settings_from(config, "metrics_prom_exporter_port")),
      transport_(std::move(transport)),
      kv_(expand_home(config.get_string("kv_config_path"))) {
  processor_ = std::make_shared<NameServerProcessor>(routes_, kv_, settings_, &kernel::wall_clock_ms);
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
  while (!stop_signal_.wait_for(lock, std::chrono::milliseconds(settings_->scan_interval_ms()),
                                [this] { return stopping_; })) {
    const std::int64_t expiry_ms = settings_->broker_expiry_ms();
    for (const auto& addr : routes_.expire_brokers(kernel::wall_clock_ms(), expiry_ms)) {
      kernel::logger("namesrv")->warn("broker {} expired: no registration for {} ms", addr, expiry_ms);
    }
  }
}

}  // namespace mqkit::namesrv
