// RocketMQ parity: exact allocations each built-in must produce, derived by hand from the Java
// strategies in org.apache.rocketmq.client.consumer.rebalance (see rocketmq-facts.md §4.6).
// The consistent-hash expectations were produced by running RocketMQ's ConsistentHashRouter
// (with its default MD5Hash) on the same inputs; they differ for every case below if the MD5
// bytes are read little-endian, so they pin the byte order too.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "allocator_test_support.hpp"

namespace mqkit::testing::allocators {
namespace {

using plugin::v1::Category;
using plugin::v1::StatusCode;
using Shares = std::map<std::string, std::vector<std::string>>;

// Consumers "c0".."c<count-1>" (already sorted for count <= 10).
std::vector<std::string> consumers(int count) {
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) ids.push_back("c" + std::to_string(i));
  return ids;
}

Shares allocate_single_broker(QueueAllocator& allocator, int queue_count, int consumer_count) {
  return allocate_group_labels(allocator, make_queues("T", {{"b", queue_count}}),
                               consumers(consumer_count));
}

// ---------------------------------------------------------------------------------- averagely

TEST(AveragelyParity, BlocksWithTheRemainderGoingToTheFirstConsumers) {
  const auto allocator = load_allocator("AllocateMessageQueueAveragely");
  ASSERT_NE(allocator, nullptr);
  EXPECT_EQ(allocate_single_broker(*allocator, 5, 2),
            (Shares{{"c0", {"b:0", "b:1", "b:2"}}, {"c1", {"b:3", "b:4"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 8, 3),
            (Shares{{"c0", {"b:0", "b:1", "b:2"}},
                    {"c1", {"b:3", "b:4", "b:5"}},
                    {"c2", {"b:6", "b:7"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 7, 3),
            (Shares{{"c0", {"b:0", "b:1", "b:2"}},
                    {"c1", {"b:3", "b:4"}},
                    {"c2", {"b:5", "b:6"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 10, 4),
            (Shares{{"c0", {"b:0", "b:1", "b:2"}},
                    {"c1", {"b:3", "b:4", "b:5"}},
                    {"c2", {"b:6", "b:7"}},
                    {"c3", {"b:8", "b:9"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 4, 4),
            (Shares{{"c0", {"b:0"}}, {"c1", {"b:1"}}, {"c2", {"b:2"}}, {"c3", {"b:3"}}}));
}

TEST(AveragelyParity, ConsumersBeyondTheQueueCountGetNothing) {
  const auto allocator = load_allocator("averagely");
  ASSERT_NE(allocator, nullptr);
  EXPECT_EQ(allocate_single_broker(*allocator, 3, 5),
            (Shares{{"c0", {"b:0"}}, {"c1", {"b:1"}}, {"c2", {"b:2"}}, {"c3", {}}, {"c4", {}}}));
}

TEST(AveragelyParity, BlocksRunAcrossBrokersInSortedOrder) {
  const auto allocator = load_allocator("AVG");
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"broker-b", 3}, {"broker-a", 3}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(4)),
            (Shares{{"c0", {"broker-a:0", "broker-a:1"}},
                    {"c1", {"broker-a:2", "broker-b:0"}},
                    {"c2", {"broker-b:1"}},
                    {"c3", {"broker-b:2"}}}));
}

// -------------------------------------------------------------------------- averagely_by_circle

TEST(AveragelyByCircleParity, QueuesAreDealtRoundRobin) {
  const auto allocator = load_allocator("AllocateMessageQueueAveragelyByCircle");
  ASSERT_NE(allocator, nullptr);
  EXPECT_EQ(allocate_single_broker(*allocator, 5, 2),
            (Shares{{"c0", {"b:0", "b:2", "b:4"}}, {"c1", {"b:1", "b:3"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 8, 3),
            (Shares{{"c0", {"b:0", "b:3", "b:6"}},
                    {"c1", {"b:1", "b:4", "b:7"}},
                    {"c2", {"b:2", "b:5"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 10, 4),
            (Shares{{"c0", {"b:0", "b:4", "b:8"}},
                    {"c1", {"b:1", "b:5", "b:9"}},
                    {"c2", {"b:2", "b:6"}},
                    {"c3", {"b:3", "b:7"}}}));
  EXPECT_EQ(allocate_single_broker(*allocator, 2, 4),
            (Shares{{"c0", {"b:0"}}, {"c1", {"b:1"}}, {"c2", {}}, {"c3", {}}}));
}

TEST(AveragelyByCircleParity, DealingRunsAcrossBrokersInSortedOrder) {
  const auto allocator = load_allocator("AVG_BY_CIRCLE");
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"broker-a", 3}, {"broker-b", 3}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(4)),
            (Shares{{"c0", {"broker-a:0", "broker-b:1"}},
                    {"c1", {"broker-a:1", "broker-b:2"}},
                    {"c2", {"broker-a:2"}},
                    {"c3", {"broker-b:0"}}}));
}

// ------------------------------------------------------------------------------ consistent_hash

struct HashCase {
  std::string name;
  std::string virtual_nodes;
  std::string topic;
  std::vector<BrokerQueues> brokers;
  Shares expected;
};

void PrintTo(const HashCase& c, std::ostream* os) { *os << c.name; }

std::string hash_case_name(const ::testing::TestParamInfo<HashCase>& info) {
  return info.param.name;
}

class ConsistentHashParity : public ::testing::TestWithParam<HashCase> {};

TEST_P(ConsistentHashParity, MatchesRocketMqConsistentHashRouter) {
  const auto& param = GetParam();
  const auto allocator = load_allocator("AllocateMessageQueueConsistentHash",
                                        {{"virtual_nodes", param.virtual_nodes}});
  ASSERT_NE(allocator, nullptr);
  std::vector<std::string> ids;
  for (const auto& [id, share] : param.expected) ids.push_back(id);
  EXPECT_EQ(allocate_group_labels(*allocator, make_queues(param.topic, param.brokers), ids),
            param.expected);
}

INSTANTIATE_TEST_SUITE_P(
    RocketMq, ConsistentHashParity,
    ::testing::Values(
        HashCase{"default_nodes_two_brokers", "10", "TopicTest",
                 {{"broker-a", 4}, {"broker-b", 4}},
                 {{"cid-0", {"broker-a:1", "broker-b:0", "broker-b:3"}},
                  {"cid-1", {"broker-a:0", "broker-a:3", "broker-b:1", "broker-b:2"}},
                  {"cid-2", {"broker-a:2"}}}},
        HashCase{"default_nodes_real_client_ids", "10", "OrderTopic", {{"broker-a", 8}},
                 {{"192.168.0.1@1234",
                   {"broker-a:1", "broker-a:2", "broker-a:5", "broker-a:6", "broker-a:7"}},
                  {"192.168.0.2@5678", {"broker-a:0", "broker-a:3", "broker-a:4"}}}},
        HashCase{"three_nodes", "3", "T", {{"broker-a", 5}},
                 {{"a", {"broker-a:1"}},
                  {"b", {"broker-a:3"}},
                  {"c", {"broker-a:0", "broker-a:4"}},
                  {"d", {"broker-a:2"}}}},
        HashCase{"one_node", "1", "T", {{"broker-a", 6}},
                 {{"x", {"broker-a:0", "broker-a:1", "broker-a:4"}},
                  {"y", {"broker-a:2", "broker-a:3", "broker-a:5"}}}},
        HashCase{"hundred_nodes_consumer_left_empty", "100", "TopicTest",
                 {{"broker-a", 4}, {"broker-b", 4}, {"broker-c", 4}},
                 {{"c0", {"broker-a:1", "broker-b:3", "broker-c:2", "broker-c:3"}},
                  {"c1", {"broker-a:0", "broker-a:3", "broker-b:0", "broker-b:2", "broker-c:0"}},
                  {"c2", {"broker-a:2", "broker-b:1", "broker-c:1"}},
                  {"c3", {}}}}),
    hash_case_name);

// Owner of every queue, for comparing two group memberships.
std::map<MessageQueue, std::string> owners(QueueAllocator& allocator,
                                           const std::vector<MessageQueue>& queues,
                                           const std::vector<std::string>& ids) {
  std::map<MessageQueue, std::string> owner;
  for (const auto& id : ids) {
    for (const auto& queue : allocate_for(allocator, queues, ids, id)) owner[queue] = id;
  }
  return owner;
}

class ConsistentHashStability : public ::testing::TestWithParam<std::string> {};

TEST_P(ConsistentHashStability, AJoiningConsumerTakesFewQueuesAndOnlyForItself) {
  const auto allocator = load_allocator("consistent_hash", {{"virtual_nodes", GetParam()}});
  ASSERT_NE(allocator, nullptr);
  const auto queues =
      make_queues("JoinTopic", {{"broker-a", 34}, {"broker-b", 33}, {"broker-c", 33}});
  const std::vector<std::string> before = {"10.0.0.1@pid", "10.0.0.2@pid", "10.0.0.3@pid",
                                           "10.0.0.4@pid"};
  auto after = before;
  after.push_back("10.0.0.5@pid");
  const auto old_owner = owners(*allocator, queues, before);
  const auto new_owner = owners(*allocator, queues, after);
  ASSERT_EQ(old_owner.size(), queues.size());
  ASSERT_EQ(new_owner.size(), queues.size());

  int moved = 0;
  for (const auto& queue : queues) {
    if (old_owner.at(queue) == new_owner.at(queue)) continue;
    ++moved;
    EXPECT_EQ(new_owner.at(queue), "10.0.0.5@pid")
        << label(queue) << " moved between two consumers that were already there";
  }
  EXPECT_GT(moved, 0) << "the new consumer got nothing";
  // The fair share is 100/5 = 20; the ring's unevenness gets 15 queues of slack (RocketMQ's
  // ring moves 16 queues with 10 virtual nodes and 21 with 100 for these ids).
  EXPECT_LE(moved, 35);
}

TEST_P(ConsistentHashStability, ALeavingConsumersQueuesAreTheOnlyOnesThatMove) {
  const auto allocator = load_allocator("consistent_hash", {{"virtual_nodes", GetParam()}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("LeaveTopic", {{"broker-a", 16}, {"broker-b", 16}});
  const std::vector<std::string> before = {"c0", "c1", "c2", "c3", "c4"};
  const std::vector<std::string> after = {"c0", "c1", "c3", "c4"};
  const auto old_owner = owners(*allocator, queues, before);
  const auto new_owner = owners(*allocator, queues, after);
  for (const auto& queue : queues) {
    if (old_owner.at(queue) != "c2") {
      EXPECT_EQ(new_owner.at(queue), old_owner.at(queue)) << label(queue);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(VirtualNodes, ConsistentHashStability, ::testing::Values("10", "100"));

TEST(ConsistentHashConfig, VirtualNodesOutsideOneToTenThousandAreRefused) {
  for (const std::string nodes : {"0", "-1", "10001"}) {
    auto object = try_load_plugin_object(Category::kAllocator, "consistent_hash",
                                         {{"virtual_nodes", nodes}});
    EXPECT_FALSE(object.is_ok()) << nodes;
  }
  for (const std::string nodes : {"1", "10000"}) {
    auto object = try_load_plugin_object(Category::kAllocator, "consistent_hash",
                                         {{"virtual_nodes", nodes}});
    EXPECT_TRUE(object.is_ok()) << nodes << ": " << object.status().to_string();
  }
}

// ------------------------------------------------------------------------------ by_machine_room

TEST(ByMachineRoomParity, BlocksOfKeptQueuesThenOneLeftoverEach) {
  const auto allocator =
      load_allocator("AllocateMessageQueueByMachineRoom", {{"consumer_idcs", "room1,room2"}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues(
      "T", {{"room1@broker-a", 4}, {"room2@broker-b", 4}, {"room3@broker-c", 2}});
  // 8 kept queues over 3 consumers: blocks of 2, leftovers kept[6] and kept[7] to c0 and c1.
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(3)),
            (Shares{{"c0", {"room1@broker-a:0", "room1@broker-a:1", "room2@broker-b:2"}},
                    {"c1", {"room1@broker-a:2", "room1@broker-a:3", "room2@broker-b:3"}},
                    {"c2", {"room2@broker-b:0", "room2@broker-b:1"}}}));
}

TEST(ByMachineRoomParity, LeftoverComesFromTheEndUnlikeAveragely) {
  const auto allocator = load_allocator("MACHINE_ROOM", {{"consumer_idcs", "room1"}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"room1@broker-a", 5}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(2)),
            (Shares{{"c0", {"room1@broker-a:0", "room1@broker-a:1", "room1@broker-a:4"}},
                    {"c1", {"room1@broker-a:2", "room1@broker-a:3"}}}));
}

TEST(ByMachineRoomParity, MoreConsumersThanQueues) {
  const auto allocator = load_allocator("by_machine_room", {{"consumer_idcs", "room1"}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"room1@broker-a", 3}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(5)),
            (Shares{{"c0", {"room1@broker-a:0"}},
                    {"c1", {"room1@broker-a:1"}},
                    {"c2", {"room1@broker-a:2"}},
                    {"c3", {}},
                    {"c4", {}}}));
}

TEST(ByMachineRoomParity, OnlyExactlyRoomAtNameBrokersCount) {
  const auto allocator = load_allocator("by_machine_room", {{"consumer_idcs", "room1"}});
  ASSERT_NE(allocator, nullptr);
  // Java: brokerName.split("@").length == 2, and split drops a trailing empty part.
  const auto queues = make_queues(
      "T", {{"room1@broker-a", 2}, {"room1", 1}, {"room1@x@y", 1}, {"room1@", 1}, {"room2@b", 1}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(1)),
            (Shares{{"c0", {"room1@broker-a:0", "room1@broker-a:1"}}}));
}

TEST(ByMachineRoomParity, NoConfiguredRoomsOwnsNothing) {
  const auto allocator = load_allocator("by_machine_room");
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"room1@broker-a", 4}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(2)),
            (Shares{{"c0", {}}, {"c1", {}}}));
}

// -------------------------------------------------------------------------- machine_room_nearby

const std::vector<std::string> kThreeConsumersTwoRooms =
    sorted({"10.0.0.1@p1@IDC1", "10.0.0.2@p2@IDC1", "10.0.0.3@p3@IDC2"});

TEST(MachineRoomNearbyParity, OwnRoomFirstThenRoomsWithoutConsumersSharedByAll) {
  const auto allocator = load_allocator("AllocateMachineRoomNearby");
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues(
      "T", {{"IDC1@broker-a", 4}, {"IDC2@broker-b", 4}, {"IDC3@broker-c", 4}});
  // IDC1's queues split between its two consumers, IDC2's all to its one consumer, and IDC3
  // (nobody there) averagely over all three.
  EXPECT_EQ(allocate_group_labels(*allocator, queues, kThreeConsumersTwoRooms),
            (Shares{{"10.0.0.1@p1@IDC1",
                     {"IDC1@broker-a:0", "IDC1@broker-a:1", "IDC3@broker-c:0", "IDC3@broker-c:1"}},
                    {"10.0.0.2@p2@IDC1", {"IDC1@broker-a:2", "IDC1@broker-a:3", "IDC3@broker-c:2"}},
                    {"10.0.0.3@p3@IDC2",
                     {"IDC2@broker-b:0", "IDC2@broker-b:1", "IDC2@broker-b:2", "IDC2@broker-b:3",
                      "IDC3@broker-c:3"}}}));
}

TEST(MachineRoomNearbyParity, InnerAllocatorDoesEachSplit) {
  const auto allocator =
      load_allocator("MACHINE_ROOM_NEARBY", {{"inner", "AllocateMessageQueueAveragelyByCircle"}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues(
      "T", {{"IDC1@broker-a", 4}, {"IDC2@broker-b", 4}, {"IDC3@broker-c", 4}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, kThreeConsumersTwoRooms),
            (Shares{{"10.0.0.1@p1@IDC1",
                     {"IDC1@broker-a:0", "IDC1@broker-a:2", "IDC3@broker-c:0", "IDC3@broker-c:3"}},
                    {"10.0.0.2@p2@IDC1", {"IDC1@broker-a:1", "IDC1@broker-a:3", "IDC3@broker-c:1"}},
                    {"10.0.0.3@p3@IDC2",
                     {"IDC2@broker-b:0", "IDC2@broker-b:1", "IDC2@broker-b:2", "IDC2@broker-b:3",
                      "IDC3@broker-c:2"}}}));
}

TEST(MachineRoomNearbyParity, RoomsWithoutConsumersFollowInRoomNameOrder) {
  const auto allocator = load_allocator("machine_room_nearby");
  ASSERT_NE(allocator, nullptr);
  const auto queues =
      make_queues("T", {{"IDC1@broker-a", 2}, {"IDC3@broker-c", 1}, {"IDC4@broker-d", 1}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, {"10.0.0.9@p@IDC3"}),
            (Shares{{"10.0.0.9@p@IDC3",
                     {"IDC3@broker-c:0",  // its own room first
                      "IDC1@broker-a:0", "IDC1@broker-a:1", "IDC4@broker-d:0"}}}));
}

TEST(MachineRoomNearbyParity, NamesWithoutARoomFormTheirOwnUnnamedRoom) {
  const auto allocator = load_allocator("machine_room_nearby");
  ASSERT_NE(allocator, nullptr);
  // "broker-x" and "10.0.0.4@p4" have no room, so they meet in the unnamed room; IDC2 has no
  // consumer and is shared by both.
  const auto queues =
      make_queues("T", {{"IDC1@broker-a", 2}, {"IDC2@broker-b", 2}, {"broker-x", 1}});
  EXPECT_EQ(allocate_group_labels(*allocator, queues, sorted({"10.0.0.1@p1@IDC1", "10.0.0.4@p4"})),
            (Shares{{"10.0.0.1@p1@IDC1", {"IDC1@broker-a:0", "IDC1@broker-a:1", "IDC2@broker-b:0"}},
                    {"10.0.0.4@p4", {"broker-x:0", "IDC2@broker-b:1"}}}));
}

TEST(MachineRoomNearbyConfig, UnknownInnerAllocatorIsRefused) {
  auto object = try_load_plugin_object(Category::kAllocator, "machine_room_nearby",
                                       {{"inner", "AllocateMessageQueueByNothing"}});
  ASSERT_FALSE(object.is_ok());
  EXPECT_EQ(object.status().code(), StatusCode::kNotFound);
}

// ------------------------------------------------------------------------------------ by_config

TEST(ByConfig, OwnsTheConfiguredQueuesTheRouteHasInRouteOrder) {
  const auto allocator = load_allocator(
      "AllocateMessageQueueByConfig",
      {{"queues", "broker-b:1,broker-a:0,broker-z:9,broker-a:0,broker-a:7"}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"broker-a", 4}, {"broker-b", 4}});
  // Not a partitioning allocator: every consumer configured alike owns the same queues.
  EXPECT_EQ(allocate_group_labels(*allocator, queues, consumers(2)),
            (Shares{{"c0", {"broker-a:0", "broker-b:1"}}, {"c1", {"broker-a:0", "broker-b:1"}}}));
}

TEST(ByConfig, AppliesToEveryTopic) {
  const auto allocator = load_allocator("CONFIG", {{"queues", "broker-a:2"}});
  ASSERT_NE(allocator, nullptr);
  for (const std::string topic : {"T1", "T2", "%RETRY%group"}) {
    EXPECT_EQ(labels(allocate_for(*allocator, make_queues(topic, {{"broker-a", 4}}), {"c0"}, "c0")),
              std::vector<std::string>{"broker-a:2"})
        << topic;
  }
}

TEST(ByConfig, BrokerNamesMayContainColons) {
  const auto allocator = load_allocator("by_config", {{"queues", "dc1:broker-a:3"}});
  ASSERT_NE(allocator, nullptr);
  const auto queues = make_queues("T", {{"dc1:broker-a", 4}, {"broker-a", 4}});
  EXPECT_EQ(labels(allocate_for(*allocator, queues, {"c0"}, "c0")),
            std::vector<std::string>{"dc1:broker-a:3"});
}

TEST(ByConfig, NothingConfiguredOwnsNothing) {
  const auto allocator = load_allocator("by_config");
  ASSERT_NE(allocator, nullptr);
  EXPECT_TRUE(allocate_for(*allocator, make_queues("T", {{"broker-a", 4}}), {"c0"}, "c0").empty());
}

TEST(ByConfig, MalformedEntriesAreRefused) {
  for (const std::string entry : {"broker-a", "broker-a:", ":1", "broker-a:x", "broker-a:-1",
                                  "broker-a:1x", "broker-a:99999999999"}) {
    auto object = try_load_plugin_object(Category::kAllocator, "by_config", {{"queues", entry}});
    ASSERT_FALSE(object.is_ok()) << entry;
    EXPECT_EQ(object.status().code(), StatusCode::kInvalidArgument) << entry;
  }
}

}  // namespace
}  // namespace mqkit::testing::allocators
