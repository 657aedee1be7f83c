// The subscription group bodies: the table round trip, and robustness of the body an admin tool
// sends (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP) against corrupt JSON: seeds, every truncation and
// deterministic mutations (tests/support/mutation_testing.hpp). What decodes re-encodes to the
// same group.
#include <gtest/gtest.h>

#include "mqkit/protocol/subscription_group.hpp"
#include "mutation_testing.hpp"

namespace mqkit::protocol {
namespace {

using mqkit::testing::Bytes;
using mqkit::testing::text_of;

constexpr std::string_view kTokens[] = {"{",    "}",     "[",  "]",           "\"",         ":",
                                        ",",    "null",  "true", "2147483648", "-1",         "\"1\"",
                                        "[[[[", "\"groupName\"", "\"retryQueueNums\"", "\"brokerId\""};

std::optional<std::string> check_group(std::span<const std::uint8_t> input) {
  const auto group = decode_subscription_group(text_of(input));
  if (!group.is_ok()) return mqkit::testing::value_or_explained_error(group, "decode_subscription_group");
  const std::string first = encode_subscription_group(*group);
  const auto again = decode_subscription_group(first);
  if (!again.is_ok()) return "re-encoded " + first + " does not decode: " + again.status().to_string();
  if (encode_subscription_group(*again) != first) return "round trip changed " + first;
  return std::nullopt;
}

TEST(SubscriptionGroupTest, SubscriptionGroupDecoderSurvivesCorruption) {
  SubscriptionGroupConfig group;
  group.group_name = "CG";
  group.retry_queue_nums = 2;
  group.retry_max_times = 5;
  group.consume_broadcast_enable = true;
  const std::vector<Bytes> seeds = {
      mqkit::testing::bytes_of(encode_subscription_group(group)),
      mqkit::testing::bytes_of(R"({"groupName":"G2","consumeEnable":"false","retryQueueNums":"3","brokerId":0,)"
                               R"("whichBrokerWhenConsumeSlowly":1,"notifyConsumerIdsChangedEnable":true})")};
  EXPECT_EQ(mqkit::testing::check_seeds_truncations_and_mutations(seeds, check_group,
                                                                   {.iterations = 4000, .dictionary = kTokens}),
            std::nullopt);
}

std::optional<std::string> check_group_list(std::span<const std::uint8_t> input) {
  const auto groups = decode_subscription_group_list(text_of(input));
  if (!groups.is_ok()) return mqkit::testing::value_or_explained_error(groups, "decode_subscription_group_list");
  const std::string first = encode_subscription_group_list(*groups);
  const auto again = decode_subscription_group_list(first);
  if (!again.is_ok()) return "re-encoded " + first + " does not decode: " + again.status().to_string();
  if (encode_subscription_group_list(*again) != first) return "round trip changed " + first;
  return std::nullopt;
}

// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST's body (mqadmin updateSubGroupList).
TEST(SubscriptionGroupTest, GroupListRoundTripsAndSurvivesCorruption) {
  const std::vector<SubscriptionGroupConfig> groups = {{.group_name = "a", .retry_max_times = 3}, {.group_name = "b"}};
  const std::string json = encode_subscription_group_list(groups);
  EXPECT_EQ(json.rfind(R"({"groupConfigList":[{"brokerId":0,)", 0), 0u) << json;
  auto decoded = decode_subscription_group_list(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, groups);
  EXPECT_FALSE(decode_subscription_group_list(R"({"groupConfigList":{"groupName":"a"}})").is_ok());
  EXPECT_FALSE(decode_subscription_group_list(R"({"groupConfigList":[{"retryMaxTimes":1}]})").is_ok());
  const std::vector<Bytes> seeds = {mqkit::testing::bytes_of(json)};
  EXPECT_EQ(mqkit::testing::check_seeds_truncations_and_mutations(seeds, check_group_list,
                                                                   {.iterations = 2000, .dictionary = kTokens}),
            std::nullopt);
}

TEST(SubscriptionGroupTest, OutOfRangeAndDeeplyNestedGroupsAreRefused) {
  EXPECT_FALSE(decode_subscription_group(R"({"groupName":"G","retryQueueNums":4294967297})").is_ok());
  EXPECT_FALSE(decode_subscription_group(std::string(1'000'000, '[')).is_ok());
}

TEST(SubscriptionGroupTest, TableRoundTripsAndReadsJavaStrings) {
  SubscriptionGroupConfig slow;
  slow.group_name = "slow";
  slow.consume_enable = false;
  slow.retry_queue_nums = 3;
  slow.which_broker_when_consume_slowly = 2;
  const std::map<std::string, SubscriptionGroupConfig> groups = {{"slow", slow}, {"plain", {.group_name = "plain"}}};
  const std::string json = encode_subscription_group_table(groups);
  EXPECT_NE(json.find(R"("slow":{"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":false,)"), std::string::npos)
      << json;
  auto decoded = decode_subscription_group_table(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, groups);
  // A broker answers with a dataVersion beside the table; an empty wrapper is no groups.
  auto java = decode_subscription_group_table(
      R"({"subscriptionGroupTable":{"g":{"groupName":"g","retryMaxTimes":"5"}},"dataVersion":{"counter":1}})");
  ASSERT_TRUE(java.is_ok()) << java.status().to_string();
  EXPECT_EQ(java->at("g").retry_max_times, 5);
  EXPECT_TRUE(decode_subscription_group_table("{}")->empty());
  EXPECT_FALSE(decode_subscription_group_table(R"({"subscriptionGroupTable":[1]})").is_ok());
  // A group in the table without its own name takes its key; a lone group needs its name.
  auto unnamed = decode_subscription_group_table(R"({"subscriptionGroupTable":{"g":{"retryMaxTimes":1}}})");
  ASSERT_TRUE(unnamed.is_ok()) << unnamed.status().to_string();
  EXPECT_EQ(unnamed->at("g").group_name, "g");
  EXPECT_FALSE(decode_subscription_group(R"({"retryMaxTimes":1})").is_ok());
}

}  // namespace
}  // namespace mqkit::protocol
