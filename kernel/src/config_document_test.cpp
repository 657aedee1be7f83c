#include "mqkit/kernel/config_document.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace mqkit::kernel {
namespace {

using plugin::v1::ConfigField;
using plugin::v1::ValueType;

constexpr const char* kFlushModes[] = {"ASYNC_FLUSH", "SYNC_FLUSH", nullptr};
constexpr ConfigField kFields[] = {
    {.key = "broker_name", .type = ValueType::kString, .default_value = "broker-a", .description = "name"},
    {.key = "listen_port", .type = ValueType::kInt, .default_value = "10911", .description = "port", .min = 0,
     .max = 65535},
    {.key = "flush_disk_type", .type = ValueType::kString, .default_value = "ASYNC_FLUSH", .description = "mode",
     .allowed = kFlushModes},
    {.key = "mapped_file_size", .type = ValueType::kSize, .default_value = "1GiB", .description = "size",
     .min = 4096},
    {.key = "namesrv_addrs", .type = ValueType::kStringList, .default_value = "127.0.0.1:9876",
     .description = "name servers"},
};
constexpr plugin::v1::ConfigSchema kSchema{kFields, std::size(kFields)};

ConfigDocument parse(std::string_view text) {
  auto doc = ConfigDocument::parse(text, "broker.toml");
  EXPECT_TRUE(doc.is_ok()) << doc.status().to_string();
  return std::move(doc).value();
}

TEST(ConfigDocumentTest, DefaultsFillMissingKeys) {
  auto doc = parse("[broker]\nbroker_name = \"b1\"\n");
  auto values = doc.section("broker", kSchema);
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(values->get_string("broker_name"), "b1");
  EXPECT_EQ(values->get_int("listen_port"), 10911);
  EXPECT_EQ(values->get_size("mapped_file_size"), 1LL << 30);
  EXPECT_EQ(values->get_list("namesrv_addrs"), std::vector<std::string>{"127.0.0.1:9876"});
  EXPECT_TRUE(doc.check_all_consumed().is_ok());
}

TEST(ConfigDocumentTest, UnknownKeyNamesFileLineColumnAndSuggests) {
  auto doc = parse("[broker]\n\n  flush_disk_typ = \"SYNC_FLUSH\"\n");
  EXPECT_EQ(doc.section("broker", kSchema).status().message(),
            "broker.toml:3:3: [broker] unknown key 'flush_disk_typ' (did you mean 'flush_disk_type'?)");
}

TEST(ConfigDocumentTest, WrongTypeIsAnError) {
  auto doc = parse("[broker]\nlisten_port = \"10911\"\n");
  EXPECT_EQ(doc.section("broker", kSchema).status().message(),
            "broker.toml:2:15: [broker] listen_port: expected an integer, found a string");
}

TEST(ConfigDocumentTest, OutOfRangeIsAnError) {
  auto doc = parse("[broker]\nlisten_port = 70000\n");
  EXPECT_EQ(doc.section("broker", kSchema).status().message(),
            "broker.toml:2:1: [broker] listen_port: value 70000 is out of range (expected between 0 and 65535)");
}

TEST(ConfigDocumentTest, DisallowedStringAndBadSizeAreErrors) {
  EXPECT_EQ(parse("[broker]\nflush_disk_type = \"LAZY\"\n").section("broker", kSchema).status().message(),
            "broker.toml:2:1: [broker] flush_disk_type: \"LAZY\" is not one of ASYNC_FLUSH, SYNC_FLUSH");
  EXPECT_EQ(parse("[broker]\nmapped_file_size = \"2 bananas\"\n").section("broker", kSchema).status().message(),
            "broker.toml:2:20: [broker] mapped_file_size: unknown unit \"bananas\" in size \"2 bananas\" "
            "(units: b, k, kb, kib, m, mb, mib, g, gb, gib, t, tb, tib)");
  EXPECT_EQ(parse("[broker]\nmapped_file_size = 100\n").section("broker", kSchema).status().message(),
            "broker.toml:2:1: [broker] mapped_file_size: value 100 is out of range (expected at least 4096)");
}

TEST(ConfigDocumentTest, RocketMqCamelCaseKeysAreAccepted) {
  auto doc = parse("[broker]\nbrokerName = \"b2\"\nflushDiskType = \"SYNC_FLUSH\"\n");
  auto values = doc.section("broker", kSchema);
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(values->get_string("broker_name"), "b2");
  EXPECT_EQ(values->get_string("flush_disk_type"), "SYNC_FLUSH");
  auto twice = parse("[broker]\nbrokerName = \"b2\"\nbroker_name = \"b3\"\n");
  EXPECT_EQ(twice.section("broker", kSchema).status().message(),
            "broker.toml:3:1: [broker] key 'broker_name' is given twice (as 'brokerName' and 'broker_name')");
}

TEST(ConfigDocumentTest, OverridesWinAndAreValidated) {
  auto doc = parse("[broker]\nlisten_port = 10911\n");
  ASSERT_TRUE(doc.add_override("broker.listen_port=20911").is_ok());
  ASSERT_TRUE(doc.add_override("broker.namesrvAddrs=a:1,b:2").is_ok());
  auto values = doc.section("broker", kSchema);
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(values->get_int("listen_port"), 20911);
  EXPECT_EQ(values->get_list("namesrv_addrs"), (std::vector<std::string>{"a:1", "b:2"}));

  auto bad = parse("");
  ASSERT_TRUE(bad.add_override("broker.listen_port=many").is_ok());
  EXPECT_EQ(bad.section("broker", kSchema).status().message(),
            "--set broker.listen_port: [broker] listen_port: expected an integer, got \"many\"");
  EXPECT_EQ(bad.add_override("listen_port=1").message(),
            "--set listen_port=1: expected section.key=value (e.g. store.flush_disk_type=SYNC_FLUSH)");
}

TEST(ConfigDocumentTest, UnknownSectionsAndUnusedOverridesAreErrors) {
  auto doc = parse("[broker]\n[brokr]\nx = 1\n");
  ASSERT_TRUE(doc.section("broker", kSchema).is_ok());
  EXPECT_EQ(doc.check_all_consumed().message(), "broker.toml:2:2: unknown section [brokr]");

  auto top_level = parse("listen_port = 1\n");
  EXPECT_EQ(top_level.check_all_consumed().message(),
            "broker.toml:1:1: key 'listen_port' must be inside a section such as [kernel]");

  auto unused = parse("");
  ASSERT_TRUE(unused.add_override("strore.x=1").is_ok());
  EXPECT_EQ(unused.check_all_consumed().message(), "--set strore.x=1: unknown section [strore]");
}

TEST(ConfigDocumentTest, PluginSlots) {
  auto doc = parse("[consumer.allocator]\nplugin = \"averagely\"\nlisten_port = 1\n");
  auto name = doc.plugin_name("consumer.allocator");
  ASSERT_TRUE(name.is_ok());
  EXPECT_EQ(**name, "averagely");
  auto values = doc.plugin_section("consumer.allocator", kSchema);
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(values->get_int("listen_port"), 1);
  EXPECT_FALSE(doc.plugin_name("producer.selector")->has_value());
  EXPECT_EQ(parse("[store]\nx = 1\n").plugin_name("store").status().message(),
            "broker.toml: [store] needs a 'plugin' key naming the plugin to load");
  EXPECT_TRUE(doc.check_all_consumed().is_ok());
}

TEST(ConfigDocumentTest, SyntaxErrorsAndMissingFiles) {
  auto bad = ConfigDocument::parse("[broker\nx = 1\n", "bad.toml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().message().rfind("bad.toml:1:", 0), 0u) << bad.status().message();
  auto missing = ConfigDocument::load_file("/nonexistent/broker.toml");
  EXPECT_EQ(missing.status().message(), "cannot open config file /nonexistent/broker.toml: No such file or directory");
}

TEST(ConfigDocumentTest, RenderShowsDescriptionsAndValues) {
  auto doc = parse("");
  auto values = doc.section("broker", kSchema);
  ASSERT_TRUE(values.is_ok());
  const std::string text = ConfigDocument::render("broker", kSchema, *values);
  EXPECT_NE(text.find("[broker]\n# name\nbroker_name = \"broker-a\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("namesrv_addrs = [\"127.0.0.1:9876\"]"), std::string::npos) << text;
  // What render prints parses back to the same values.
  auto round_trip = parse(text);
  auto again = round_trip.section("broker", kSchema);
  ASSERT_TRUE(again.is_ok()) << again.status().to_string();
  EXPECT_EQ(again->all(), values->all());
}

TEST(ConfigDocumentTest, TopLevelKeysValidateAsTheEmptySection) {
  constexpr std::string_view kSkip[] = {"accounts"};
  auto doc = parse("brokerName = \"b1\"\n[[accounts]]\nlisten_port = 1\n");
  auto values = doc.section("", kSchema, kSkip);
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(values->get_string("broker_name"), "b1");
  EXPECT_EQ(parse("listen_prt = 1\n").section("", kSchema).status().message(),
            "broker.toml:1:1: unknown key 'listen_prt' (did you mean 'listen_port'?)");
}

TEST(ConfigDocumentTest, ArraysOfTablesValidateEachTable) {
  auto doc = parse("[[accounts]]\nbroker_name = \"b1\"\n\n[[accounts]]\nlistenPort = 7\n");
  auto entries = doc.table_array("accounts", kSchema);
  ASSERT_TRUE(entries.is_ok()) << entries.status().to_string();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].get_string("broker_name"), "b1");
  EXPECT_EQ((*entries)[0].get_int("listen_port"), 10911);
  EXPECT_EQ((*entries)[1].get_int("listen_port"), 7);
  EXPECT_EQ(doc.location_of("accounts", 1, "listen_port"), "broker.toml:5:1");
  EXPECT_EQ(doc.location_of("accounts", 1, "broker_name"), "broker.toml:4:1");  // the table itself
  EXPECT_TRUE(parse("").table_array("accounts", kSchema)->empty());

  EXPECT_EQ(parse("[[accounts]]\n[[accounts]]\nlisten_port = 70000\n").table_array("accounts", kSchema).status().message(),
            "broker.toml:3:1: [[accounts]] #2 listen_port: value 70000 is out of range (expected between 0 and 65535)");
  EXPECT_EQ(parse("[[accounts]]\nflush = 1\n").table_array("accounts", kSchema).status().message(),
            "broker.toml:2:1: [[accounts]] #1 unknown key 'flush'");
  EXPECT_EQ(parse("accounts = 3\n").table_array("accounts", kSchema).status().message(),
            "broker.toml:1:12: accounts must be an array of tables ([[accounts]]), found an integer");
  EXPECT_EQ(parse("accounts = [3]\n").table_array("accounts", kSchema).status().message(),
            "broker.toml:1:13: [[accounts]] #1 must be a table, found an integer");
}

}  // namespace
}  // namespace mqkit::kernel
