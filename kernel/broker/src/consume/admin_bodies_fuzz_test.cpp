// Robustness of the subscription group body an admin tool sends (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)
// against corrupt JSON: seeds, every truncation and deterministic mutations
// (tests/support/mutation_testing.hpp). What decodes re-encodes to the same group.
#include <gtest/gtest.h>

#include "mqkit/broker/consume/admin_bodies.hpp"
#include "mutation_testing.hpp"

namespace mqkit::broker {
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

TEST(AdminBodiesFuzzTest, SubscriptionGroupDecoderSurvivesCorruption) {
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

TEST(AdminBodiesFuzzTest, OutOfRangeAndDeeplyNestedGroupsAreRefused) {
  EXPECT_FALSE(decode_subscription_group(R"({"groupName":"G","retryQueueNums":4294967297})").is_ok());
  EXPECT_FALSE(decode_subscription_group(std::string(1'000'000, '[')).is_ok());
}

}  // namespace
}  // namespace mqkit::broker
