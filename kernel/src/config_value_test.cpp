#include "mqkit/kernel/config_value.hpp"

#include <gtest/gtest.h>

namespace mqkit::kernel {
namespace {

using plugin::v1::ConfigField;

TEST(ConfigValueTest, Sizes) {
  EXPECT_EQ(*parse_size("4096"), 4096);
  EXPECT_EQ(*parse_size("64KiB"), 64 * 1024);
  EXPECT_EQ(*parse_size("1GiB"), 1LL << 30);
  EXPECT_EQ(*parse_size("1g"), 1LL << 30);
  EXPECT_EQ(*parse_size("512 MB"), 512LL << 20);
  EXPECT_EQ(parse_size("12 parsecs").status().message(),
            "unknown unit \"parsecs\" in size \"12 parsecs\" (units: b, k, kb, kib, m, mb, mib, g, gb, gib, t, tb, tib)");
  EXPECT_FALSE(parse_size("GiB").is_ok());
  EXPECT_FALSE(parse_size("99999999999T").is_ok());
}

TEST(ConfigValueTest, Durations) {
  EXPECT_EQ(*parse_duration_ms("1500"), 1500);
  EXPECT_EQ(*parse_duration_ms("500ms"), 500);
  EXPECT_EQ(*parse_duration_ms("30s"), 30000);
  EXPECT_EQ(*parse_duration_ms("2m"), 120000);
  EXPECT_EQ(*parse_duration_ms("72h"), 72LL * 3600 * 1000);
  EXPECT_FALSE(parse_duration_ms("soon").is_ok());
}

TEST(ConfigValueTest, ParseTextByType) {
  const ConfigField b{.key = "b", .type = ValueType::kBool, .default_value = "true", .description = ""};
  EXPECT_EQ(std::get<bool>(*parse_value_text(b, "false")), false);
  EXPECT_EQ(parse_value_text(b, "yes").status().message(), "b: expected true or false, got \"yes\"");
  const ConfigField i{.key = "i", .type = ValueType::kInt, .default_value = "1", .description = ""};
  EXPECT_EQ(std::get<std::int64_t>(*parse_value_text(i, "-42")), -42);
  EXPECT_FALSE(parse_value_text(i, "4.5").is_ok());
  const ConfigField l{.key = "l", .type = ValueType::kStringList, .default_value = "", .description = ""};
  EXPECT_EQ(std::get<std::vector<std::string>>(*parse_value_text(l, "a, b,c")),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(std::get<std::vector<std::string>>(*parse_value_text(l, "")).empty());
  const ConfigField d{.key = "d", .type = ValueType::kDouble, .default_value = "0.75", .description = ""};
  EXPECT_DOUBLE_EQ(std::get<double>(*parse_value_text(d, "0.85")), 0.85);
}

TEST(ConfigValueTest, BoundsAndAllowedValues) {
  const ConfigField port{.key = "listen_port", .type = ValueType::kInt, .default_value = "10911",
                         .description = "", .min = 1, .max = 65535};
  EXPECT_TRUE(check_value(port, std::int64_t{10911}).is_ok());
  EXPECT_EQ(check_value(port, std::int64_t{70000}).message(),
            "listen_port: value 70000 is out of range (expected between 1 and 65535)");
  static constexpr const char* kModes[] = {"ASYNC_FLUSH", "SYNC_FLUSH", nullptr};
  const ConfigField mode{.key = "flush_disk_type", .type = ValueType::kString, .default_value = "ASYNC_FLUSH",
                         .description = "", .allowed = kModes};
  EXPECT_EQ(check_value(mode, std::string("LAZY")).message(),
            "flush_disk_type: \"LAZY\" is not one of ASYNC_FLUSH, SYNC_FLUSH");
}

TEST(ConfigValueTest, SchemaChecks) {
  const ConfigField dup[] = {{.key = "a", .type = ValueType::kInt, .default_value = "1", .description = ""},
                             {.key = "a", .type = ValueType::kInt, .default_value = "1", .description = ""}};
  EXPECT_EQ(check_schema({dup, 2}).message(), "schema declares key 'a' twice");
  const ConfigField bad_default[] = {
      {.key = "n", .type = ValueType::kInt, .default_value = "5", .description = "", .min = 10}};
  EXPECT_EQ(check_schema({bad_default, 1}).message(),
            "schema default is invalid: n: value 5 is out of range (expected at least 10)");
  const ConfigField camel[] = {{.key = "listenPort", .type = ValueType::kInt, .default_value = "1", .description = ""}};
  EXPECT_EQ(check_schema({camel, 1}).message(), "schema key 'listenPort' is not snake_case");
}

TEST(ConfigValueTest, SnakeCase) {
  EXPECT_EQ(to_snake_case("flushDiskType"), "flush_disk_type");
  EXPECT_EQ(to_snake_case("brokerIP1"), "broker_ip1");
  EXPECT_EQ(to_snake_case("mappedFileSizeCommitLog"), "mapped_file_size_commit_log");
  EXPECT_EQ(to_snake_case("already_snake"), "already_snake");
  EXPECT_EQ(to_snake_case("HAListenPort"), "ha_listen_port");
  EXPECT_EQ(to_camel_case("flush_disk_type"), "flushDiskType");
  EXPECT_EQ(to_camel_case("broker_ip1"), "brokerIP1");
  EXPECT_EQ(to_camel_case("ha_listen_port"), "haListenPort");
  EXPECT_EQ(to_camel_case("already"), "already");
  EXPECT_EQ(to_camel_case("ipv6_only"), "ipv6Only");
  for (const char* key : {"mapped_file_size_commit_log", "broker_ip1", "ha_listen_port", "namesrv_addr"}) {
    EXPECT_EQ(to_snake_case(to_camel_case(key)), key);
  }
}

}  // namespace
}  // namespace mqkit::kernel
