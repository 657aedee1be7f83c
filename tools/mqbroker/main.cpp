// mqbroker: the broker process, assembled from etc/broker.toml: the [broker] section, the
// store plugin of [store] and the transport plugin of [transport].
#include <iostream>

#include "mqkit/broker/broker_controller.hpp"
#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/lifecycle.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/signals.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  kernel::block_termination_signals();
  const auto parsed = kernel::parse_command_line(argc, argv, "mqbroker", "mqkit broker");
  if (parsed.exit_now) return parsed.exit_code;

  auto fail = [](const plugin::v1::Status& s) {
    std::cerr << "mqbroker: " << s.message() << "\n";
    return 2;
  };
  auto boot = kernel::Bootstrap::create(parsed.options);
  if (!boot) return fail(boot.status());
  auto& b = **boot;
  auto section = b.section("broker", broker::broker_schema());
  if (!section) return fail(section.status());
  auto config = broker::broker_config_from(*section);
  if (!config) return fail(config.status());
  auto store = b.make_plugin<plugin::v1::MessageStore>("store", "commitlog");
  if (!store) return fail(store.status());
  auto transport = b.make_plugin<plugin::v1::Transport>("transport", "remoting");
  if (!transport) return fail(transport.status());
  if (auto done = b.finish_validation(); !done) return fail(done);
  if (parsed.options.print_config) std::cout << b.effective_config();
  if (parsed.options.list_plugins) std::cout << b.registry().describe();
  if (parsed.options.print_config || parsed.options.list_plugins || parsed.options.check) return 0;

  kernel::Lifecycle lifecycle;
  auto controller = std::make_shared<broker::BrokerController>(std::move(config).value(), *store, *transport);
  lifecycle.add(controller);
  if (auto started = lifecycle.start_all(); !started) {
    std::cerr << "mqbroker: " << started.message() << "\n";
    return 1;
  }
  // One machine-readable line for scripts and tests that start brokers on free ports.
  std::cout << "mqbroker " << controller->address() << " ready on port " << controller->port() << std::endl;
  const int signal_number = kernel::wait_for_termination_signal();
  kernel::logger("broker")->info("signal {} received, stopping", signal_number);
  lifecycle.stop_all();
  return 0;
}
