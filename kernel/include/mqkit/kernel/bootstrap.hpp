// Bootstrap: what every mqkit program does before it runs — read the command line and the TOML
// file, apply --set overrides, validate [kernel] and [log], configure logging, discover plugins —
// and the one way to turn a config section into a component's values or a plugin slot into a
// plugin object. It also remembers every validated section for --print-config.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/kernel/kernel_host.hpp"
#include "mqkit/kernel/plugin_registry.hpp"
#include "mqkit/plugin/v1/define_plugin.hpp"

namespace mqkit::kernel {

struct CommandLine {
  std::filesystem::path config_file{};   // -c FILE; empty = defaults only
  std::vector<std::string> overrides{};  // --set section.key=value
  bool print_config = false;           // --print-config
  bool list_plugins = false;           // --list-plugins
  bool check = false;                  // --check: validate and build everything, then exit
};

struct ParsedCommandLine {
  CommandLine options;
  bool exit_now = false;  // --help / --version printed, or a usage error
  int exit_code = 0;
};

// Parses the flags every server shares (-c, --set, --print-config, --list-plugins, --check).
ParsedCommandLine parse_command_line(int argc, char** argv, std::string_view program, std::string_view description);

// Schema of the [kernel] section.
const plugin::v1::ConfigSchema& kernel_schema();

class Bootstrap {
 public:
  static Result<std::unique_ptr<Bootstrap>> create(const CommandLine& command_line);

  ConfigDocument& config() noexcept { return config_; }
  PluginRegistry& registry() noexcept { return *registry_; }
  KernelHost& host() noexcept { return *host_; }

  // Validates a component section (recorded for --print-config).
  Result<ConfigValues> section(std::string_view path, const plugin::v1::ConfigSchema& schema);

  // The plugin of a slot: the slot's `plugin` key (or `default_name` when the slot is absent),
  // found in the registry, its table validated against the plugin's schema, then created.
  Result<std::shared_ptr<void>> make_plugin(Category category, std::string_view path, std::string_view default_name);
  template <typename Interface>
  Result<std::shared_ptr<Interface>> make_plugin(std::string_view path, std::string_view default_name) {
    auto object = make_plugin(plugin::v1::CategoryOf<Interface>::value, path, default_name);
    if (!object.is_ok()) return object.status();
    return std::static_pointer_cast<Interface>(std::move(object).value());
  }

  // The validated table (defaults included) of the plugin made for slot `path`; nullptr when
  // none was made.
  const ConfigValues* plugin_values(std::string_view path) const;

  // Every validated section, as TOML with descriptions (what --print-config prints).
  std::string effective_config() const;
  // Unknown sections and unused --set values are errors; call after the last section().
  Status finish_validation() const { return config_.check_all_consumed(); }

 private:
  explicit Bootstrap(ConfigDocument config) : config_(std::move(config)) {}

  ConfigDocument config_;
  std::unique_ptr<PluginRegistry> registry_;
  std::unique_ptr<KernelHost> host_;
  std::vector<std::string> rendered_;
  std::map<std::string, ConfigValues, std::less<>> plugin_values_;
};

}  // namespace mqkit::kernel
