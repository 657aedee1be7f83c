// run_server: the main() every mqkit server shares — command line, configuration, plugins,
// --print-config / --list-plugins / --check, lifecycle, one "ready on port" line for scripts
// and tests, and a graceful stop on SIGINT/SIGTERM. A server supplies only its wiring.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/lifecycle.hpp"

namespace mqkit::kernel {

struct ServerParts {
  std::shared_ptr<Component> component;
  // After a successful start: what follows "<program> " on the ready line, before "ready on port N".
  std::function<std::string()> describe = [] { return std::string(); };
  std::function<std::uint16_t()> port;
};

// `build` validates the server's sections and makes its plugins through `boot`; its errors are
// reported as "<program>: <message>" with exit code 2. A failed start exits with 1.
int run_server(int argc, char** argv, std::string_view program, std::string_view description,
               const std::function<plugin::v1::Result<ServerParts>(Bootstrap& boot)>& build);

}  // namespace mqkit::kernel
