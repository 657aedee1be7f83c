#include "mqkit/kernel/bootstrap.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace mqkit::kernel {
namespace {

using ::testing::HasSubstr;

std::filesystem::path write_config(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path;
}

TEST(BootstrapTest, PluginSlotsAreValidatedAgainstThePluginSchema) {
  const auto path = write_config("boot1.toml", "[kernel]\nplugin_dirs = [\"" MQKIT_FIXTURE_PLUGIN_DIR "/good\"]\n"
                                               "[consumer.allocator]\nplugin = \"TakeAllAllocator\"\nmarker = 7\n");
  auto boot = Bootstrap::create({.config_file = path});
  ASSERT_TRUE(boot.is_ok()) << boot.status().to_string();
  auto allocator = (*boot)->make_plugin<plugin::v1::QueueAllocator>("consumer.allocator", "averagely");
  ASSERT_TRUE(allocator.is_ok()) << allocator.status().to_string();
  EXPECT_TRUE((*boot)->finish_validation().is_ok());
  EXPECT_THAT((*boot)->effective_config(), HasSubstr("[consumer.allocator]\nplugin = \"take_all\"\n"));
  EXPECT_THAT((*boot)->effective_config(), HasSubstr("marker = 7\n"));
}

TEST(BootstrapTest, UnknownPluginKeyAndUnknownPluginAreErrors) {
  const auto path = write_config("boot2.toml", "[kernel]\nplugin_dirs = [\"" MQKIT_FIXTURE_PLUGIN_DIR "/good\"]\n"
                                               "[consumer.allocator]\nplugin = \"take_all\"\nmarkr = 7\n");
  auto boot = Bootstrap::create({.config_file = path});
  ASSERT_TRUE(boot.is_ok());
  EXPECT_EQ((*boot)->make_plugin<plugin::v1::QueueAllocator>("consumer.allocator", "x").status().message(),
            path.string() + ":5:1: [consumer.allocator] unknown key 'markr' (did you mean 'marker'?)");

  auto boot2 = Bootstrap::create({.config_file = path, .overrides = {"consumer.allocator.plugin=Nope"}});
  ASSERT_TRUE(boot2.is_ok());
  EXPECT_THAT((*boot2)->make_plugin<plugin::v1::QueueAllocator>("consumer.allocator", "x").status().message(),
              HasSubstr("[consumer.allocator]: no allocator plugin named 'Nope'; searched: " MQKIT_FIXTURE_PLUGIN_DIR
                        "/good (2 plugins)"));
}

TEST(BootstrapTest, RelativePluginDirsResolveAgainstTheConfigFile) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "bootrel";
  std::filesystem::create_directories(dir);
  const auto rel = std::filesystem::relative(MQKIT_FIXTURE_PLUGIN_DIR "/good", dir);
  const auto path = dir / "b.toml";
  std::ofstream(path) << "[kernel]\nplugin_dirs = [\"" << rel.string() << "\"]\n";
  auto boot = Bootstrap::create({.config_file = path});
  ASSERT_TRUE(boot.is_ok());
  EXPECT_TRUE((*boot)->registry().find(plugin::v1::Category::kAllocator, "take_all").is_ok());
}

}  // namespace
}  // namespace mqkit::kernel
