#include "mqkit/kernel/bootstrap.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::kernel {

namespace {

constexpr plugin::v1::ConfigField kKernelFields[] = {
    {.key = "plugin_dirs", .type = plugin::v1::ValueType::kStringList, .default_value = "",
     .description = "Directories searched for mqkit-*.so plugins before $MQKIT_PLUGIN_PATH and the "
                    "install directory; relative paths are relative to this file"},
};
constexpr plugin::v1::ConfigSchema kKernelSchema{kKernelFields, std::size(kKernelFields)};

}  // namespace

const plugin::v1::ConfigSchema& kernel_schema() { return kKernelSchema; }

ParsedCommandLine parse_command_line(int argc, char** argv, std::string_view program, std::string_view description) {
  ParsedCommandLine parsed;
  CLI::App app{std::string(description), std::string(program)};
  std::string config_file;
  app.add_option("-c,--config", config_file, "TOML configuration file");
  app.add_option("--set", parsed.options.overrides, "Override a value: section.key=value (repeatable)");
  app.add_flag("--print-config", parsed.options.print_config,
               "Print the effective configuration, defaults filled in, and exit");
  app.add_flag("--list-plugins", parsed.options.list_plugins, "List every plugin found and its manifest, and exit");
  app.add_flag("--check", parsed.options.check, "Validate the configuration and create every plugin, then exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    parsed.exit_now = true;
    parsed.exit_code = app.exit(e);
    return parsed;
  }
  parsed.options.config_file = config_file;
  return parsed;
}

Result<std::unique_ptr<Bootstrap>> Bootstrap::create(const CommandLine& command_line) {
  auto document = command_line.config_file.empty() ? ConfigDocument::parse("", "(defaults)")
                                                   : ConfigDocument::load_file(command_line.config_file);
  if (!document) return document.status();
  std::unique_ptr<Bootstrap> boot(new Bootstrap(std::move(document).value()));
  for (const auto& assignment : command_line.overrides) {
    MQKIT_RETURN_IF_ERROR(boot->config_.add_override(assignment));
  }
  MQKIT_ASSIGN_OR_RETURN(ConfigValues log_values, boot->section("log", log_schema()));
  MQKIT_RETURN_IF_ERROR(configure_logging(log_values));
  MQKIT_ASSIGN_OR_RETURN(ConfigValues kernel_values, boot->section("kernel", kernel_schema()));
  boot->registry_ = std::make_unique<PluginRegistry>(PluginRegistry::default_search_path(
      kernel_values.get_list("plugin_dirs"), boot->config_.base_directory()));
  MQKIT_RETURN_IF_ERROR(boot->registry_->discover());
  auto log = logger("kernel");
  for (const auto& refusal : boot->registry_->refusals()) log->warn("plugin refused: {}", refusal);
  boot->host_ = std::make_unique<KernelHost>(*boot->registry_);
  return boot;
}

Result<ConfigValues> Bootstrap::section(std::string_view path, const plugin::v1::ConfigSchema& schema) {
  MQKIT_ASSIGN_OR_RETURN(ConfigValues values, config_.section(path, schema));
  rendered_.push_back(ConfigDocument::render(path, schema, values));
  return values;
}

Result<std::shared_ptr<void>> Bootstrap::make_plugin(Category category, std::string_view path,
                                                     std::string_view default_name) {
  MQKIT_ASSIGN_OR_RETURN(std::optional<std::string> configured, config_.plugin_name(path));
  const std::string name = configured.value_or(std::string(default_name));
  auto plugin = registry_->find(category, name);
  if (!plugin) {
    return plugin.status().with_context(config_.location_of(path, "plugin") + ": [" + std::string(path) + "]");
  }
  MQKIT_ASSIGN_OR_RETURN(ConfigValues values, config_.plugin_section(path, (*plugin)->manifest->schema()));
  std::string rendered = ConfigDocument::render(path, (*plugin)->manifest->schema(), values);
  rendered.insert(rendered.find('\n') + 1, "plugin = \"" + std::string((*plugin)->manifest->name) + "\"\n");
  rendered_.push_back(std::move(rendered));
  auto object = registry_->create(**plugin, values, *host_);
  if (!object) return object.status().with_context("[" + std::string(path) + "]");
  plugin_values_.insert_or_assign(std::string(path), std::move(values));
  return object;
}

const ConfigValues* Bootstrap::plugin_values(std::string_view path) const {
  const auto found = plugin_values_.find(path);
  return found == plugin_values_.end() ? nullptr : &found->second;
}

std::string Bootstrap::effective_config() const {
  std::string out = "# effective configuration of " + config_.source_name() + "\n";
  for (const auto& section : rendered_) out += "\n" + section;
  return out;
}

}  // namespace mqkit::kernel
