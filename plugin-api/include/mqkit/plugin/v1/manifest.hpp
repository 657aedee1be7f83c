// The plugin manifest: what a plugin .so declares about itself, and the one symbol it exports.
//
// A plugin library exports exactly one C symbol, kEntrySymbol, a function returning a pointer to
// a static Manifest. The loader reads abi_version and manifest_size first (their offsets never
// change), refuses a library built for another ABI or another C++ standard library, and only
// then reads the rest. See plugin-api/ABI_POLICY.md for what may change within v1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

class Host;

inline constexpr std::uint32_t kAbiVersion = 1;
inline constexpr const char* kEntrySymbol = "mqkit_plugin_v1_entry";

enum class Category : std::uint32_t {
  kSelector = 1,       // v1::QueueSelector       (producer: which queue a message goes to)
  kAllocator = 2,      // v1::QueueAllocator      (consumer rebalance: which queues I own)
  kFaultStrategy = 3,  // v1::FaultStrategy       (producer: which brokers to avoid)
  kStore = 4,          // v1::MessageStore        (broker: where messages live)
  kTransport = 5,      // v1::Transport           (wire protocol, server and client side)
};

std::string_view to_string(Category category) noexcept;     // "selector", "allocator", ...
bool parse_category(std::string_view text, Category* out) noexcept;

// The C++ standard library a plugin was compiled against. Interfaces are C++ classes, so host
// and plugin must agree on the standard library and its ABI; the loader compares this string.
#if defined(_LIBCPP_VERSION)
#define MQKIT_PLUGIN_STDLIB_ID_STR2(x) #x
#define MQKIT_PLUGIN_STDLIB_ID_STR(x) MQKIT_PLUGIN_STDLIB_ID_STR2(x)
#define MQKIT_PLUGIN_STDLIB_ID "libc++/abi" MQKIT_PLUGIN_STDLIB_ID_STR(_LIBCPP_ABI_VERSION)
#elif defined(__GLIBCXX__)
#if _GLIBCXX_USE_CXX11_ABI
#define MQKIT_PLUGIN_STDLIB_ID "libstdc++/cxx11-abi"
#else
#define MQKIT_PLUGIN_STDLIB_ID "libstdc++/old-abi"
#endif
#else
#define MQKIT_PLUGIN_STDLIB_ID "unknown-stdlib"
#endif

// Creates the plugin object from validated config. Returns the object as a pointer to the
// category's interface (e.g. QueueAllocator*) cast to void*, or nullptr with *error set.
// Must not throw.
using CreateFn = void* (*)(const ConfigValues& config, Host& host, Status* error) noexcept;
// Destroys an object made by CreateFn of the same manifest (so the library that allocated it
// frees it).
using DestroyFn = void (*)(void* object) noexcept;

struct Manifest {
  // Fixed prefix: never moves, so any loader can reject any plugin safely.
  std::uint32_t abi_version;    // kAbiVersion the plugin was built with
  std::uint32_t manifest_size;  // sizeof(Manifest) the plugin was built with
  const char* stdlib_id;        // MQKIT_PLUGIN_STDLIB_ID

  Category category;
  const char* name;                // canonical, lower_snake_case ("averagely")
  const char* const* aliases;      // nullptr-terminated; RocketMQ Java class names, short and FQCN
  const char* version;             // the plugin's own version ("1.0.0")
  const char* description;         // one line
  const ConfigField* config_fields;
  std::size_t config_field_count;
  CreateFn create;
  DestroyFn destroy;

  ConfigSchema schema() const noexcept { return {config_fields, config_field_count}; }
};

using EntryFn = const Manifest* (*)() noexcept;

}  // namespace mqkit::plugin::v1
