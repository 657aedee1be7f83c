#include "mqkit/kernel/plugin_registry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/kernel/kernel_host.hpp"
#include "mqkit/plugin/v1/allocator.hpp"

namespace mqkit::kernel {
namespace {

using ::testing::HasSubstr;
using plugin::v1::Category;
using plugin::v1::QueueAllocator;

const std::string kFixtures = MQKIT_FIXTURE_PLUGIN_DIR;

ConfigValues defaults_of(const LoadedPlugin& plugin) { return default_config(plugin.manifest->schema()).value(); }

TEST(PluginRegistryTest, LoadsByNameAndAlias) {
  PluginRegistry registry({kFixtures + "/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  auto by_name = registry.find(Category::kAllocator, "take_all");
  ASSERT_TRUE(by_name.is_ok()) << by_name.status().to_string();
  auto by_alias = registry.find(Category::kAllocator, "TakeAllAllocator");
  ASSERT_TRUE(by_alias.is_ok());
  EXPECT_EQ(*by_name, *by_alias);
  EXPECT_EQ((*by_name)->path.filename(), "mqkit-allocator-take_all.so");
}

TEST(PluginRegistryTest, CreatedObjectWorksAndOutlivesTheRegistry) {
  std::shared_ptr<QueueAllocator> allocator;
  {
    PluginRegistry registry({kFixtures + "/good"});
    ASSERT_TRUE(registry.discover().is_ok());
    KernelHost host(registry);
    auto plugin = registry.find(Category::kAllocator, "take_all");
    ASSERT_TRUE(plugin.is_ok());
    auto doc = ConfigDocument::parse("[slot]\nmarker = 5\n", "t.toml").value();
    auto values = doc.plugin_section("slot", (*plugin)->manifest->schema());
    ASSERT_TRUE(values.is_ok()) << values.status().to_string();
    auto object = registry.create(**plugin, *values, host);
    ASSERT_TRUE(object.is_ok()) << object.status().to_string();
    allocator = std::static_pointer_cast<QueueAllocator>(*object);
  }
  // The registry is gone; the object's library must still be loaded.
  const std::vector<plugin::v1::MessageQueue> queues{{"T", "b", 0}, {"T", "b", 1}};
  const std::vector<std::string> ids{"c1"};
  auto result = allocator->allocate({"g", "c1", queues, ids});
  ASSERT_TRUE(result.is_ok());
  ASSERT_EQ(result->size(), 2u);
  EXPECT_EQ((*result)[0].queue_id, 5);
}

TEST(PluginRegistryTest, CreateFailuresAndThrowingConstructorsBecomeErrors) {
  PluginRegistry registry({kFixtures + "/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  KernelHost host(registry);
  auto thrower = registry.create(Category::kAllocator, "throwing",
                                 defaults_of(**registry.find(Category::kAllocator, "throwing")), host);
  EXPECT_EQ(thrower.status().to_string(),
            "Internal: creating allocator 'throwing': plugin constructor threw: fixture constructor failure");
  ConfigValues negative;
  negative.set("marker", std::int64_t{-3});
  auto refused = registry.create(Category::kAllocator, "take_all", negative, host);
  EXPECT_EQ(refused.status().message(), "creating allocator 'take_all': marker must not be negative");
}

TEST(PluginRegistryTest, MissingFileNamesThePath) {
  PluginRegistry registry({});
  const Status s = registry.load_file("/nonexistent/mqkit-allocator-x.so");
  EXPECT_EQ(s.code(), plugin::v1::StatusCode::kIoError);
  EXPECT_THAT(s.message(), HasSubstr("cannot load /nonexistent/mqkit-allocator-x.so: "));
  EXPECT_THAT(s.message(), HasSubstr("No such file or directory"));
}

TEST(PluginRegistryTest, BrokenLibrariesAreRefusedWithReasons) {
  PluginRegistry registry({kFixtures + "/broken"});
  ASSERT_TRUE(registry.discover().is_ok());
  EXPECT_TRUE(registry.plugins().empty());
  const std::string dir = kFixtures + "/broken/";
  EXPECT_THAT(registry.refusals(),
              ::testing::UnorderedElementsAre(
                  dir + "mqkit-allocator-bad_category.so: unknown plugin category 99",
                  dir + "mqkit-allocator-bad_default.so (bad_default): schema default is invalid: marker: expected "
                        "an integer, got \"many\"",
                  dir + "mqkit-allocator-no_symbol.so is not an mqkit plugin: it does not export "
                        "mqkit_plugin_v1_entry",
                  dir + "mqkit-allocator-wrong_abi.so: plugin ABI version 2, this mqkit supports ABI version 1",
                  HasSubstr("mqkit-allocator-wrong_size.so: manifest size 8, expected ")));
  // Asking for a refused plugin explains what was searched and what was refused.
  const Status s = registry.find(Category::kAllocator, "wrong_abi").status();
  EXPECT_EQ(s.code(), plugin::v1::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no allocator plugin named 'wrong_abi'; searched: " + kFixtures +
                                     "/broken (0 plugins)"));
  EXPECT_THAT(s.message(), HasSubstr("refused " + dir + "mqkit-allocator-wrong_abi.so: plugin ABI version 2"));
}

TEST(PluginRegistryTest, NotFoundListsEveryPathTried) {
  PluginRegistry registry({"/nonexistent/plugins", kFixtures + "/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  EXPECT_EQ(registry.find(Category::kAllocator, "nope").status().message(),
            "no allocator plugin named 'nope'; searched: /nonexistent/plugins (no such directory), " + kFixtures +
                "/good (2 plugins)");
}

TEST(PluginRegistryTest, WrongCategoryIsNamed) {
  PluginRegistry registry({kFixtures + "/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  EXPECT_EQ(registry.find(Category::kSelector, "take_all").status().message(),
            "plugin 'take_all' (" + kFixtures + "/good/mqkit-allocator-take_all.so) is a allocator plugin, not a "
            "selector plugin");
}

TEST(PluginRegistryTest, DuplicateNamesAreRefused) {
  PluginRegistry registry({kFixtures + "/good", kFixtures + "/duplicate"});
  ASSERT_TRUE(registry.discover().is_ok());
  ASSERT_EQ(registry.refusals().size(), 1u);
  EXPECT_EQ(registry.refusals()[0], "duplicate allocator name 'TakeAllAllocator' in " + kFixtures +
                                        "/duplicate/mqkit-allocator-take_all_again.so: already provided by " +
                                        kFixtures + "/good/mqkit-allocator-take_all.so");
  EXPECT_EQ(registry.find(Category::kAllocator, "TakeAllAllocator").status().message(),
            "allocator 'TakeAllAllocator' is claimed by both " + kFixtures + "/good/mqkit-allocator-take_all.so and " +
                kFixtures + "/duplicate/mqkit-allocator-take_all_again.so; remove one of them");
}

TEST(PluginRegistryTest, SameFileThroughTwoDirectoriesLoadsOnce) {
  PluginRegistry registry({kFixtures + "/good", kFixtures + "/../test-plugins/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  EXPECT_TRUE(registry.refusals().empty());
  EXPECT_EQ(registry.plugins().size(), 2u);
}

TEST(PluginRegistryTest, DescribeListsManifests) {
  PluginRegistry registry({kFixtures + "/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  const std::string text = registry.describe();
  EXPECT_THAT(text, HasSubstr("allocator take_all 0.0.1  (ABI v1)\n  loader test fixture\n"));
  EXPECT_THAT(text, HasSubstr("  aliases: TakeAllAllocator\n"));
  EXPECT_THAT(text, HasSubstr("  config marker (integer, default 0, min -10, max 1000): added to the first queue id"));
}

TEST(PluginRegistryTest, HostCreatesNestedPluginsWithDefaults) {
  PluginRegistry registry({kFixtures + "/good"});
  ASSERT_TRUE(registry.discover().is_ok());
  KernelHost host(registry);
  auto nested = plugin::v1::create_plugin_as<QueueAllocator>(host, Category::kAllocator, "TakeAllAllocator");
  ASSERT_TRUE(nested.is_ok()) << nested.status().to_string();
  EXPECT_FALSE(host.create_plugin(Category::kAllocator, "nope").is_ok());
}

}  // namespace
}  // namespace mqkit::kernel
