#include "plugin_fixture.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/kernel/kernel_host.hpp"
#include "mqkit/kernel/plugin_registry.hpp"

namespace mqkit::testing {

namespace {

struct SharedRegistry {
  kernel::PluginRegistry registry{{MQKIT_PLUGIN_DIR}};
  kernel::KernelHost host{registry};
  SharedRegistry() { (void)registry.discover(); }
};

SharedRegistry& shared() {
  // Loaded once per test binary and never unloaded: tests keep plugin objects in statics.
  static auto* instance = new SharedRegistry();
  return *instance;
}

}  // namespace

plugin::v1::Result<std::shared_ptr<void>> try_load_plugin_object(plugin::v1::Category category,
                                                                 std::string_view name,
                                                                 const std::map<std::string, std::string>& config) {
  auto& s = shared();
  MQKIT_ASSIGN_OR_RETURN(const kernel::LoadedPlugin* plugin, s.registry.find(category, name));
  MQKIT_ASSIGN_OR_RETURN(auto document, kernel::ConfigDocument::parse("", "(test)"));
  for (const auto& [key, value] : config) MQKIT_RETURN_IF_ERROR(document.add_override("slot." + key + "=" + value));
  MQKIT_ASSIGN_OR_RETURN(auto values, document.plugin_section("slot", plugin->manifest->schema()));
  return s.registry.create(*plugin, values, s.host);
}

std::shared_ptr<void> load_plugin_object(plugin::v1::Category category, std::string_view name,
                                         const std::map<std::string, std::string>& config) {
  auto object = try_load_plugin_object(category, name, config);
  if (!object) {
    ADD_FAILURE() << "loading " << plugin::v1::to_string(category) << " '" << name
                  << "': " << object.status().to_string();
    return nullptr;
  }
  return std::move(object).value();
}

}  // namespace mqkit::testing
