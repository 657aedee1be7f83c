#include "mqkit/protocol/java_properties.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(JavaPropertiesTest, WritesOneSortedLinePerKeyAsRocketMqDoes) {
  EXPECT_EQ(encode_java_properties({{"listenPort", "10911"}, {"brokerName", "broker-a"}}),
            "brokerName=broker-a\nlistenPort=10911\n");
  EXPECT_EQ(encode_java_properties({}), "");
}

TEST(JavaPropertiesTest, ReadsWhatPropertiesLoadReads) {
  auto read = decode_java_properties(
      "# a comment\n! another\n\n  brokerName = broker-a\r\nlistenPort:10911\nflag true\nempty=\npath=C:\\\\data\n");
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  const std::map<std::string, std::string> expected = {
      {"brokerName", "broker-a"}, {"listenPort", "10911"}, {"flag", "true"}, {"empty", ""}, {"path", "C:\\data"}};
  EXPECT_EQ(*read, expected);
}

TEST(JavaPropertiesTest, EscapedTextRoundTrips) {
  const std::map<std::string, std::string> tricky = {
      {"a=b:c d", " leading space, = and : inside"}, {"multi", "line\none\\two\ttab"}, {"plain", "x=y"}};
  auto back = decode_java_properties(encode_java_properties(tricky));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(*back, tricky);
}

TEST(JavaPropertiesTest, UnsupportedEscapesAreRefused) {
  EXPECT_FALSE(decode_java_properties("k=\\u0041\n").is_ok());
  EXPECT_FALSE(decode_java_properties("k=continued\\\n  here\n").is_ok());
}

}  // namespace
}  // namespace mqkit::protocol
