// An example third-party allocator: deals queues round the circle starting from the last
// consumer. Only plugin-api is used.
#include <mqkit/plugin/v1/plugin.hpp>

#include <algorithm>

namespace v1 = mqkit::plugin::v1;

namespace {

class ReverseCircle final : public v1::QueueAllocator {
 public:
  static v1::Result<std::unique_ptr<ReverseCircle>> create(const v1::ConfigValues&, v1::Host&) {
    return std::make_unique<ReverseCircle>();
  }

  v1::Result<std::vector<v1::MessageQueue>> allocate(const v1::AllocateContext& context) noexcept override {
    const auto& ids = context.all_client_ids;
    if (ids.empty()) return v1::Status::invalid_argument("no consumers");
    const auto it = std::find(ids.begin(), ids.end(), context.current_client_id);
    if (it == ids.end()) return std::vector<v1::MessageQueue>{};
    const auto index = ids.size() - 1 - static_cast<std::size_t>(it - ids.begin());
    std::vector<v1::MessageQueue> mine;
    for (std::size_t q = index; q < context.all_queues.size(); q += ids.size()) mine.push_back(context.all_queues[q]);
    return mine;
  }
};

constexpr const char* kAliases[] = {"com.example.ReverseCircleAllocator", nullptr};

}  // namespace

MQKIT_PLUGIN(QueueAllocator, ReverseCircle, "reverse_circle", kAliases, "0.1.0",
             "example out-of-tree allocator", std::span<const v1::ConfigField>())
