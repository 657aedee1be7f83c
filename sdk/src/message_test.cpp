#include "mqkit/client/message.hpp"

#include <gtest/gtest.h>

namespace mqkit::client {
namespace {

TEST(MessageTest, TypedPropertiesAreRocketMqProperties) {
  Message m("TopicA", "TagA", "k1 k2", "body");
  EXPECT_EQ(m.topic(), "TopicA");
  EXPECT_EQ(m.body(), "body");
  EXPECT_EQ(m.property("TAGS"), "TagA");
  EXPECT_EQ(m.property("KEYS"), "k1 k2");
  m.set_keys(std::vector<std::string>{"a", "", "b"});
  EXPECT_EQ(m.keys(), "a b");
  EXPECT_EQ(m.delay_time_level(), 0);
  m.set_delay_time_level(3);
  EXPECT_EQ(m.property("DELAY"), "3");
  EXPECT_EQ(m.delay_time_level(), 3);
  m.set_delay_time_level(0);
  EXPECT_FALSE(m.property("DELAY").has_value());
  EXPECT_TRUE(m.wait_store_msg_ok());
  m.set_wait_store_msg_ok(false);
  EXPECT_EQ(m.property("WAIT"), "false");
  EXPECT_FALSE(m.wait_store_msg_ok());
  m.set_tags("");
  EXPECT_FALSE(m.property("TAGS").has_value());
  EXPECT_TRUE(m.unique_id().empty());
}

TEST(MessageTest, DeliveryTimeIsOneOfRocketMq5sTimerProperties) {
  Message m("T", "body");
  EXPECT_FALSE(m.has_delivery_time());
  m.set_delay_time_sec(10);
  EXPECT_EQ(m.property("TIMER_DELAY_SEC"), "10");
  EXPECT_EQ(m.delay_time_sec(), 10);
  m.set_delay_time_ms(1500);  // replaces the delay in seconds
  EXPECT_FALSE(m.property("TIMER_DELAY_SEC").has_value());
  EXPECT_EQ(m.property("TIMER_DELAY_MS"), "1500");
  EXPECT_EQ(m.delay_time_ms(), 1500);
  m.set_deliver_time_ms(1'700'000'000'000);
  EXPECT_FALSE(m.property("TIMER_DELAY_MS").has_value());
  EXPECT_EQ(m.property("TIMER_DELIVER_MS"), "1700000000000");
  EXPECT_EQ(m.deliver_time_ms(), 1'700'000'000'000);
  EXPECT_TRUE(m.has_delivery_time());
  m.set_deliver_time_ms(0);
  EXPECT_FALSE(m.has_delivery_time());
  EXPECT_EQ(m.deliver_time_ms(), 0);
}

TEST(MessageTest, UserPropertiesMayNotUseSystemNames) {
  Message m("TopicA", "body");
  EXPECT_TRUE(m.put_user_property("color", "red").is_ok());
  EXPECT_EQ(m.property("color"), "red");
  EXPECT_EQ(m.put_user_property("UNIQ_KEY", "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.put_user_property("TAGS", "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.put_user_property("", "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.put_user_property("empty", "").code(), StatusCode::kInvalidArgument);
  m.clear_property("color");
  EXPECT_FALSE(m.property("color").has_value());
}

}  // namespace
}  // namespace mqkit::client
