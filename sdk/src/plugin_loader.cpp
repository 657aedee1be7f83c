#include "plugin_loader.hpp"

#include <map>
#include <mutex>
#include <string>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/kernel/kernel_host.hpp"
#include "mqkit/kernel/plugin_registry.hpp"

namespace mqkit::client {

namespace {

using plugin::v1::Category;

struct PluginEnvironment {
  explicit PluginEnvironment(std::vector<std::filesystem::path> search_path)
      : registry(std::move(search_path)), host(registry) {}
  kernel::PluginRegistry registry;
  kernel::KernelHost host;
  Status discovered;
};

Result<PluginEnvironment*> environment_for(const std::vector<std::filesystem::path>& plugin_dirs) {
  static std::mutex mutex;
  // Never destroyed, see the header.
  static auto* environments = new std::map<std::string, std::unique_ptr<PluginEnvironment>>();
  std::vector<std::string> configured;
  std::string key;
  for (const auto& dir : plugin_dirs) {
    configured.push_back(dir.string());
    key += dir.string() + '\n';
  }
  std::lock_guard lock(mutex);
  auto& slot = (*environments)[key];
  if (!slot) {
    std::error_code ignored;
    auto search_path = kernel::PluginRegistry::default_search_path(configured, std::filesystem::current_path(ignored));
    slot = std::make_unique<PluginEnvironment>(std::move(search_path));
    slot->discovered = slot->registry.discover();
  }
  if (!slot->discovered) return slot->discovered;
  return slot.get();
}

}  // namespace

Result<std::shared_ptr<void>> create_plugin(const std::vector<std::filesystem::path>& plugin_dirs, Category category,
                                            const PluginChoice& choice) {
  const std::string what = std::string(plugin::v1::to_string(category)) + " plugin '" + choice.name + "'";
  MQKIT_ASSIGN_OR_RETURN(PluginEnvironment * env, environment_for(plugin_dirs));
  auto found = env->registry.find(category, choice.name);
  if (!found) return found.status().with_context(what);
  // The settings go through the same validation as a TOML plugin slot would.
  constexpr std::string_view kSlot = "plugin";
  MQKIT_ASSIGN_OR_RETURN(auto document, kernel::ConfigDocument::parse("", "(" + what + " settings)"));
  for (const auto& [key, value] : choice.settings) {
    if (Status s = document.add_override(std::string(kSlot) + "." + key + "=" + value); !s) {
      return s.with_context(what);
    }
  }
  auto values = document.plugin_section(kSlot, (*found)->manifest->schema());
  if (!values) return values.status().with_context(what);
  auto object = env->registry.create(**found, *values, env->host);
  if (!object) return object.status().with_context(what);
  return object;
}

}  // namespace mqkit::client
