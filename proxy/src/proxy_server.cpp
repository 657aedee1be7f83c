#include "mqkit/proxy/proxy_server.hpp"

#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>

#include "messaging_service.hpp"
#include "proxy_metrics.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/kernel/logging.hpp"
#include "route_view.hpp"

namespace mqkit::proxy {

using plugin::v1::Result;
using plugin::v1::Status;

Result<std::optional<TlsIdentity>> tls_identity_for(const ProxySettings& settings) {
  if (settings.tls_mode == TlsMode::kDisabled) return std::optional<TlsIdentity>();
  if (!settings.tls_cert_file.empty()) {
    MQKIT_ASSIGN_OR_RETURN(auto identity, load_tls_identity(settings.tls_cert_file, settings.tls_key_file));
    return std::optional<TlsIdentity>(std::move(identity));
  }
  std::vector<std::string> hosts{"localhost", "127.0.0.1", "::1"};
  char machine[256] = {};
  if (::gethostname(machine, sizeof(machine) - 1) == 0 && machine[0] != '\0') hosts.emplace_back(machine);
  if (settings.listen_host != "0.0.0.0" && settings.listen_host != "::") hosts.push_back(settings.listen_host);
  if (auto advertised = parse_endpoints(settings.advertised_address); advertised && advertised->addresses_size() > 0) {
    hosts.push_back(advertised->addresses(0).host());
  }
  std::sort(hosts.begin() + 1, hosts.end());
  hosts.erase(std::unique(hosts.begin() + 1, hosts.end()), hosts.end());
  MQKIT_ASSIGN_OR_RETURN(auto identity, self_signed_tls_identity(hosts));
  kernel::logger("proxy")->warn(
      "TLS with a self-signed certificate made at start for {} (no proxy.tls_cert_file): clients that verify "
      "certificates will refuse it",
      fmt::join(hosts, ", "));
  return std::optional<TlsIdentity>(std::move(identity));
}

ProxyServer::ProxyServer(ProxySettings settings, client::ClientConfig cluster_config,
                         std::shared_ptr<acl::AccessControl> access_control, std::optional<TlsIdentity> tls)
    : settings_(std::move(settings)),
      cluster_config_(std::move(cluster_config)),
      access_control_(std::move(access_control)),
      tls_(std::move(tls)) {}

ProxyServer::~ProxyServer() { stop(); }

Status ProxyServer::start() {
  if (!settings_.advertised_address.empty() && !parse_endpoints(settings_.advertised_address)) {
    return Status::invalid_argument("proxy.advertised_address \"" + settings_.advertised_address +
                                    "\" is not host:port");
  }
  if (settings_.tls_mode != TlsMode::kDisabled && !tls_) {
    return Status::invalid_argument("proxy.tls_mode is " + std::string(settings_.tls_mode == TlsMode::kEnforcing ? "enforcing" : "permissive") +
                                    " but no TLS identity was given");
  }
  if (settings_.acl_enable && access_control_ == nullptr) {
    return Status::invalid_argument("proxy.acl_enable is on but no ACL was loaded from " + settings_.acl_file.string());
  }
  if (cluster_config_.namesrv_addresses.empty()) {
    return Status::invalid_argument("no name server to route by: set client.namesrv_addr or $NAMESRV_ADDR");
  }
  MQKIT_ASSIGN_OR_RETURN(cluster_, client::ClientInstance::create(cluster_config_));
  MQKIT_RETURN_IF_ERROR(cluster_->start());
  service_ = std::make_unique<MessagingService>(settings_, cluster_, settings_.acl_enable ? access_control_ : nullptr);

  // Debian builds Abseil without NDEBUG, which leaves absl::Mutex's deadlock detection on: a
  // lock-order graph updated on every lock gRPC takes (5 % of the proxy's CPU when profiled).
  // Release builds of Abseil have it off; so does the proxy.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  grpc::ServerBuilder builder;
  std::shared_ptr<grpc::ServerCredentials> tls_credentials;
  if (tls_) {
    grpc::SslServerCredentialsOptions options;  // clients are not asked for certificates
    options.pem_key_cert_pairs.push_back({tls_->private_key, tls_->certificate_chain});
    tls_credentials = grpc::SslServerCredentials(options);
  }
  const std::string address = settings_.listen_host + ":" + std::to_string(settings_.listen_port);
  int bound_port = 0;
  builder.AddListeningPort(address,
                           settings_.tls_mode == TlsMode::kEnforcing ? tls_credentials : grpc::InsecureServerCredentials(),
                           &bound_port);
  int bound_tls_port = 0;
  const std::string tls_address = settings_.listen_host + ":" + std::to_string(settings_.tls_listen_port);
  if (settings_.tls_mode == TlsMode::kPermissive) builder.AddListeningPort(tls_address, tls_credentials, &bound_tls_port);
  builder.RegisterService(service_.get());
  if (settings_.metrics_exporter.enabled) {
    rpc_latency_ = std::make_unique<metrics::RpcLatency>("grpc");
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    interceptors.push_back(rpc_timing(*rpc_latency_));
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
  }
  // Room for the largest body plus its properties and the request's framing.
  builder.SetMaxReceiveMessageSize(static_cast<int>(settings_.max_message_size + 1024 * 1024));
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || bound_port == 0 || (settings_.tls_mode == TlsMode::kPermissive && bound_tls_port == 0)) {
    server_.reset();
    cluster_.reset();
    return Status::unavailable("cannot serve gRPC on " + address +
                               (settings_.tls_mode == TlsMode::kPermissive ? " and " + tls_address : std::string()) +
                               " (address in use or not local?)");
  }
  port_ = static_cast<std::uint16_t>(bound_port);
  tls_port_ = static_cast<std::uint16_t>(bound_tls_port);
  if (settings_.acl_enable) {
    tasks_.add("reload-acl-file", acl::kAclFileCheckInterval, acl::kAclFileCheckInterval,
               [control = access_control_] { control->reload_if_changed(); });
  }
  tasks_.add("renew-receipts", settings_.renew_interval, settings_.renew_interval,
             [service = service_.get()] { service->renew_receipts(); });
  tasks_.start("ProxyTasks");
  if (settings_.metrics_exporter.enabled) {
    exporter_ = std::make_unique<metrics::HttpExporter>(
        [this] { return proxy_metrics_page(*rpc_latency_, *service_); });
    if (auto bound = metrics::start_exporter(*exporter_, settings_.metrics_exporter, settings_.listen_host, "proxy");
        !bound) {
      stop();
      return bound.status();
    }
  }
  const std::string served = settings_.tls_mode == TlsMode::kEnforcing ? " (TLS)"
                             : settings_.tls_mode == TlsMode::kPermissive
                                 ? " (plaintext) and " + settings_.listen_host + ":" + std::to_string(tls_port_) + " (TLS)"
                                 : " (plaintext)";
  kernel::logger("proxy")->info("serving RocketMQ 5 gRPC clients on {}:{}{}, routing through name servers {}{}",
                                settings_.listen_host, port_, served, fmt::join(cluster_config_.namesrv_addresses, ";"),
                                settings_.acl_enable ? ", checking ACL of " + settings_.acl_file.string() : "");
  return Status::ok();
}

void ProxyServer::stop() noexcept {
  if (exporter_) exporter_->stop();
  tasks_.stop();
  if (server_ != nullptr) {
    // Calls still running (Telemetry streams above all) are cancelled after a short grace.
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    server_->Wait();
    server_.reset();
  }
  service_.reset();
  cluster_.reset();
}

}  // namespace mqkit::proxy
