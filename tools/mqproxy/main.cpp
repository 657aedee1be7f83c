// mqproxy: RocketMQ 5's gRPC proxy in cluster mode, configured by etc/proxy.toml ([proxy],
// [client], [client.transport]); docs/proxy.md.
#include "mqkit/client/client_config.hpp"
#include "mqkit/kernel/server_main.hpp"
#include "mqkit/proxy/proxy_server.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  return kernel::run_server(argc, argv, "mqproxy", "mqkit gRPC proxy for RocketMQ 5 clients",
                            [](kernel::Bootstrap& boot) -> plugin::v1::Result<kernel::ServerParts> {
    MQKIT_ASSIGN_OR_RETURN(auto values, boot.section("proxy", proxy::proxy_schema()));
    MQKIT_ASSIGN_OR_RETURN(auto cluster, client::load_client_config(boot));
    auto server = std::make_shared<proxy::ProxyServer>(proxy::proxy_settings(values), cluster.resolved());
    return kernel::ServerParts{.component = server, .port = [server] { return server->port(); }};
  });
}
