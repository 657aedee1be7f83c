// Loads the plugin that tests/out-of-tree-plugin builds against the exported plugin-api only,
// exactly as mqbroker would find a user's plugin through MQKIT_PLUGIN_PATH.
#include <gtest/gtest.h>

#include <cstdlib>

#include "mqkit/kernel/kernel_host.hpp"
#include "mqkit/kernel/plugin_registry.hpp"
#include "mqkit/plugin/v1/allocator.hpp"

namespace mqkit {
namespace {

TEST(OutOfTreePluginTest, LoadsThroughThePluginPathAndRuns) {
  ::setenv("MQKIT_PLUGIN_PATH", MQKIT_OUT_OF_TREE_PLUGIN_DIR, 1);
  kernel::PluginRegistry registry(kernel::PluginRegistry::default_search_path({}, {}));
  ASSERT_TRUE(registry.discover().is_ok());
  kernel::KernelHost host(registry);
  auto object = registry.create(plugin::v1::Category::kAllocator, "com.example.ReverseCircleAllocator",
                                plugin::v1::ConfigValues{}, host);
  ASSERT_TRUE(object.is_ok()) << object.status().to_string();
  auto allocator = std::static_pointer_cast<plugin::v1::QueueAllocator>(*object);
  const std::vector<plugin::v1::MessageQueue> queues{{"T", "b", 0}, {"T", "b", 1}, {"T", "b", 2}};
  const std::vector<std::string> ids{"c1", "c2"};
  auto mine = allocator->allocate({"g", "c2", queues, ids});
  ASSERT_TRUE(mine.is_ok());
  ASSERT_EQ(mine->size(), 2u);
  EXPECT_EQ((*mine)[0].queue_id, 0);
  EXPECT_EQ((*mine)[1].queue_id, 2);
}

}  // namespace
}  // namespace mqkit
