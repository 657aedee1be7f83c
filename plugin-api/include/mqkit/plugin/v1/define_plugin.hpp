// MQKIT_PLUGIN: turns a class into a loadable plugin with one line.
//
//   class Averagely final : public QueueAllocator {
//    public:
//     static Result<std::unique_ptr<Averagely>> create(const ConfigValues&, Host&);
//     ...
//   };
//   constexpr const char* kAliases[] = {"AllocateMessageQueueAveragely", nullptr};
//   constexpr ConfigField kSchema[] = {...};
//   MQKIT_PLUGIN(QueueAllocator, Averagely, "averagely", kAliases, "1.0.0", "…", kSchema)
//
// The macro defines the single exported symbol (kEntrySymbol) returning the manifest, and
// create/destroy functions that keep exceptions inside the library.
#pragma once

#include <exception>
#include <memory>
#include <span>
#include <string>

#include "mqkit/plugin/v1/allocator.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/fault_strategy.hpp"
#include "mqkit/plugin/v1/host.hpp"
#include "mqkit/plugin/v1/manifest.hpp"
#include "mqkit/plugin/v1/selector.hpp"
#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::plugin::v1 {

template <typename Interface>
struct CategoryOf;
template <> struct CategoryOf<QueueSelector> { static constexpr Category value = Category::kSelector; };
template <> struct CategoryOf<QueueAllocator> { static constexpr Category value = Category::kAllocator; };
template <> struct CategoryOf<FaultStrategy> { static constexpr Category value = Category::kFaultStrategy; };
template <> struct CategoryOf<MessageStore> { static constexpr Category value = Category::kStore; };
template <> struct CategoryOf<Transport> { static constexpr Category value = Category::kTransport; };

namespace detail {

template <typename Interface, typename Impl>
void* create_object(const ConfigValues& config, Host& host, Status* error) noexcept {
  try {
    auto made = Impl::create(config, host);
    if (!made.is_ok()) {
      *error = made.status();
      return nullptr;
    }
    Interface* object = std::move(made).value().release();
    return static_cast<void*>(object);
  } catch (const std::exception& e) {
    *error = Status::internal(std::string("plugin constructor threw: ") + e.what());
  } catch (...) {
    *error = Status::internal("plugin constructor threw a non-standard exception");
  }
  return nullptr;
}

template <typename Interface>
void destroy_object(void* object) noexcept {
  delete static_cast<Interface*>(object);
}

template <typename Interface, typename Impl>
constexpr Manifest make_manifest(const char* name, const char* const* aliases, const char* version,
                                 const char* description, std::span<const ConfigField> schema) {
  return Manifest{kAbiVersion,
                  static_cast<std::uint32_t>(sizeof(Manifest)),
                  MQKIT_PLUGIN_STDLIB_ID,
                  CategoryOf<Interface>::value,
                  name,
                  aliases,
                  version,
                  description,
                  schema.data(),
                  schema.size(),
                  &create_object<Interface, Impl>,
                  &destroy_object<Interface>};
}

}  // namespace detail
}  // namespace mqkit::plugin::v1

#define MQKIT_PLUGIN(Interface, Impl, name, aliases, version, description, schema)           \
  extern "C" __attribute__((visibility("default"))) const ::mqkit::plugin::v1::Manifest*    \
  mqkit_plugin_v1_entry() noexcept {                                                         \
    static const ::mqkit::plugin::v1::Manifest manifest =                                    \
        ::mqkit::plugin::v1::detail::make_manifest<::mqkit::plugin::v1::Interface, Impl>(    \
            name, aliases, version, description,                                             \
            std::span<const ::mqkit::plugin::v1::ConfigField>(schema));                      \
    return &manifest;                                                                        \
  }
