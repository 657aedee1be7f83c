// mqbroker: the broker process, assembled from etc/broker.toml: the [broker] section (and its
// ACL file when acl_enable), the store plugin of [store] and the transport plugin of [transport].
#include "mqkit/acl/access_control.hpp"
#include "mqkit/broker/broker_controller.hpp"
#include "mqkit/kernel/server_main.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  return kernel::run_server(argc, argv, "mqbroker", "mqkit broker",
                            [](kernel::Bootstrap& boot) -> plugin::v1::Result<kernel::ServerParts> {
    MQKIT_ASSIGN_OR_RETURN(auto section, boot.section("broker", broker::broker_schema()));
    MQKIT_ASSIGN_OR_RETURN(auto config, broker::broker_config_from(section, boot.config().base_directory()));
    // Loaded here so that --check validates the ACL file too.
    std::shared_ptr<acl::AccessControl> access_control;
    if (config.acl_enable) {
      MQKIT_ASSIGN_OR_RETURN(access_control, acl::AccessControl::load(config.acl_file));
    }
    MQKIT_ASSIGN_OR_RETURN(auto store, boot.make_plugin<plugin::v1::MessageStore>("store", "commitlog"));
    MQKIT_ASSIGN_OR_RETURN(auto transport, boot.make_plugin<plugin::v1::Transport>("transport", "remoting"));
    for (const char* slot : {"store", "transport"}) config.plugin_settings.push_back(*boot.plugin_values(slot));
    auto controller =
        std::make_shared<broker::BrokerController>(std::move(config), store, transport, std::move(access_control));
    return kernel::ServerParts{.component = controller,
                               .describe = [controller] { return controller->address(); },
                               .port = [controller] { return controller->port(); }};
  });
}
