// mqnamesrv: the name server process, configured by etc/namesrv.toml ([namesrv], [transport]).
#include "mqkit/kernel/server_main.hpp"
#include "mqkit/namesrv/name_server.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  return kernel::run_server(argc, argv, "mqnamesrv", "mqkit name server",
                            [](kernel::Bootstrap& boot) -> plugin::v1::Result<kernel::ServerParts> {
    MQKIT_ASSIGN_OR_RETURN(auto config, boot.section("namesrv", namesrv::namesrv_schema()));
    MQKIT_ASSIGN_OR_RETURN(auto transport, boot.make_plugin<plugin::v1::Transport>("transport", "remoting"));
    auto server = std::make_shared<namesrv::NameServer>(config, transport);
    return kernel::ServerParts{.component = server, .port = [server] { return server->port(); }};
  });
}
