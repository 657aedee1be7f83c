// RocketMQ parity: each selector picks what the Java client (4.9 / 5.x) would pick.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "selector_test_util.hpp"

namespace mqkit::plugins::selectors::testing {
namespace {

using v1::SelectArgument;

// Counts how often each queue index is picked in `calls` selections.
std::map<std::size_t, int> tally(v1::QueueSelector& selector,
                                 const std::vector<v1::MessageQueue>& queues,
                                 const v1::SelectContext& context, int calls) {
  std::map<std::size_t, int> counts;
  for (int i = 0; i < calls; ++i) ++counts[select_ok(selector, queues, context)];
  return counts;
}

// ---- hash: SelectMessageQueueByHash, abs(arg.hashCode() % size) ----

class HashParity : public ::testing::Test {
 protected:
  void SetUp() override {
    MQKIT_REQUIRE_SELECTOR("hash");
    selector_ = mqkit::testing::load_plugin<v1::QueueSelector>("SelectMessageQueueByHash");
    ASSERT_NE(selector_, nullptr);
  }
  std::size_t pick(SelectArgument argument, int queue_count) {
    return select_ok(*selector_, make_queues(queue_count), context_with(std::move(argument)));
  }
  std::shared_ptr<v1::QueueSelector> selector_;
};

TEST_F(HashParity, IntegerArgumentHashesToItself) {
  EXPECT_EQ(pick(SelectArgument::int32(7), 4), 3u);
  EXPECT_EQ(pick(SelectArgument::int32(-7), 4), 3u);  // Java: -7 % 4 == -3, abs -> 3
  EXPECT_EQ(pick(SelectArgument::int32(0), 1), 0u);
  EXPECT_EQ(pick(SelectArgument::int32(std::numeric_limits<std::int32_t>::max()), 16), 15u);
  // Integer.MIN_VALUE % 3 == -2; a naive abs(hash) first would overflow.
  EXPECT_EQ(pick(SelectArgument::int32(std::numeric_limits<std::int32_t>::min()), 3), 2u);
}

TEST_F(HashParity, LongArgumentUsesLongHashCode) {
  // Long.hashCode(v) == (int)(v ^ (v >>> 32)); values computed with Java semantics.
  EXPECT_EQ(pick(SelectArgument::int64(1LL << 32), 4), 1u);                // hash 1
  EXPECT_EQ(pick(SelectArgument::int64(-1), 4), 0u);                       // hash 0
  EXPECT_EQ(pick(SelectArgument::int64(5'000'000'000LL), 7), 6u);          // hash 705032705
  EXPECT_EQ(pick(SelectArgument::int64(-5'000'000'000LL), 7), 3u);         // hash 705032702
  EXPECT_EQ(pick(SelectArgument::int64(123'456'789'012'345LL), 16), 15u);  // hash -2045923535
  EXPECT_EQ(pick(SelectArgument::int64(std::numeric_limits<std::int64_t>::min()), 3), 2u);
}

TEST_F(HashParity, StringArgumentUsesStringHashCode) {
  // "order-42".hashCode() == 1234255197 (Σ s[i]·31^(n-1-i) over UTF-16 units, int wrap-around).
  ASSERT_EQ(v1::java_string_hash("order-42"), 1234255197);
  EXPECT_EQ(pick(SelectArgument::string("order-42"), 8), 5u);
  EXPECT_EQ(pick(SelectArgument::string("order-42"), 5), 2u);
  EXPECT_EQ(pick(SelectArgument::string("订单-1"), 7), 6u);  // hash 1085411543
  EXPECT_EQ(pick(SelectArgument::string("😀key"), 6), 0u);    // surrogate pair; hash 1276932636
  EXPECT_EQ(pick(SelectArgument::string(""), 3), 0u);
}

TEST_F(HashParity, SameKeySameQueueEveryTime) {
  const auto queues = make_queues({{"broker-a", 4}, {"broker-b", 4}});
  const std::size_t first =
      select_ok(*selector_, queues, context_with(SelectArgument::string("k")));
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(select_ok(*selector_, queues, context_with(SelectArgument::string("k"))), first);
  }
}

TEST_F(HashParity, MissingArgumentIsInvalidArgument) {
  auto picked = selector_->select(make_queues(4), context_with(SelectArgument::none()));
  ASSERT_FALSE(picked.is_ok());
  EXPECT_EQ(picked.status().code(), v1::StatusCode::kInvalidArgument);
  EXPECT_NE(picked.status().message().find("argument"), std::string::npos)
      << picked.status().message();
}

// ---- random: SelectMessageQueueByRandom ----

TEST(RandomParity, ReachesEveryQueueRoughlyEvenly) {
  MQKIT_REQUIRE_SELECTOR("random");
  auto selector = mqkit::testing::load_plugin<v1::QueueSelector>("SelectMessageQueueByRandom");
  ASSERT_NE(selector, nullptr);
  const auto counts = tally(*selector, make_queues(4), context_with(SelectArgument::none()), 4000);
  ASSERT_EQ(counts.size(), 4u);
  // Expected 1000 each, standard deviation about 27: these bounds are > 15 sigma wide.
  for (const auto& [index, count] : counts) {
    EXPECT_GT(count, 600) << "queue " << index;
    EXPECT_LT(count, 1400) << "queue " << index;
  }
}

// ---- round_robin: TopicPublishInfo.selectOneMessageQueue + MQFaultStrategy ----

class RoundRobinParity : public ::testing::Test {
 protected:
  void SetUp() override {
    MQKIT_REQUIRE_SELECTOR("round_robin");
    selector_ = mqkit::testing::load_plugin<v1::QueueSelector>("round_robin");
    ASSERT_NE(selector_, nullptr);
  }
  std::shared_ptr<v1::QueueSelector> selector_;
};

TEST_F(RoundRobinParity, CoversAllQueuesEvenlyOnOneThread) {
  for (int n : {1, 3, 5, 8}) {
    const auto queues = make_queues({{"broker-a", (n + 1) / 2}, {"broker-b", n / 2}});
    const auto counts = tally(*selector_, queues, context_with(SelectArgument::none()), n * 25);
    ASSERT_EQ(counts.size(), static_cast<std::size_t>(n));
    for (const auto& [index, count] : counts) {
      EXPECT_EQ(count, 25) << "n=" << n << " queue " << index;
    }
  }
}

TEST_F(RoundRobinParity, ConsecutiveSendsTakeConsecutiveQueues) {
  const auto queues = make_queues(6);
  const auto context = context_with(SelectArgument::none());
  std::size_t previous = select_ok(*selector_, queues, context);
  for (int i = 0; i < 20; ++i) {
    const std::size_t next = select_ok(*selector_, queues, context);
    EXPECT_EQ(next, (previous + 1) % queues.size());
    previous = next;
  }
}

TEST_F(RoundRobinParity, KeepsOneCounterPerTopic) {
  // Java keeps a ThreadLocalIndex per TopicPublishInfo: alternating between two topics must not
  // leave half of each topic's queues unused.
  const auto t_queues = make_queues({{"broker-a", 4}}, "T");
  const auto u_queues = make_queues({{"broker-a", 4}}, "U");
  std::map<std::size_t, int> t_counts;
  std::map<std::size_t, int> u_counts;
  for (int i = 0; i < 40; ++i) {
    ++t_counts[select_ok(*selector_, t_queues, context_with(SelectArgument::none(), "T"))];
    ++u_counts[select_ok(*selector_, u_queues, context_with(SelectArgument::none(), "U"))];
  }
  EXPECT_EQ(t_counts.size(), 4u);
  EXPECT_EQ(u_counts.size(), 4u);
}

TEST_F(RoundRobinParity, RetryAvoidsTheLastFailedBroker) {
  const auto queues = make_queues({{"broker-a", 4}, {"broker-b", 4}});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.last_failed_broker = "broker-a";
  const auto counts = tally(*selector_, queues, context, 4 * 10);
  ASSERT_EQ(counts.size(), 4u);  // broker-b's four queues, evenly
  for (const auto& [index, count] : counts) {
    EXPECT_EQ(queues[index].broker_name, "broker-b");
    EXPECT_EQ(count, 10);
  }
}

TEST_F(RoundRobinParity, RetryFallsBackToPlainRoundRobinWhenOnlyTheFailedBrokerIsLeft) {
  const auto queues = make_queues({{"broker-a", 3}});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.last_failed_broker = "broker-a";
  EXPECT_EQ(tally(*selector_, queues, context, 30).size(), 3u);
}

TEST_F(RoundRobinParity, FaultToleranceSkipsUnavailableBrokersEvenly) {
  const auto queues = make_queues({{"broker-a", 2}, {"broker-b", 2}, {"broker-c", 2}});
  const FakeAvailability availability({"broker-b"});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.availability = &availability;
  const auto counts = tally(*selector_, queues, context, 4 * 10);
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [index, count] : counts) {
    EXPECT_NE(queues[index].broker_name, "broker-b");
    EXPECT_EQ(count, 10);
  }
}

TEST_F(RoundRobinParity, FaultToleranceOnRetryAvoidsBothUnavailableAndLastFailed) {
  const auto queues = make_queues({{"broker-a", 2}, {"broker-b", 2}, {"broker-c", 2}});
  const FakeAvailability availability({"broker-b"});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.availability = &availability;
  context.last_failed_broker = "broker-a";
  for (const auto& [index, count] : tally(*selector_, queues, context, 20)) {
    EXPECT_EQ(queues[index].broker_name, "broker-c");
  }
}

TEST_F(RoundRobinParity, NothingAvailablePrefersABrokerOtherThanTheLastFailed) {
  // 5.x would ask its reachability detector next; without one, not repeating the broker that
  // just failed is the best remaining hint.
  const auto queues = make_queues({{"broker-a", 2}, {"broker-b", 2}});
  const FakeAvailability availability({"broker-a", "broker-b"});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.availability = &availability;
  context.last_failed_broker = "broker-a";
  for (const auto& [index, count] : tally(*selector_, queues, context, 20)) {
    EXPECT_EQ(queues[index].broker_name, "broker-b");
  }
}

TEST_F(RoundRobinParity, NothingAvailableOnAFirstAttemptIsPlainRoundRobin) {
  const auto queues = make_queues({{"broker-a", 2}, {"broker-b", 2}});
  const FakeAvailability availability({"broker-a", "broker-b"});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.availability = &availability;
  EXPECT_EQ(tally(*selector_, queues, context, 40).size(), 4u);
}

#if MQKIT_WITH_LATENCY_FAULT_TOLERANCE
TEST_F(RoundRobinParity, WorksWithTheLatencyFaultTolerancePlugin) {
  auto strategy = mqkit::testing::load_plugin<v1::FaultStrategy>("MQFaultStrategy");
  ASSERT_NE(strategy, nullptr);
  strategy->update("broker-a", 100, /*isolation=*/true);  // 10 s default isolation
  strategy->update("broker-b", 20, /*isolation=*/false);  // fast: stays available
  const auto queues = make_queues({{"broker-a", 4}, {"broker-b", 4}});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.availability = strategy.get();
  for (const auto& [index, count] : tally(*selector_, queues, context, 40)) {
    EXPECT_EQ(queues[index].broker_name, "broker-b");
  }
}
#endif

// ---- machine_room: ours is real (RocketMQ's SelectMessageQueueByMachineRoom is a stub) ----

std::shared_ptr<v1::QueueSelector> load_machine_room(std::map<std::string, std::string> config) {
  return mqkit::testing::load_plugin<v1::QueueSelector>("SelectMessageQueueByMachineRoom", config);
}

TEST(MachineRoomSelector, PrefersTheLocalRoomEvenly) {
  MQKIT_REQUIRE_SELECTOR("machine_room");
  auto selector = load_machine_room({{"machine_room", "room-a"}});
  ASSERT_NE(selector, nullptr);
  const auto queues = make_queues({{"room-a@broker-1", 2},
                                   {"room-b@broker-2", 3},
                                   {"room-a@broker-3", 2},
                                   {"room-ab@broker-4", 2}});  // a prefix of the room, not the room
  const auto counts = tally(*selector, queues, context_with(SelectArgument::none()), 4 * 10);
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [index, count] : counts) {
    EXPECT_TRUE(queues[index].broker_name.starts_with("room-a@")) << queues[index].broker_name;
    EXPECT_EQ(count, 10);
  }
}

TEST(MachineRoomSelector, FallsBackToAllQueuesWhenTheRoomHasNone) {
  MQKIT_REQUIRE_SELECTOR("machine_room");
  auto selector = load_machine_room({{"machine_room", "room-z"}});
  ASSERT_NE(selector, nullptr);
  const auto queues = make_queues({{"room-a@broker-1", 2}, {"room-b@broker-2", 3}});
  const auto counts = tally(*selector, queues, context_with(SelectArgument::none()), 5 * 4);
  ASSERT_EQ(counts.size(), 5u);
  for (const auto& [index, count] : counts) EXPECT_EQ(count, 4);
}

TEST(MachineRoomSelector, NoRoomConfiguredIsPlainRoundRobin) {
  MQKIT_REQUIRE_SELECTOR("machine_room");
  auto selector = load_machine_room({});
  ASSERT_NE(selector, nullptr);
  const auto queues = make_queues({{"room-a@broker-1", 2}, {"room-b@broker-2", 2}});
  EXPECT_EQ(tally(*selector, queues, context_with(SelectArgument::none()), 40).size(), 4u);
}

TEST(MachineRoomSelector, HonoursACustomSeparator) {
  MQKIT_REQUIRE_SELECTOR("machine_room");
  auto selector = load_machine_room({{"machine_room", "east"}, {"room_separator", "-"}});
  ASSERT_NE(selector, nullptr);
  const auto queues = make_queues({{"east-broker-1", 2}, {"west-broker-2", 2}});
  for (const auto& [index, count] :
       tally(*selector, queues, context_with(SelectArgument::none()), 20)) {
    EXPECT_EQ(queues[index].broker_name, "east-broker-1");
  }
}

TEST(MachineRoomSelector, LeavesTheRoomWhenItsBrokersAreUnavailable) {
  MQKIT_REQUIRE_SELECTOR("machine_room");
  auto selector = load_machine_room({{"machine_room", "room-a"}});
  ASSERT_NE(selector, nullptr);
  const auto queues =
      make_queues({{"room-a@broker-1", 2}, {"room-a@broker-2", 2}, {"room-b@broker-3", 2}});
  const FakeAvailability availability({"room-a@broker-1"});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.availability = &availability;
  // One local broker left: stay in the room.
  for (const auto& [index, count] : tally(*selector, queues, context, 20)) {
    EXPECT_EQ(queues[index].broker_name, "room-a@broker-2");
  }
  // No local broker left: an available remote broker beats an unavailable local one.
  const FakeAvailability room_down({"room-a@broker-1", "room-a@broker-2"});
  context.availability = &room_down;
  for (const auto& [index, count] : tally(*selector, queues, context, 20)) {
    EXPECT_EQ(queues[index].broker_name, "room-b@broker-3");
  }
}

TEST(MachineRoomSelector, RetryPrefersAnotherLocalBroker) {
  MQKIT_REQUIRE_SELECTOR("machine_room");
  auto selector = load_machine_room({{"machine_room", "room-a"}});
  ASSERT_NE(selector, nullptr);
  const auto queues =
      make_queues({{"room-a@broker-1", 2}, {"room-a@broker-2", 2}, {"room-b@broker-3", 2}});
  v1::SelectContext context = context_with(SelectArgument::none());
  context.last_failed_broker = "room-a@broker-1";
  for (const auto& [index, count] : tally(*selector, queues, context, 20)) {
    EXPECT_EQ(queues[index].broker_name, "room-a@broker-2");
  }
}

}  // namespace
}  // namespace mqkit::plugins::selectors::testing
