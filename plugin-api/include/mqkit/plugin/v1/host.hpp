// Host: what the process that loaded a plugin offers back to it. Implemented by the kernel;
// plugins call it, never the other way round. All methods are thread-safe. The Host outlives
// every object created with it, so a plugin object may keep the Host& it was created with.
#pragma once

#include <memory>
#include <string_view>

#include "mqkit/plugin/v1/manifest.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

enum class LogLevel : std::uint8_t { kTrace, kDebug, kInfo, kWarn, kError };

class Host {
 public:
  virtual ~Host() = default;

  // Writes one line to the process log, tagged with the plugin's name.
  virtual void log(LogLevel level, std::string_view plugin, std::string_view message) noexcept = 0;

  // Creates another plugin's object by category and name (or alias), with that plugin's default
  // configuration; used by plugins that wrap another (e.g. machine-room-nearby around an
  // allocator). The returned pointer keeps its library loaded and destroys the object through
  // that library.
  virtual Result<std::shared_ptr<void>> create_plugin(Category category,
                                                      std::string_view name) noexcept = 0;
};

// Typed helper: create_plugin_as<QueueAllocator>(host, Category::kAllocator, "averagely").
template <typename Interface>
Result<std::shared_ptr<Interface>> create_plugin_as(Host& host, Category category,
                                                    std::string_view name) noexcept {
  auto object = host.create_plugin(category, name);
  if (!object.is_ok()) return object.status();
  return std::static_pointer_cast<Interface>(std::move(object).value());
}

}  // namespace mqkit::plugin::v1
