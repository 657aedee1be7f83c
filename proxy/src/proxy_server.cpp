#include "mqkit/proxy/proxy_server.hpp"

#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include "messaging_service.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/kernel/logging.hpp"
#include "route_view.hpp"

namespace mqkit::proxy {

using plugin::v1::Status;

ProxyServer::ProxyServer(ProxySettings settings, client::ClientConfig cluster_config,
                         std::shared_ptr<acl::AccessControl> access_control)
    : settings_(std::move(settings)),
      cluster_config_(std::move(cluster_config)),
      access_control_(std::move(access_control)) {}

ProxyServer::~ProxyServer() { stop(); }

Status ProxyServer::start() {
  if (!settings_.advertised_address.empty() && !parse_endpoints(settings_.advertised_address)) {
    return Status::invalid_argument("proxy.advertised_address \"" + settings_.advertised_address +
                                    "\" is not host:port");
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
  const std::string address = settings_.listen_host + ":" + std::to_string(settings_.listen_port);
  int bound_port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(service_.get());
  // Room for the largest body plus its properties and the request's framing.
  builder.SetMaxReceiveMessageSize(static_cast<int>(settings_.max_message_size + 1024 * 1024));
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || bound_port == 0) {
    server_.reset();
    cluster_.reset();
    return Status::unavailable("cannot serve gRPC on " + address + " (address in use or not local?)");
  }
  port_ = static_cast<std::uint16_t>(bound_port);
  if (settings_.acl_enable) {
    tasks_.add("reload-acl-file", acl::kAclFileCheckInterval, acl::kAclFileCheckInterval,
               [control = access_control_] { control->reload_if_changed(); });
    tasks_.start("ProxyTasks");
  }
  kernel::logger("proxy")->info("serving RocketMQ 5 gRPC clients on {}:{}, routing through name servers {}{}",
                                settings_.listen_host, port_, fmt::join(cluster_config_.namesrv_addresses, ";"),
                                settings_.acl_enable ? ", checking ACL of " + settings_.acl_file.string() : "");
  return Status::ok();
}

void ProxyServer::stop() noexcept {
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
