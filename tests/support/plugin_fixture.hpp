// Test support: load a built plugin .so through the kernel's real registry and loader.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::testing {

// Loads plugin `name` (canonical name or alias) of `category` from the build's plugin directory
// (MQKIT_PLUGIN_DIR), validates `config` (key -> value text, as with --set) against the
// plugin's schema with defaults filled in, and creates the object. Fails the current test
// (ADD_FAILURE) and returns nullptr on any error.
std::shared_ptr<void> load_plugin_object(plugin::v1::Category category, std::string_view name,
                                         const std::map<std::string, std::string>& config = {});

// As above, but returns the error instead of failing the test.
plugin::v1::Result<std::shared_ptr<void>> try_load_plugin_object(
    plugin::v1::Category category, std::string_view name,
    const std::map<std::string, std::string>& config = {});

template <typename Interface>
std::shared_ptr<Interface> load_plugin(std::string_view name,
                                       const std::map<std::string, std::string>& config = {}) {
  return std::static_pointer_cast<Interface>(
      load_plugin_object(plugin::v1::CategoryOf<Interface>::value, name, config));
}

}  // namespace mqkit::testing
