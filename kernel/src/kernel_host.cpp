#include "mqkit/kernel/kernel_host.hpp"

#include "mqkit/kernel/config_value.hpp"
#include "mqkit/kernel/logging.hpp"

namespace mqkit::kernel {

void KernelHost::log(plugin::v1::LogLevel level, std::string_view plugin, std::string_view message) noexcept {
  try {
    logger("plugin." + std::string(plugin))->log(to_spdlog(level), "{}", message);
  } catch (...) {
    // Logging must never take the process down; a lost line is the lesser harm.
  }
}

Result<std::shared_ptr<void>> KernelHost::create_plugin(Category category, std::string_view name) noexcept {
  try {
    MQKIT_ASSIGN_OR_RETURN(const LoadedPlugin* plugin, registry_.find(category, name));
    MQKIT_ASSIGN_OR_RETURN(ConfigValues config, default_config(plugin->manifest->schema()));
    return registry_.create(*plugin, config, *this);
  } catch (const std::exception& e) {
    return Status::internal(std::string("creating nested plugin: ") + e.what());
  }
}

Result<ConfigValues> default_config(const plugin::v1::ConfigSchema& schema) {
  ConfigValues values;
  for (const auto& field : schema) {
    if (field.default_value == nullptr) {
      return Status::invalid_argument(std::string("key '") + field.key + "' has no default and must be configured");
    }
    MQKIT_ASSIGN_OR_RETURN(auto value, parse_value_text(field, field.default_value));
    values.set(field.key, std::move(value));
  }
  return values;
}

}  // namespace mqkit::kernel
