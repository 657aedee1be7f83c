#include "mqkit/protocol/topic_attributes.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(TopicAttributesTest, ParsesRocketMqsChangeText) {
  auto changes = parse_attribute_changes("+message.type=FIFO,-old.key");
  ASSERT_TRUE(changes.is_ok()) << changes.status().to_string();
  EXPECT_EQ(*changes, (AttributeMap{{"+message.type", "FIFO"}, {"-old.key", ""}}));
  EXPECT_TRUE(parse_attribute_changes("")->empty());
  for (const char* bad : {"message.type=FIFO", "+message.type", "-message.type=FIFO", "+=x", "+"}) {
    EXPECT_EQ(parse_attribute_changes(bad).status().code(), plugin::v1::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(TopicAttributesTest, FormatsChangesBackAndSignsPlainKeysAsAdditions) {
  EXPECT_EQ(format_attribute_changes({{"+message.type", "FIFO"}}), "+message.type=FIFO");
  EXPECT_EQ(format_attribute_changes({{"message.type", "DELAY"}, {"-x", ""}}), "-x,+message.type=DELAY");
  EXPECT_EQ(*parse_attribute_changes(format_attribute_changes({{"message.type", "MIXED"}})),
            (AttributeMap{{"+message.type", "MIXED"}}));
}

TEST(TopicAttributesTest, AltersStoredAttributesAsRocketMqDoes) {
  auto created = alter_topic_attributes(true, {}, {{"+message.type", "FIFO"}});
  ASSERT_TRUE(created.is_ok());
  EXPECT_EQ(*created, (AttributeMap{{"message.type", "FIFO"}}));
  // Plain keys (exported topic configs) are additions too.
  EXPECT_EQ(*alter_topic_attributes(true, {}, {{"message.type", "DELAY"}}), (AttributeMap{{"message.type", "DELAY"}}));
  EXPECT_EQ(*alter_topic_attributes(false, *created, {}), *created);  // no change keeps them
  EXPECT_EQ(*alter_topic_attributes(false, *created, {{"+message.type", "MIXED"}}), (AttributeMap{{"message.type", "MIXED"}}));
  EXPECT_TRUE(alter_topic_attributes(false, *created, {{"-message.type", ""}})->empty());

  const auto refused = [](bool create, const AttributeMap& current, const AttributeMap& changes) {
    return alter_topic_attributes(create, current, changes).status();
  };
  EXPECT_NE(refused(true, {}, {{"+queue.type", "BatchCQ"}}).message().find("unsupported topic attribute: queue.type"),
            std::string::npos);
  EXPECT_NE(refused(true, {}, {{"+message.type", "fifo"}}).message().find("is not one of"), std::string::npos);
  EXPECT_NE(refused(true, {}, {{"-message.type", ""}}).message().find("being created"), std::string::npos);
  EXPECT_NE(refused(false, {}, {{"-message.type", ""}}).message().find("nonexistent"), std::string::npos);
}

}  // namespace
}  // namespace mqkit::protocol
