#include "mqkit/kernel/server_main.hpp"

#include <iostream>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/resource_limits.hpp"
#include "mqkit/kernel/signals.hpp"

namespace mqkit::kernel {

int run_server(int argc, char** argv, std::string_view program, std::string_view description,
               const std::function<plugin::v1::Result<ServerParts>(Bootstrap& boot)>& build) {
  block_termination_signals();
  const ParsedCommandLine parsed = parse_command_line(argc, argv, program, description);
  if (parsed.exit_now) return parsed.exit_code;
  const auto fail = [&](const plugin::v1::Status& s) {
    std::cerr << program << ": " << s.message() << "\n";
    return 2;
  };
  auto boot = Bootstrap::create(parsed.options);
  if (!boot) return fail(boot.status());
  (void)raise_open_files_limit();  // after Bootstrap::create: [log] is configured
  auto parts = build(**boot);
  if (!parts) return fail(parts.status());
  if (auto done = (*boot)->finish_validation(); !done) return fail(done);
  if (parsed.options.print_config) std::cout << (*boot)->effective_config();
  if (parsed.options.list_plugins) std::cout << (*boot)->registry().describe();
  if (parsed.options.print_config || parsed.options.list_plugins || parsed.options.check) return 0;

  Lifecycle lifecycle;
  lifecycle.add(parts->component);
  if (auto started = lifecycle.start_all(); !started) {
    std::cerr << program << ": " << started.message() << "\n";
    return 1;
  }
  const std::string about = parts->describe();
  std::cout << program << " " << (about.empty() ? "" : about + " ") << "ready on port " << parts->port() << std::endl;
  const int signal_number = wait_for_termination_signal();
  logger(program)->info("signal {} received, stopping", signal_number);
  lifecycle.stop_all();
  return 0;
}

}  // namespace mqkit::kernel
