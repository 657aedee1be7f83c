// KernelHost: the kernel's implementation of plugin::v1::Host (logging, nested plugins).
#pragma once

#include "mqkit/kernel/plugin_registry.hpp"
#include "mqkit/plugin/v1/host.hpp"

namespace mqkit::kernel {

class KernelHost final : public plugin::v1::Host {
 public:
  // `registry` must outlive the host.
  explicit KernelHost(const PluginRegistry& registry) : registry_(registry) {}

  void log(plugin::v1::LogLevel level, std::string_view plugin, std::string_view message) noexcept override;
  Result<std::shared_ptr<void>> create_plugin(Category category, std::string_view name) noexcept override;

 private:
  const PluginRegistry& registry_;
};

// Schema defaults of a plugin as validated values (what a nested plugin is created with).
Result<ConfigValues> default_config(const plugin::v1::ConfigSchema& schema);

}  // namespace mqkit::kernel
