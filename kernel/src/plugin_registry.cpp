#include "mqkit/kernel/plugin_registry.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "mqkit/kernel/config_value.hpp"

#ifndef MQKIT_INSTALL_PLUGIN_DIR
#define MQKIT_INSTALL_PLUGIN_DIR ""
#endif

#if defined(__SANITIZE_ADDRESS__) && defined(__GLIBC__)
// ASan builds only. Plugins with thread_locals get dynamic TLS blocks, which glibc (>= 2.25)
// mallocs. GCC 12's libasan guesses the block's range at each new block with an old heuristic
// (glibc 2.19's mmap header): for a block starting 16 bytes past a 4 KiB boundary it reads the
// "range" from ASan's chunk header in front of it, and LeakSanitizer's exit-time tracer then
// scans that garbage range and crashes ("Tracer caught signal 11"): exit code 1 with no leak.
// Intermittent, as it depends on where the block lands (google/sanitizers#1322; LLVM fixed it
// in 2023, GCC 12 predates that). Without the tracking LSan still reaches the blocks through
// glibc's own per-thread tables: heap memory held only by a plugin's thread_local is not
// reported, and a real leak still is. Weak, so a program linking mqkit may define its own;
// ASAN_OPTIONS still overrides it.
extern "C" __attribute__((weak, visibility("default"))) const char* __asan_default_options() {
  return "intercept_tls_get_addr=0";
}
#endif

