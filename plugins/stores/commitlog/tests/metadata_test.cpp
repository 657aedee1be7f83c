#include "metadata.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "options.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

TEST(MetadataTest, SaveKeepsThePreviousCopyAsBak) {
  TempDir dir;
  CapturingHost host;
  MetadataStore metadata(*posix_env(), Logger(host), dir / "config");
  EXPECT_FALSE(metadata.load("topics.json").value().has_value());
  ASSERT_TRUE(metadata.save("topics.json", R"({"v":1})").is_ok());
  ASSERT_TRUE(metadata.save("topics.json", R"({"v":2})").is_ok());
  EXPECT_EQ(text(read_file(dir / "config/topics.json")), R"({"v":2})");
  EXPECT_EQ(text(read_file(dir / "config/topics.json.bak")), R"({"v":1})");
  EXPECT_FALSE(std::filesystem::exists(dir / "config/topics.json.tmp"));
  EXPECT_EQ(metadata.save("../escape", "x").code(), v1::StatusCode::kInvalidArgument);
  EXPECT_EQ(metadata.load("a/b").status().code(), v1::StatusCode::kInvalidArgument);
}

TEST(MetadataTest, LoadFallsBackToBakWhenTheFileIsCutOffOrGone) {
  TempDir dir;
  CapturingHost host;
  MetadataStore metadata(*posix_env(), Logger(host), dir / "config");
  ASSERT_TRUE(metadata.save("consumerOffset.json", R"({"offsetTable":{"T@g":{0:12}}})").is_ok());
  ASSERT_TRUE(metadata.save("consumerOffset.json", R"({"offsetTable":{"T@g":{0:15}}})").is_ok());
  std::ofstream(dir / "config/consumerOffset.json", std::ios::trunc) << R"({"offsetTable":{"T@g":{0:)";
  EXPECT_EQ(metadata.load("consumerOffset.json").value(), std::optional<std::string>(R"({"offsetTable":{"T@g":{0:12}}})"));
  EXPECT_TRUE(host.logged({"consumerOffset.json", "looks truncated", ".bak"}));
  std::filesystem::remove(dir / "config/consumerOffset.json");
  EXPECT_EQ(metadata.load("consumerOffset.json").value(), std::optional<std::string>(R"({"offsetTable":{"T@g":{0:12}}})"));
  std::filesystem::remove(dir / "config/consumerOffset.json.bak");
  EXPECT_FALSE(metadata.load("consumerOffset.json").value().has_value());
}

TEST(MetadataTest, WholenessCheckToleratesFastjsonAndPlainText) {
  EXPECT_TRUE(looks_whole("a.json", R"({"t":{0:1,"s":"}{"}})"));
  EXPECT_TRUE(looks_whole("a.json", "  [1, 2]\n"));
  EXPECT_TRUE(looks_whole("a.json", ""));
  EXPECT_FALSE(looks_whole("a.json", R"({"t":{0:1})"));
  EXPECT_FALSE(looks_whole("a.json", R"({"s":"unterminated})"));
  EXPECT_TRUE(looks_whole("timercheck", "not json at all {"));
}

TEST(OptionsTest, DeleteWhenAndHome) {
  EXPECT_EQ(parse_delete_when("04").value(), (std::vector<int>{4}));
  EXPECT_EQ(parse_delete_when("04;16 ; 23").value(), (std::vector<int>{4, 16, 23}));
  EXPECT_FALSE(parse_delete_when("24").is_ok());
  EXPECT_FALSE(parse_delete_when("4am").is_ok());
  ::setenv("HOME", "/home/mq", 1);
  EXPECT_EQ(expand_home("~/store"), "/home/mq/store");
  EXPECT_EQ(expand_home("~"), "/home/mq");
  EXPECT_EQ(expand_home("/var/store"), "/var/store");
  EXPECT_EQ(expand_home("~other/store"), "~other/store");
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
