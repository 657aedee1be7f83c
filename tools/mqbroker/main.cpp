// mqbroker: the broker process, assembled from etc/broker.toml: the [broker] section, the
// store plugin of [store] and the transport plugin of [transport].
#include "mqkit/broker/broker_controller.hpp"
#include "mqkit/kernel/server_main.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  return kernel::run_server(argc, argv, "mqbroker", "mqkit broker",
                            [](kernel::Bootstrap& boot) -> plugin::v1::Result<kernel::ServerParts> {
    MQKIT_ASSIGN_OR_RETURN(auto section, boot.section("broker", broker::broker_schema()));
    MQKIT_ASSIGN_OR_RETURN(auto config, broker::broker_config_from(section));
    MQKIT_ASSIGN_OR_RETURN(auto store, boot.make_plugin<plugin::v1::MessageStore>("store", "commitlog"));
    MQKIT_ASSIGN_OR_RETURN(auto transport, boot.make_plugin<plugin::v1::Transport>("transport", "remoting"));
    for (const char* slot : {"store", "transport"}) config.plugin_settings.push_back(*boot.plugin_values(slot));
    auto controller = std::make_shared<broker::BrokerController>(std::move(config), store, transport);
    return kernel::ServerParts{.component = controller,
                               .describe = [controller] { return controller->address(); },
                               .port = [controller] { return controller->port(); }};
  });
}