namespace mqkit::kernel {

namespace fs = std::filesystem;
using plugin::v1::kAbiVersion;
using plugin::v1::kEntrySymbol;

namespace {

constexpr std::string_view kFilePrefix = "mqkit-";
constexpr std::string_view kFileSuffix = ".so";

bool names_match(const Manifest& m, std::string_view name) {
  if (name == m.name) return true;
  for (const char* const* alias = m.aliases; alias != nullptr && *alias != nullptr; ++alias) {
    if (name == *alias) return true;
  }
  return false;
}

std::vector<std::string_view> all_names(const Manifest& m) {
  std::vector<std::string_view> names{m.name};
  for (const char* const* alias = m.aliases; alias != nullptr && *alias != nullptr; ++alias) names.emplace_back(*alias);
  return names;
}

}  // namespace

std::vector<fs::path> PluginRegistry::default_search_path(const std::vector<std::string>& configured,
                                                          const fs::path& base) {
  std::vector<fs::path> dirs;
  for (const auto& dir : configured) {
    fs::path p(dir);
    dirs.push_back(p.is_absolute() || base.empty() ? p : base / p);
  }
  if (const char* env = std::getenv("MQKIT_PLUGIN_PATH"); env != nullptr) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (colon != 0) dirs.emplace_back(std::string(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  boost::dll::fs::error_code ec;
  const fs::path exe_dir = boost::dll::program_location(ec).parent_path();
  if (!ec) {
    dirs.push_back(exe_dir.parent_path() / "plugins");
    dirs.push_back(exe_dir.parent_path() / "lib" / "mqkit" / "plugins");
  }
  if (std::string_view(MQKIT_INSTALL_PLUGIN_DIR) != "") dirs.emplace_back(MQKIT_INSTALL_PLUGIN_DIR);
  return dirs;
}

PluginRegistry::PluginRegistry(std::vector<fs::path> search_path) : search_path_(std::move(search_path)) {}

PluginRegistry::~PluginRegistry() = default;

Status PluginRegistry::discover() {
  std::vector<fs::path> seen_dirs;
  for (const auto& dir : search_path_) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(dir, ec);
    if (std::find(seen_dirs.begin(), seen_dirs.end(), canonical) != seen_dirs.end()) continue;
    seen_dirs.push_back(canonical);
    if (!fs::is_directory(dir, ec)) {
      searched_.push_back(dir.string() + " (no such directory)");
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > kFilePrefix.size() + kFileSuffix.size() && name.starts_with(kFilePrefix) &&
          name.ends_with(kFileSuffix)) {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    const std::size_t before = plugins_.size();
    for (const auto& file : files) {
      if (Status s = load_file(file); !s) refusals_.push_back(s.message());
    }
    searched_.push_back(dir.string() + " (" + std::to_string(plugins_.size() - before) + " plugins)");
  }
  return Status::ok();
}

Status PluginRegistry::load_file(const fs::path& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  for (const auto& p : plugins_) {
    if (p->path == canonical) return Status::ok();  // same file reached through two directories
  }
  return register_library(canonical);
}

Status PluginRegistry::register_library(const fs::path& path) {
  const std::string where = path.string();
  auto library = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;
  library->load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) {
    // dlerror() text is what explains a failed dlopen (missing dependency, bad ELF).
    const char* detail = ::dlerror();
    return Status::io_error("cannot load " + where + ": " + (detail ? std::string(detail) : ec.message()));
  }
  if (!library->has(kEntrySymbol)) {
    return Status::not_found(where + " is not an mqkit plugin: it does not export " + std::string(kEntrySymbol));
  }
  const auto entry = library->get<const Manifest*() noexcept>(kEntrySymbol);
  const Manifest* m = entry();
  if (m == nullptr) return Status::invalid_argument(where + ": " + kEntrySymbol + " returned no manifest");
  if (m->abi_version != kAbiVersion) {
    return Status::invalid_argument(where + ": plugin ABI version " + std::to_string(m->abi_version) +
                                    ", this mqkit supports ABI version " + std::to_string(kAbiVersion));
  }
  if (m->manifest_size != sizeof(Manifest)) {
    return Status::invalid_argument(where + ": manifest size " + std::to_string(m->manifest_size) + ", expected " +
                                    std::to_string(sizeof(Manifest)) + " (built against another plugin-api)");
  }
  if (m->stdlib_id == nullptr || std::string_view(m->stdlib_id) != MQKIT_PLUGIN_STDLIB_ID) {
    return Status::invalid_argument(where + ": built against C++ standard library '" +
                                    (m->stdlib_id ? m->stdlib_id : "?") + "', this mqkit uses '" +
                                    MQKIT_PLUGIN_STDLIB_ID + "'");
  }
  plugin::v1::Category ignored;
  if (!plugin::v1::parse_category(plugin::v1::to_string(m->category), &ignored)) {
    return Status::invalid_argument(where + ": unknown plugin category " +
                                    std::to_string(static_cast<std::uint32_t>(m->category)));
  }
  if (m->name == nullptr || *m->name == '\0' || m->create == nullptr || m->destroy == nullptr) {
    return Status::invalid_argument(where + ": manifest lacks a name or a create/destroy function");
  }
  if (Status s = check_schema(m->schema()); !s) {
    return Status::invalid_argument(where + " (" + m->name + "): " + s.message());
  }
  for (const auto& other : plugins_) {
    if (other->manifest->category != m->category) continue;
    for (const auto name : all_names(*m)) {
      if (names_match(*other->manifest, name)) {
        conflicts_.push_back(std::string(plugin::v1::to_string(m->category)) + " '" + std::string(name) +
                             "' is claimed by both " + other->path.string() + " and " + where);
        return Status::already_exists("duplicate " + std::string(plugin::v1::to_string(m->category)) +
                                      " name '" + std::string(name) + "' in " + where + ": already provided by " +
                                      other->path.string());
      }
    }
  }
  auto loaded = std::make_unique<LoadedPlugin>();
  loaded->path = path;
  loaded->manifest = m;
  loaded->library = library;
  plugins_.push_back(std::move(loaded));
  return Status::ok();
}

std::string PluginRegistry::searched_description() const {
  std::string out = "searched: ";
  if (searched_.empty()) {
    for (std::size_t i = 0; i < search_path_.size(); ++i) out += (i ? ", " : "") + search_path_[i].string();
    if (search_path_.empty()) out += "(no directories)";
  } else {
    for (std::size_t i = 0; i < searched_.size(); ++i) out += (i ? ", " : "") + searched_[i];
  }
  for (const auto& refusal : refusals_) out += "; refused " + refusal;
  return out;
}

Result<const LoadedPlugin*> PluginRegistry::find(Category category, std::string_view name) const {
  const std::string category_name(plugin::v1::to_string(category));
  for (const auto& conflict : conflicts_) {
    if (conflict.starts_with(category_name + " '" + std::string(name) + "'")) {
      return Status::already_exists(conflict + "; remove one of them");
    }
  }
  for (const auto& p : plugins_) {
    if (p->manifest->category == category && names_match(*p->manifest, name)) return p.get();
  }
  for (const auto& p : plugins_) {
    if (names_match(*p->manifest, name)) {
      return Status::invalid_argument("plugin '" + std::string(name) + "' (" + p->path.string() + ") is a " +
                                      std::string(plugin::v1::to_string(p->manifest->category)) + " plugin, not a " +
                                      category_name + " plugin");
    }
  }
  return Status::not_found("no " + category_name + " plugin named '" + std::string(name) + "'; " +
                           searched_description());
}

Result<std::shared_ptr<void>> PluginRegistry::create(Category category, std::string_view name,
                                                     const ConfigValues& config, plugin::v1::Host& host) const {
  MQKIT_ASSIGN_OR_RETURN(const LoadedPlugin* plugin, find(category, name));
  return create(*plugin, config, host);
}

Result<std::shared_ptr<void>> PluginRegistry::create(const LoadedPlugin& plugin, const ConfigValues& config,
                                                     plugin::v1::Host& host) const {
  Status error;
  void* object = plugin.manifest->create(config, host, &error);
  if (object == nullptr) {
    if (error.is_ok()) error = Status::internal("create() returned nothing and no error");
    return error.with_context("creating " + std::string(plugin::v1::to_string(plugin.manifest->category)) + " '" +
                              plugin.manifest->name + "'");
  }
  // The deleter owns a reference to the library: it unloads only after the object is gone.
  auto destroy = plugin.manifest->destroy;
  std::shared_ptr<void> library = plugin.library;
  return std::shared_ptr<void>(object, [destroy, library](void* p) { destroy(p); });
}

std::vector<const LoadedPlugin*> PluginRegistry::plugins() const {
  std::vector<const LoadedPlugin*> out;
  for (const auto& p : plugins_) out.push_back(p.get());
  std::sort(out.begin(), out.end(), [](const LoadedPlugin* a, const LoadedPlugin* b) {
    if (a->manifest->category != b->manifest->category) return a->manifest->category < b->manifest->category;
    return std::string_view(a->manifest->name) < b->manifest->name;
  });
  return out;
}

std::string PluginRegistry::describe() const {
  std::ostringstream out;
  for (const LoadedPlugin* p : plugins()) {
    const Manifest& m = *p->manifest;
    out << plugin::v1::to_string(m.category) << " " << m.name << " " << m.version << "  (ABI v" << m.abi_version
        << ")\n  " << m.description << "\n  file: " << p->path.string() << "\n";
    if (m.aliases != nullptr && *m.aliases != nullptr) {
      out << "  aliases:";
      for (const char* const* a = m.aliases; *a != nullptr; ++a) out << " " << *a;
      out << "\n";
    }
    if (m.config_field_count == 0) out << "  config: (none)\n";
    for (const auto& field : m.schema()) {
      out << "  config " << field.key << " (" << plugin::v1::to_string(field.type);
      if (field.default_value) out << ", default " << (*field.default_value ? field.default_value : "\"\"");
      else out << ", required";
      if (field.min != plugin::v1::kNoLowerBound) out << ", min " << field.min;
      if (field.max != plugin::v1::kNoUpperBound) out << ", max " << field.max;
      if (field.allowed) {
        out << ", one of";
        for (const char* const* a = field.allowed; *a; ++a) out << " " << *a;
      }
      out << "): " << field.description << "\n";
    }
  }
  for (const auto& refusal : refusals_) out << "refused: " << refusal << "\n";
  out << searched_description() << "\n";
  return out.str();
}

}  // namespace mqkit::kernel
