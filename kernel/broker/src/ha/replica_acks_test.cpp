#include "mqkit/broker/ha/replica_acks.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace mqkit::broker {
namespace {

constexpr std::int64_t kGap = 1000;

struct Answer {
  std::optional<ReplicaOutcome> outcome;
  ReplicaAcks::Done done() {
    return [this](ReplicaOutcome o) {
      ASSERT_FALSE(outcome.has_value()) << "answered twice";
      outcome = o;
    };
  }
};

TEST(ReplicaAcksTest, NoSlaveMeansSlaveNotAvailableAtOnce) {
  ReplicaAcks acks;
  Answer a;
  acks.wait(100, kGap, 5000, a.done());
  EXPECT_EQ(a.outcome, ReplicaOutcome::kSlaveNotAvailable);
  EXPECT_FALSE(acks.slave_ok(100, kGap));
}

TEST(ReplicaAcksTest, ASlaveTooFarBehindIsNotAvailable) {
  ReplicaAcks acks;
  acks.connected(1);
  acks.acked(1, 0);
  EXPECT_TRUE(acks.slave_ok(999, kGap));
  EXPECT_FALSE(acks.slave_ok(1000, kGap));  // RocketMQ: available while the gap is < the maximum
  Answer a;
  acks.wait(1000, kGap, 5000, a.done());
  EXPECT_EQ(a.outcome, ReplicaOutcome::kSlaveNotAvailable);
}

TEST(ReplicaAcksTest, WaitersCompleteWhenAnAckCoversThemAndTimeOutOtherwise) {
  ReplicaAcks acks;
  acks.connected(1);
  acks.acked(1, 0);
  Answer first, second, third;
  acks.wait(100, kGap, 50, first.done());
  acks.wait(300, kGap, 50, second.done());
  acks.wait(200, kGap, 80, third.done());
  acks.acked(1, 150);
  EXPECT_EQ(first.outcome, ReplicaOutcome::kOk);
  EXPECT_FALSE(second.outcome);
  EXPECT_FALSE(third.outcome);
  EXPECT_EQ(acks.expire(49), 2u);
  EXPECT_EQ(acks.expire(50), 1u);
  EXPECT_EQ(second.outcome, ReplicaOutcome::kFlushSlaveTimeout);
  acks.acked(1, 200);
  EXPECT_EQ(third.outcome, ReplicaOutcome::kOk);
  // Already acknowledged: answered at once.
  Answer fourth;
  acks.wait(200, kGap, 0, fourth.done());
  EXPECT_EQ(fourth.outcome, ReplicaOutcome::kOk);
}

TEST(ReplicaAcksTest, TheAckedOffsetIsTheHighestEverAndSurvivesTheSlave) {
  ReplicaAcks acks;
  acks.connected(1);
  acks.connected(2);
  acks.acked(1, 500);
  acks.acked(2, 300);
  EXPECT_EQ(acks.acked_offset(), 500);
  const auto slaves = acks.slaves();
  ASSERT_EQ(slaves.size(), 2u);
  EXPECT_EQ(slaves[0].acked_offset, 500);
  EXPECT_EQ(slaves[1].acked_offset, 300);
  acks.disconnected(1);
  EXPECT_EQ(acks.slave_count(), 1u);
  EXPECT_EQ(acks.acked_offset(), 500);
  acks.disconnected(2);
  EXPECT_FALSE(acks.slave_ok(501, kGap));
}

TEST(ReplicaAcksTest, FailAllAnswersEveryWaiterOnce) {
  ReplicaAcks acks;
  acks.connected(1);
  Answer a, b;
  acks.wait(10, kGap, 1'000'000, a.done());
  acks.wait(20, kGap, 1'000'000, b.done());
  acks.fail_all();
  EXPECT_EQ(a.outcome, ReplicaOutcome::kFlushSlaveTimeout);
  EXPECT_EQ(b.outcome, ReplicaOutcome::kFlushSlaveTimeout);
  EXPECT_EQ(acks.expire(2'000'000), 0u);
}

}  // namespace
}  // namespace mqkit::broker
