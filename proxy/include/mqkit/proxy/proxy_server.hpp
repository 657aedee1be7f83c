// mqproxy's one component: a gRPC server speaking RocketMQ 5's MessagingService to clients,
// and an SDK client instance speaking remoting to the name servers and brokers behind it
// (RocketMQ's proxy in cluster mode; docs/proxy.md).
//
// Threads: gRPC's callback API runs the calls on its threads, and the service's workers those
// that wait on brokers (messaging_service.hpp); start() and stop() are called by the lifecycle,
// once each.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "mqkit/client/client_config.hpp"
#include "mqkit/kernel/lifecycle.hpp"
#include "mqkit/kernel/periodic_tasks.hpp"
#include "mqkit/metrics/http_exporter.hpp"
#include "mqkit/metrics/rpc_latency.hpp"
#include "mqkit/proxy/proxy_settings.hpp"
#include "mqkit/proxy/tls_identity.hpp"

namespace grpc {
class Server;
}

namespace mqkit::client {
class ClientInstance;
}

namespace mqkit::acl {
class AccessControl;
}

namespace mqkit::proxy {

class MessagingService;

// What the proxy shows TLS clients under `settings`: nothing with tls_mode disabled; the files'
// identity (load_tls_identity's errors) or, without files, a self-signed one naming localhost,
// 127.0.0.1, this machine's name and the listen and advertised hosts.
plugin::v1::Result<std::optional<TlsIdentity>> tls_identity_for(const ProxySettings& settings);

class ProxyServer final : public kernel::Component {
 public:
  // `cluster_config` (resolved) says how to reach the cluster: name servers, ACL account, and
  // the [client.transport] plugin, which the client instance loads. `access_control`: the ACL
  // file's rules when `settings.acl_enable` (loaded by the caller, so that a bad file stops the
  // start); the proxy reloads it when it changes.
  // `tls`: what TLS clients are shown (tls_identity_for), when `settings.tls_mode` is not disabled.
  ProxyServer(ProxySettings settings, client::ClientConfig cluster_config,
              std::shared_ptr<acl::AccessControl> access_control = nullptr, std::optional<TlsIdentity> tls = std::nullopt);
  ~ProxyServer() override;

  std::string_view name() const noexcept override { return "proxy"; }
  plugin::v1::Status start() override;
  void stop() noexcept override;

  std::uint16_t port() const noexcept { return port_; }
  // With tls_mode permissive: the port serving TLS; 0 otherwise.
  std::uint16_t tls_port() const noexcept { return tls_port_; }

 private:
  const ProxySettings settings_;
  const client::ClientConfig cluster_config_;
  const std::shared_ptr<acl::AccessControl> access_control_;
  std::shared_ptr<client::ClientInstance> cluster_;
  std::unique_ptr<MessagingService> service_;
  std::unique_ptr<metrics::RpcLatency> rpc_latency_;  // with metrics on
  std::unique_ptr<metrics::HttpExporter> exporter_;
  kernel::PeriodicTasks tasks_;  // the ACL file's reload
  std::unique_ptr<grpc::Server> server_;
  const std::optional<TlsIdentity> tls_;
  std::uint16_t port_ = 0;
  std::uint16_t tls_port_ = 0;
};

}  // namespace mqkit::proxy
