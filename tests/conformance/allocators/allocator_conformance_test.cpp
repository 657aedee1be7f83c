// Properties every queue allocator must have, run against each built-in through the real plugin
// loader. Each case names a plugin plus the configuration under which the property is expected
// to hold (the machine-room allocators need rooms that cover the generated brokers).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "allocator_test_support.hpp"

namespace mqkit::testing::allocators {
namespace {

using plugin::v1::StatusCode;

// How the generated consumers name themselves. kWithRooms puts a unit name (the machine room
// machine_room_nearby reads) in the id and leaves room3 without consumers.
enum class ClientIds { kPlain, kWithRooms };

struct AllocatorCase {
  std::string test_name;
  std::string plugin;
  std::map<std::string, std::string> config;
  ClientIds client_ids = ClientIds::kPlain;
};

void PrintTo(const AllocatorCase& c, std::ostream* os) { *os << c.test_name; }

std::string case_name(const ::testing::TestParamInfo<AllocatorCase>& info) {
  return info.param.test_name;
}

std::vector<std::string> make_client_ids(ClientIds style, int count) {
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) {
    std::string id = "10.0.0." + std::to_string(i + 1) + "@" + std::to_string(4000 + i);
    if (style == ClientIds::kWithRooms) id += "@room" + std::to_string(i % 2 + 1);
    ids.push_back(std::move(id));
  }
  return sorted(std::move(ids));
}

// Brokers use the "<room>@<name>" convention so that one layout serves every allocator.
std::vector<std::vector<BrokerQueues>> layouts_for(int queue_count) {
  const int half = queue_count / 2;
  const int third = queue_count / 3;
  return {
      {{"room1@broker-a", queue_count}},
      {{"room1@broker-a", queue_count - half}, {"room2@broker-b", half}},
      {{"room1@broker-a", third}, {"room2@broker-b", third},
       {"room3@broker-c", queue_count - 2 * third}},
  };
}

// Allocators that split the queues so that each goes to exactly one member of the group.
const std::vector<AllocatorCase> kPartitioningCases = {
    {"averagely", "averagely", {}},
    {"averagely_by_circle", "averagely_by_circle", {}},
    {"consistent_hash", "consistent_hash", {}},
    {"consistent_hash_3_nodes", "consistent_hash", {{"virtual_nodes", "3"}}},
    {"by_machine_room_all_rooms", "by_machine_room",
     {{"consumer_idcs", "room1,room2,room3"}}},
    {"machine_room_nearby", "machine_room_nearby", {}},
    {"machine_room_nearby_with_rooms", "machine_room_nearby", {}, ClientIds::kWithRooms},
    {"machine_room_nearby_circle_with_rooms", "machine_room_nearby",
     {{"inner", "AllocateMessageQueueAveragelyByCircle"}}, ClientIds::kWithRooms},
    {"machine_room_nearby_hash_with_rooms", "machine_room_nearby",
     {{"inner", "consistent_hash"}}, ClientIds::kWithRooms},
};

// by_config is not a partitioning allocator: every consumer owns exactly the queues it was
// configured with, so "each queue exactly once" cannot hold for a group sharing one
// configuration. It joins only the suite below; by_config_test covers the rest.
std::vector<AllocatorCase> all_cases() {
  auto cases = kPartitioningCases;
  cases.push_back({"by_config", "by_config", {{"queues", "room1@broker-a:0,room2@broker-b:1"}}});
  return cases;
}

class AllocatorConformance : public ::testing::TestWithParam<AllocatorCase> {
 protected:
  void SetUp() override {
    allocator_ = load_allocator(GetParam().plugin, GetParam().config);
    ASSERT_NE(allocator_, nullptr);
  }
  std::vector<std::string> client_ids(int count) const {
    return make_client_ids(GetParam().client_ids, count);
  }

