#include "mqkit/plugin/v1/manifest.hpp"

namespace mqkit::plugin::v1 {

namespace {
struct CategoryName {
  Category category;
  std::string_view name;
};
constexpr CategoryName kCategoryNames[] = {
    {Category::kSelector, "selector"},
    {Category::kAllocator, "allocator"},
    {Category::kFaultStrategy, "fault_strategy"},
    {Category::kStore, "store"},
    {Category::kTransport, "transport"},
};
}  // namespace

std::string_view to_string(Category category) noexcept {
  for (const auto& entry : kCategoryNames) {
    if (entry.category == category) return entry.name;
  }
  return "unknown";
}

bool parse_category(std::string_view text, Category* out) noexcept {
  for (const auto& entry : kCategoryNames) {
    if (entry.name == text) {
      *out = entry.category;
      return true;
    }
  }
  return false;
}

}  // namespace mqkit::plugin::v1
