// mqnamesrv: the name server process, configured by etc/namesrv.toml.
#include <iostream>

#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/lifecycle.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/signals.hpp"
#include "mqkit/namesrv/name_server.hpp"

int main(int argc, char** argv) {
  using namespace mqkit;
  kernel::block_termination_signals();
  const auto parsed = kernel::parse_command_line(argc, argv, "mqnamesrv", "mqkit name server");
  if (parsed.exit_now) return parsed.exit_code;

  auto fail = [](const plugin::v1::Status& s) {
    std::cerr << "mqnamesrv: " << s.message() << "\n";
    return 2;
  };
  auto boot = kernel::Bootstrap::create(parsed.options);
  if (!boot) return fail(boot.status());
  auto& b = **boot;
  auto config = b.section("namesrv", namesrv::namesrv_schema());
  if (!config) return fail(config.status());
  auto transport = b.make_plugin<plugin::v1::Transport>("transport", "remoting");
  if (!transport) return fail(transport.status());
  if (auto done = b.finish_validation(); !done) return fail(done);
  if (parsed.options.print_config) std::cout << b.effective_config();
  if (parsed.options.list_plugins) std::cout << b.registry().describe();
  if (parsed.options.print_config || parsed.options.list_plugins || parsed.options.check) return 0;

  kernel::Lifecycle lifecycle;
  auto server = std::make_shared<namesrv::NameServer>(*config, *transport);
  lifecycle.add(server);
  if (auto started = lifecycle.start_all(); !started) {
    std::cerr << "mqnamesrv: " << started.message() << "\n";
    return 1;
  }
  // One machine-readable line for scripts and tests that start name servers on free ports.
  std::cout << "mqnamesrv ready on port " << server->port() << std::endl;
  const int signal_number = kernel::wait_for_termination_signal();
  kernel::logger("namesrv")->info("signal {} received, stopping", signal_number);
  lifecycle.stop_all();
  return 0;
}