  std::shared_ptr<QueueAllocator> allocator_;
};

class PartitioningConformance : public AllocatorConformance {};

TEST_P(PartitioningConformance, EveryQueueGoesToExactlyOneConsumer) {
  for (int queue_count = 0; queue_count <= 20; ++queue_count) {
    for (const auto& layout : layouts_for(queue_count)) {
      const auto queues = make_queues("ConformanceTopic", layout);
      for (int consumer_count = 1; consumer_count <= 8; ++consumer_count) {
        SCOPED_TRACE(::testing::Message() << queue_count << " queues on " << layout.size()
                                          << " brokers, " << consumer_count << " consumers");
        const auto ids = client_ids(consumer_count);
        std::map<MessageQueue, int> owners;
        for (const auto& share : allocate_group(*allocator_, queues, ids)) {
          for (const auto& queue : share) ++owners[queue];
        }
        for (const auto& queue : queues) {
          EXPECT_EQ(owners[queue], 1) << label(queue) << " owned by " << owners[queue];
        }
        EXPECT_EQ(owners.size(), queues.size()) << "a consumer was given a queue not in the list";
      }
    }
  }
}

TEST_P(AllocatorConformance, OwnsOnlyListedQueuesAndEachOnce) {
  const auto queues = make_queues("T", {{"room1@broker-a", 7}, {"room2@broker-b", 5}});
  const auto ids = client_ids(3);
  for (const auto& share : allocate_group(*allocator_, queues, ids)) {
    std::vector<MessageQueue> unique = share;
    std::sort(unique.begin(), unique.end());
    EXPECT_EQ(std::adjacent_find(unique.begin(), unique.end()), unique.end());
    for (const auto& queue : share) {
      EXPECT_TRUE(std::binary_search(queues.begin(), queues.end(), queue)) << label(queue);
    }
  }
}

// The caller sorts both lists (RocketMQ's RebalanceImpl does); given that, the result must not
// depend on the order in which the caller learnt about queues and consumers.
TEST_P(AllocatorConformance, SameSortedInputsGiveSameResultWhateverTheArrivalOrder) {
  const auto queues = make_queues("T", {{"room1@broker-a", 8}, {"room2@broker-b", 6},
                                        {"room3@broker-c", 3}});
  const auto ids = client_ids(5);
  const auto expected = allocate_group(*allocator_, queues, ids);
  EXPECT_EQ(allocate_group(*allocator_, queues, ids), expected) << "not deterministic";

  std::mt19937 random(20240611);
  for (int round = 0; round < 10; ++round) {
    auto shuffled_queues = queues;
    auto shuffled_ids = ids;
    std::shuffle(shuffled_queues.begin(), shuffled_queues.end(), random);
    std::shuffle(shuffled_ids.begin(), shuffled_ids.end(), random);
    std::sort(shuffled_queues.begin(), shuffled_queues.end());
    std::sort(shuffled_ids.begin(), shuffled_ids.end());
    EXPECT_EQ(allocate_group(*allocator_, shuffled_queues, shuffled_ids), expected);
  }
}

TEST_P(AllocatorConformance, ConsumerGroupNameDoesNotChangeTheResult) {
  const auto queues = make_queues("T", {{"room1@broker-a", 6}, {"room2@broker-b", 4}});
  const auto ids = client_ids(3);
  for (const auto& id : ids) {
    EXPECT_EQ(allocate_for(*allocator_, queues, ids, id, "group_one"),
              allocate_for(*allocator_, queues, ids, id, "group_two"));
  }
}

TEST_P(AllocatorConformance, UnknownCurrentConsumerGetsNothing) {
  const auto queues = make_queues("T", {{"room1@broker-a", 8}, {"room2@broker-b", 8}});
  const auto ids = client_ids(3);
  for (const std::string stranger : {"10.9.9.9@1", "10.9.9.9@1@room1", "zzz"}) {
    const AllocateContext context{"g", stranger, queues, ids};
    auto result = allocator_->allocate(context);
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_TRUE(result->empty()) << stranger << " was given " << result->size() << " queues";
  }
}

TEST_P(AllocatorConformance, EmptyClientListIsInvalidArgument) {
  const auto queues = make_queues("T", {{"room1@broker-a", 4}});
  const std::vector<std::string> no_ids;
  const AllocateContext context{"g", "10.0.0.1@4000", queues, no_ids};
  auto result = allocator_->allocate(context);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
}

TEST_P(AllocatorConformance, EmptyCurrentClientIdIsInvalidArgument) {
  const auto queues = make_queues("T", {{"room1@broker-a", 4}});
  const auto ids = client_ids(2);
  const AllocateContext context{"g", "", queues, ids};
  auto result = allocator_->allocate(context);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
}

TEST_P(AllocatorConformance, NoQueuesGivesNothing) {
  const std::vector<MessageQueue> no_queues;
  const auto ids = client_ids(3);
  for (const auto& id : ids) {
    EXPECT_TRUE(allocate_for(*allocator_, no_queues, ids, id).empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Allocators, PartitioningConformance,
                         ::testing::ValuesIn(kPartitioningCases), case_name);
INSTANTIATE_TEST_SUITE_P(Allocators, AllocatorConformance, ::testing::ValuesIn(all_cases()),
                         case_name);

// Every name a RocketMQ user might write resolves to the same plugin.
struct AliasCase {
  std::string canonical;
  std::vector<std::string> aliases;
};

void PrintTo(const AliasCase& c, std::ostream* os) { *os << c.canonical; }

constexpr const char* kRebalancePackage = "org.apache.rocketmq.client.consumer.rebalance.";

const std::vector<AliasCase> kAliasCases = {
    {"averagely", {"AllocateMessageQueueAveragely", "AVG"}},
    {"averagely_by_circle", {"AllocateMessageQueueAveragelyByCircle", "AVG_BY_CIRCLE"}},
    {"consistent_hash", {"AllocateMessageQueueConsistentHash", "CONSISTENT_HASH"}},
    {"by_config", {"AllocateMessageQueueByConfig", "CONFIG"}},
    {"by_machine_room", {"AllocateMessageQueueByMachineRoom", "MACHINE_ROOM"}},
    {"machine_room_nearby", {"AllocateMachineRoomNearby", "MACHINE_ROOM_NEARBY"}},
};

class AllocatorAliases : public ::testing::TestWithParam<AliasCase> {};

TEST_P(AllocatorAliases, ShortJavaNameFullyQualifiedNameAndRocketMqNameResolveToOnePlugin) {
  const auto canonical = load_allocator(GetParam().canonical);
  ASSERT_NE(canonical, nullptr);
  const auto queues = make_queues("T", {{"room1@broker-a", 5}, {"room2@broker-b", 4}});
  const auto ids = sorted({"10.0.0.1@1@room1", "10.0.0.2@2@room2", "10.0.0.3@3"});
  const auto expected = allocate_group(*canonical, queues, ids);

  std::vector<std::string> names = GetParam().aliases;
  names.push_back(kRebalancePackage + GetParam().aliases.front());
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const auto aliased = load_allocator(name);
    ASSERT_NE(aliased, nullptr);
    // Same implementation class from the same library, not merely the same answers.
    const QueueAllocator& aliased_object = *aliased;
    const QueueAllocator& canonical_object = *canonical;
    EXPECT_STREQ(typeid(aliased_object).name(), typeid(canonical_object).name());
    EXPECT_EQ(allocate_group(*aliased, queues, ids), expected);
  }
}

std::string alias_case_name(const ::testing::TestParamInfo<AliasCase>& info) {
  return info.param.canonical;
}

INSTANTIATE_TEST_SUITE_P(Allocators, AllocatorAliases, ::testing::ValuesIn(kAliasCases),
                         alias_case_name);

TEST(AllocatorLoading, UnknownNameIsNotFound) {
  auto object = try_load_plugin_object(plugin::v1::Category::kAllocator,
                                       "AllocateMessageQueueByNothing");
  ASSERT_FALSE(object.is_ok());
  EXPECT_EQ(object.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mqkit::testing::allocators
