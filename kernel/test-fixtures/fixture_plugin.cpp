// Deliberately good and broken plugins for the loader tests, one .so per FIXTURE_KIND.
#include <stdexcept>

#include "mqkit/plugin/v1/plugin.hpp"

namespace v1 = mqkit::plugin::v1;

namespace {

// Returns every queue: enough behaviour to prove a loaded object works.
class TakeAll final : public v1::QueueAllocator {
 public:
  explicit TakeAll(std::int64_t marker) : marker_(marker) {}
  static v1::Result<std::unique_ptr<TakeAll>> create(const v1::ConfigValues& config, v1::Host& host) {
#if FIXTURE_KIND == FIXTURE_THROWS
    (void)config;
    (void)host;
    throw std::runtime_error("fixture constructor failure");
#else
    host.log(v1::LogLevel::kInfo, FIXTURE_NAME, "created");
    if (config.get_int("marker") < 0) return v1::Status::invalid_argument("marker must not be negative");
    return std::make_unique<TakeAll>(config.get_int("marker"));
#endif
  }
  v1::Result<std::vector<v1::MessageQueue>> allocate(const v1::AllocateContext& context) noexcept override {
    std::vector<v1::MessageQueue> all(context.all_queues.begin(), context.all_queues.end());
    if (!all.empty()) all.front().queue_id += static_cast<std::int32_t>(marker_);
    return all;
  }

 private:
  std::int64_t marker_;
};

#if FIXTURE_KIND == FIXTURE_BAD_DEFAULT
constexpr v1::ConfigField kSchema[] = {
    {.key = "marker", .type = v1::ValueType::kInt, .default_value = "many", .description = "bad default"},
};
#else
constexpr v1::ConfigField kSchema[] = {
    {.key = "marker", .type = v1::ValueType::kInt, .default_value = "0", .description = "added to the first queue id",
     .min = -10, .max = 1000},
};
#endif
constexpr const char* kAliases[] = {FIXTURE_ALIAS, nullptr};

}  // namespace

#if FIXTURE_KIND == FIXTURE_NO_SYMBOL
extern "C" __attribute__((visibility("default"))) int not_a_plugin() { return 1; }
#elif FIXTURE_KIND == FIXTURE_WRONG_ABI || FIXTURE_KIND == FIXTURE_WRONG_SIZE || FIXTURE_KIND == FIXTURE_BAD_CATEGORY
extern "C" __attribute__((visibility("default"))) const v1::Manifest* mqkit_plugin_v1_entry() noexcept {
  static v1::Manifest manifest = v1::detail::make_manifest<v1::QueueAllocator, TakeAll>(
      FIXTURE_NAME, kAliases, "0.0.1", "broken fixture", std::span<const v1::ConfigField>(kSchema));
#if FIXTURE_KIND == FIXTURE_WRONG_ABI
  manifest.abi_version = 2;
#elif FIXTURE_KIND == FIXTURE_WRONG_SIZE
  manifest.manifest_size = 8;
#else
  manifest.category = static_cast<v1::Category>(99);
#endif
  return &manifest;
}
#else
MQKIT_PLUGIN(QueueAllocator, TakeAll, FIXTURE_NAME, kAliases, "0.0.1", "loader test fixture", kSchema)
#endif
