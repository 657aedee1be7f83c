// mqbroker: the broker process, assembled from etc/broker.toml.
#include <iostream>

#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/lifecycle.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/signals.hpp"

int main(int argc, char** argv) {
  using namespace mqkit::kernel;
  block_termination_signals();
  const ParsedCommandLine parsed = parse_command_line(argc, argv, "mqbroker", "mqkit broker");
  if (parsed.exit_now) return parsed.exit_code;

  auto boot = Bootstrap::create(parsed.options);
  if (!boot) {
    std::cerr << "mqbroker: " << boot.status().message() << "\n";
    return 2;
  }
  if (auto done = (*boot)->finish_validation(); !done) {
    std::cerr << "mqbroker: " << done.message() << "\n";
    return 2;
  }
  if (parsed.options.print_config) std::cout << (*boot)->effective_config();
  if (parsed.options.list_plugins) std::cout << (*boot)->registry().describe();
  if (parsed.options.print_config || parsed.options.list_plugins || parsed.options.check) return 0;

  Lifecycle lifecycle;
  if (auto started = lifecycle.start_all(); !started) {
    std::cerr << "mqbroker: " << started.message() << "\n";
    return 1;
  }
  logger("broker")->info("mqbroker started; waiting for SIGINT/SIGTERM");
  const int signal_number = wait_for_termination_signal();
  logger("broker")->info("signal {} received, stopping", signal_number);
  lifecycle.stop_all();
  return 0;
}
