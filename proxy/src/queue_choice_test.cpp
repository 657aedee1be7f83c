#include "queue_choice.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "mqkit/plugin/v1/java_hash.hpp"

namespace mqkit::proxy {
namespace {

// Guava's own compatibility vectors for Hashing.consistentHash (HashingTest).
TEST(GuavaConsistentHashTest, MatchesGuavaBitForBit) {
  const std::int32_t golden100[] = {0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83};
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(std::size(golden100)); ++i) {
    EXPECT_EQ(guava_consistent_hash(i, 100), golden100[i]) << "input " << i;
  }
  EXPECT_EQ(guava_consistent_hash(10863919174838991LL, 11), 6);
  EXPECT_EQ(guava_consistent_hash(2016238256797177309LL, 11), 3);
  EXPECT_EQ(guava_consistent_hash(1673758223894951030LL, 11), 5);
  EXPECT_EQ(guava_consistent_hash(2, 100001), 80343);
  EXPECT_EQ(guava_consistent_hash(2201, 100001), 22152);
  EXPECT_EQ(guava_consistent_hash(2202, 100001), 15018);
}

TEST(GuavaConsistentHashTest, StaysInRangeForNegativeAndExtremeInputs) {
  for (const std::int64_t input : {std::int64_t{-1}, std::int64_t{INT32_MIN}, INT64_MIN, INT64_MAX}) {
    for (const std::int32_t buckets : {1, 2, 7, 64, 100000}) {
      const auto bucket = guava_consistent_hash(input, buckets);
      EXPECT_GE(bucket, 0);
      EXPECT_LT(bucket, buckets);
    }
  }
}

std::vector<client::MessageQueue> queues(int n) {
  std::vector<client::MessageQueue> out;
  for (int i = 0; i < n; ++i) out.push_back({"T", i < n / 2 ? "broker-a" : "broker-b", i % (n / 2 == 0 ? 1 : n / 2)});
  return out;
}

TEST(QueueChooserTest, OneGroupAlwaysTakesOneQueue) {
  QueueChooser chooser;
  const auto all = queues(8);
  std::map<std::string, client::MessageQueue> first;
  std::set<client::MessageQueue> used;
  for (int round = 0; round < 3; ++round) {
    for (int g = 0; g < 40; ++g) {
      const std::string group = "order-" + std::to_string(g);
      const auto chosen = chooser.choose(all, group);
      ASSERT_TRUE(chosen.has_value());
      const auto [it, inserted] = first.emplace(group, *chosen);
      EXPECT_EQ(it->second, *chosen) << group;
      used.insert(*chosen);
      // The bucket RocketMQ's proxy computes: Guava's hash of the group's Java hash code.
      EXPECT_EQ(*chosen, all[guava_consistent_hash(plugin::v1::java_string_hash(group), 8)]);
    }
  }
  EXPECT_GT(used.size(), 4U) << "40 groups should spread over most of 8 queues";
}

TEST(QueueChooserTest, MessagesWithoutGroupTakeQueuesInTurn) {
  QueueChooser chooser;
  const auto all = queues(4);
  std::map<client::MessageQueue, int> counts;
  for (int i = 0; i < 40; ++i) ++counts[*chooser.choose(all, "")];
  ASSERT_EQ(counts.size(), 4U);
  for (const auto& [queue, count] : counts) EXPECT_EQ(count, 10) << queue.to_string();
  EXPECT_FALSE(chooser.choose({}, "g").has_value());
}

}  // namespace
}  // namespace mqkit::proxy
