// mqproxy: RocketMQ 5's gRPC proxy in cluster mode, configured by etc/proxy.toml ([proxy],
// [client], [client.transport]); docs/proxy.md.
#include "mqkit/acl/access_control.hpp"
#include "mqkit/client/client_config.hpp"
#include "mqkit/kernel/server_main.hpp"
#include "mqkit/proxy/proxy_server.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  return kernel::run_server(argc, argv, "mqproxy", "mqkit gRPC proxy for RocketMQ 5 clients",
                            [](kernel::Bootstrap& boot) -> plugin::v1::Result<kernel::ServerParts> {
    MQKIT_ASSIGN_OR_RETURN(auto values, boot.section("proxy", proxy::proxy_schema()));
    MQKIT_ASSIGN_OR_RETURN(auto cluster, client::load_client_config(boot));
    MQKIT_ASSIGN_OR_RETURN(auto settings, proxy::proxy_settings(values, boot.config().base_directory()));
    // Loaded (or made) here so that --check validates the TLS files too.
    MQKIT_ASSIGN_OR_RETURN(auto tls, proxy::tls_identity_for(settings));
    // Loaded here so that --check validates the ACL file too.
    std::shared_ptr<acl::AccessControl> access_control;
    if (settings.acl_enable) {
      MQKIT_ASSIGN_OR_RETURN(access_control, acl::AccessControl::load(settings.acl_file));
    }
    auto server = std::make_shared<proxy::ProxyServer>(std::move(settings), cluster.resolved(), std::move(access_control),
                                                       std::move(tls));
    return kernel::ServerParts{.component = server, .port = [server] { return server->port(); }};
  });
}
