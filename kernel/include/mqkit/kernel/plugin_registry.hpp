// PluginRegistry: finds plugin libraries on a search path, checks their manifests, and makes
// objects from them.
//
// Discovery loads every file named mqkit-*.so in the search directories (in order), reads its
// manifest through the single entry symbol, and refuses a library whose ABI version, manifest
// size, C++ standard library or schema does not fit, or whose name or alias another library
// already claims. Refusals are kept and shown when someone asks for that plugin, together with
// every path searched. A library stays loaded while the registry or any object made from it
// lives: objects hold a reference to their library and are destroyed by it.
//
// Thread-safe after discover(): find() and create() may be called concurrently.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/host.hpp"
#include "mqkit/plugin/v1/manifest.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

using plugin::v1::Category;
using plugin::v1::ConfigValues;
using plugin::v1::Manifest;
using plugin::v1::Result;
using plugin::v1::Status;

struct LoadedPlugin {
  std::filesystem::path path;
  const Manifest* manifest = nullptr;
  std::shared_ptr<void> library;  // keeps the shared library loaded
};

class PluginRegistry {
 public:
  // Search order: `configured` (config [kernel] plugin_dirs, relative ones resolved against
  // `base`), then $MQKIT_PLUGIN_PATH (colon-separated), then <exe>/../plugins (build tree) and
  // <exe>/../lib/mqkit/plugins (installed tree).
  static std::vector<std::filesystem::path> default_search_path(const std::vector<std::string>& configured,
                                                                const std::filesystem::path& base);

  explicit PluginRegistry(std::vector<std::filesystem::path> search_path);
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads and checks every mqkit-*.so on the search path. Problems with single files are
  // recorded (see refusals()), not returned: only a broken search path is an error.
  Status discover();
  // Loads one library explicitly (e.g. a path given in config). The error says why.
  Status load_file(const std::filesystem::path& path);

  // The plugin of `category` whose name or alias is `name`. NotFound lists every path searched
  // and every refused library; a name claimed twice is an error naming both libraries.
  Result<const LoadedPlugin*> find(Category category, std::string_view name) const;

  // Creates an object of plugin `name` from validated config. The shared_ptr keeps the library
  // loaded and destroys the object through the plugin's own destroy function.
  Result<std::shared_ptr<void>> create(Category category, std::string_view name, const ConfigValues& config,
                                       plugin::v1::Host& host) const;
  Result<std::shared_ptr<void>> create(const LoadedPlugin& plugin, const ConfigValues& config,
                                       plugin::v1::Host& host) const;

  std::vector<const LoadedPlugin*> plugins() const;
  const std::vector<std::string>& refusals() const noexcept { return refusals_; }
  const std::vector<std::filesystem::path>& search_path() const noexcept { return search_path_; }

  // Human-readable listing of every manifest (for --list-plugins).
  std::string describe() const;

 private:
  Status register_library(const std::filesystem::path& path);
  std::string searched_description() const;

  std::vector<std::filesystem::path> search_path_;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<std::string> refusals_;
  std::vector<std::string> searched_;  // "dir (N plugins)" / "dir (missing)"
  // name conflicts: (category, name) claimed by more than one library
  std::vector<std::string> conflicts_;
  mutable std::mutex mutex_;
};

}  // namespace mqkit::kernel
