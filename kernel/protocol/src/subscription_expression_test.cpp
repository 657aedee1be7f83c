#include "mqkit/protocol/subscription_expression.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(PullSubscriptionExpressionTest, TagsAreSplitTrimmedAndHashedAsJavaDoes) {
  const auto s = parse_subscription("T", " TagA ||TagB|| ", 42);
  EXPECT_EQ(s.topic, "T");
  EXPECT_EQ(s.sub_version, 42);
  EXPECT_EQ(s.expression_type, "TAG");
  EXPECT_EQ(s.tags_set, (std::set<std::string>{"TagA", "TagB"}));
  EXPECT_EQ(s.code_set, (std::set<std::int32_t>{2598919, 2598920}));
  EXPECT_EQ(tag_filter_codes(s), (std::vector<std::int32_t>{2598919, 2598920}));
}

TEST(PullSubscriptionExpressionTest, StarOrNothingTakesEverything) {
  for (const char* expression : {"*", "", "  * "}) {
    const auto s = parse_subscription("T", expression, 0);
    EXPECT_EQ(s.sub_string, "*");
    EXPECT_TRUE(s.tags_set.empty());
    EXPECT_TRUE(tag_filter_codes(s).empty());
  }
}

TEST(PullSubscriptionExpressionTest, HeartbeatSubscriptionsGetBrokerDerivedCodes) {
  SubscriptionData from_client;
  from_client.topic = "T";
  from_client.sub_string = "TagA";
  from_client.code_set = {1};  // wrong
  normalize_subscription(from_client);
  EXPECT_EQ(from_client.code_set, std::set<std::int32_t>{2598919});

  SubscriptionData sql;
  sql.sub_string = "a > 1";
  sql.expression_type = "SQL92";
  normalize_subscription(sql);
  EXPECT_EQ(sql.sub_string, "a > 1");
  EXPECT_TRUE(sql.tags_set.empty());
  EXPECT_FALSE(is_tag_expression("SQL92"));
  EXPECT_TRUE(is_tag_expression(""));
}

}  // namespace
}  // namespace mqkit::protocol
