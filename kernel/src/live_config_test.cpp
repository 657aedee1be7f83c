#include "mqkit/kernel/live_config.hpp"

#include <gtest/gtest.h>

namespace mqkit::kernel {
namespace {

using plugin::v1::ConfigField;
using plugin::v1::StatusCode;
using plugin::v1::ValueType;

constexpr ConfigField kFields[] = {
    {.key = "listen_port", .type = ValueType::kInt, .default_value = "9876", .description = "port"},
    {.key = "broker_ip1", .type = ValueType::kString, .default_value = "", .description = "address"},
    {.key = "scan_interval", .type = ValueType::kDuration, .default_value = "10s", .description = "scan",
     .min = 10, .needs_restart = false},
    {.key = "order_message_enable", .type = ValueType::kBool, .default_value = "false", .description = "order",
     .needs_restart = false},
};
constexpr plugin::v1::ConfigSchema kSchema{kFields, std::size(kFields)};

TEST(LiveConfigTest, PropertiesUseRocketMqsSpellingAndPlainNumbers) {
  plugin::v1::ConfigValues values;
  values.set("listen_port", std::int64_t{9876});
  values.set("broker_ip1", std::string("10.0.0.1"));
  values.set("scan_interval", std::int64_t{10'000});
  values.set("order_message_enable", true);
  EXPECT_EQ(camel_case_properties(values),
            (std::map<std::string, std::string>{{"brokerIP1", "10.0.0.1"},
                                                {"listenPort", "9876"},
                                                {"orderMessageEnable", "true"},
                                                {"scanInterval", "10000"}}));
}

TEST(LiveConfigTest, OnlyLiveKeysWithGoodValuesPass) {
  auto changes = checked_live_updates(kSchema, {{"scanInterval", "5s"}, {"order_message_enable", "true"}}, "name server",
                                      "namesrv.toml");
  ASSERT_TRUE(changes.is_ok()) << changes.status().to_string();
  ASSERT_EQ(changes->size(), 2u);
  EXPECT_EQ(std::get<bool>(changes->at(0).second), true);  // map order: order_message_enable first
  EXPECT_EQ(changes->at(1).first, "scan_interval");
  EXPECT_EQ(std::get<std::int64_t>(changes->at(1).second), 5'000);

  const auto restart = checked_live_updates(kSchema, {{"listenPort", "1"}}, "name server", "namesrv.toml");
  EXPECT_EQ(restart.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(restart.status().message(), "listenPort cannot change while the name server runs: set it in namesrv.toml and restart");
  EXPECT_EQ(checked_live_updates(kSchema, {{"nope", "1"}}, "broker", "broker.toml").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(checked_live_updates(kSchema, {{"scanInterval", "1ms"}}, "broker", "broker.toml").status().code(),
            StatusCode::kInvalidArgument);  // below its minimum
  EXPECT_EQ(checked_live_updates(kSchema, {{"scanInterval", "soon"}}, "broker", "broker.toml").status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mqkit::kernel
