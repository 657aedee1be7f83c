// Creating the SDK's plugin objects (transport, selectors, fault strategies, allocators) through
// the kernel's registry and loader, from a PluginChoice.
//
// The registry and host behind them live for the rest of the process, one per distinct search
// path: a plugin object keeps the Host& it was made with, and a client cannot know when an
// application drops its last selector. Loading is cheap after the first time. Any thread.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "mqkit/client/client_config.hpp"
#include "mqkit/plugin/v1/define_plugin.hpp"

namespace mqkit::client {

// The object of plugin `choice.name` of `category`, its settings validated against the plugin's
// schema (defaults filled in). Errors say which plugin and which setting.
Result<std::shared_ptr<void>> create_plugin(const std::vector<std::filesystem::path>& plugin_dirs,
                                            plugin::v1::Category category, const PluginChoice& choice);

template <typename Interface>
Result<std::shared_ptr<Interface>> create_plugin_as(const std::vector<std::filesystem::path>& plugin_dirs,
                                                    const PluginChoice& choice) {
  auto object = create_plugin(plugin_dirs, plugin::v1::CategoryOf<Interface>::value, choice);
  if (!object) return object.status();
  return std::static_pointer_cast<Interface>(std::move(object).value());
}

}  // namespace mqkit::client
