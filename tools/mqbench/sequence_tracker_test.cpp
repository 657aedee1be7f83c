#include "sequence_tracker.hpp"

#include <gtest/gtest.h>

namespace mqkit::bench {
namespace {

TEST(SequenceTrackerTest, EverythingOnceInOrderIsClean) {
  SequenceTracker t;
  for (std::uint64_t s = 0; s < 1000; ++s) t.record(0, s, s % 4, static_cast<std::int64_t>(s / 4));
  EXPECT_EQ(t.unique(), 1000u);
  const SequenceErrors e = t.errors({ProducerLedger{1000, {}}});
  EXPECT_EQ(e.total(), 0u);
}

TEST(SequenceTrackerTest, DuplicatesAreCountedOnce) {
  SequenceTracker t;
  t.record(0, 0, 0, 0);
  t.record(0, 1, 0, 1);
  t.record(0, 1, 0, 1);
  t.record(0, 1, 1, 0);  // the same message again, from another queue
  EXPECT_EQ(t.unique(), 2u);
  const SequenceErrors e = t.errors({ProducerLedger{2, {}}});
  EXPECT_EQ(e.duplicated, 2u);
  EXPECT_EQ(e.lost, 0u);
  EXPECT_EQ(e.out_of_order, 0u);
}

TEST(SequenceTrackerTest, OrderIsCheckedPerQueueOnly) {
  SequenceTracker t;
  // Round-robin over two queues, the second queue read first: not an error.
  t.record(0, 1, 1, 0);
  t.record(0, 3, 1, 1);
  t.record(0, 0, 0, 0);
  t.record(0, 2, 0, 1);
  EXPECT_EQ(t.out_of_order(), 0u);
  // Within queue 0, 5 stored before 4: one out-of-order message.
  t.record(0, 5, 0, 2);
  t.record(0, 4, 0, 3);
  EXPECT_EQ(t.out_of_order(), 1u);
  EXPECT_EQ(t.errors({ProducerLedger{6, {}}}).total(), 1u);
}

TEST(SequenceTrackerTest, OrderIsWhereMessagesAreStoredNotWhenTheyArrive) {
  SequenceTracker t;
  // Stored in order, delivered out of order (two listener threads of one queue): clean.
  t.record(0, 2, 0, 2);
  t.record(0, 0, 0, 0);
  t.record(0, 1, 0, 1);
  t.record(0, 3, 0, 3);
  EXPECT_EQ(t.out_of_order(), 0u);
  // Sequence 5 stored at offset 4 and sequence 4 at offset 5, delivered either way round.
  t.record(0, 4, 0, 5);
  t.record(0, 5, 0, 4);
  EXPECT_EQ(t.out_of_order(), 1u);
  t.record(1, 1, 0, 7);
  t.record(1, 0, 0, 8);
  EXPECT_EQ(t.out_of_order(), 2u);
}

TEST(SequenceTrackerTest, LostAreAcknowledgedButNeverReceived) {
  SequenceTracker t;
  for (std::uint64_t s : {0, 1, 2, 4, 5, 6, 8, 9}) t.record(0, s, 0, static_cast<std::int64_t>(s));
  EXPECT_EQ(t.errors({ProducerLedger{10, {}}}).lost, 2u);   // 3 and 7
  EXPECT_EQ(t.errors({ProducerLedger{10, {7}}}).lost, 1u);  // 7 failed: not expected
  // A failed send that was stored after all is no error either.
  EXPECT_EQ(t.errors({ProducerLedger{10, {4}}}).lost, 2u);
  EXPECT_EQ(t.errors({ProducerLedger{12, {}}}).lost, 4u);   // 10 and 11 never arrived
}

TEST(SequenceTrackerTest, ProducersAreIndependent) {
  SequenceTracker t;
  t.record(0, 0, 0, 0);
  t.record(1, 0, 0, 1);  // same sequence, another producer: not a duplicate
  t.record(1, 1, 0, 2);
  EXPECT_EQ(t.unique(), 3u);
  EXPECT_EQ(t.duplicated(), 0u);
  const SequenceErrors e = t.errors({ProducerLedger{1, {}}, ProducerLedger{3, {}}});
  EXPECT_EQ(e.lost, 1u);  // producer 1's sequence 2
  EXPECT_EQ(t.missing({ProducerLedger{1, {}}}), 0u);
}

TEST(SequenceTrackerTest, SparseLargeSequencesGrowTheBitmap) {
  SequenceTracker t;
  t.record(3, 1'000'000, 0, 0);
  t.record(3, 63, 1, 0);
  t.record(3, 64, 1, 1);
  EXPECT_EQ(t.unique(), 3u);
  t.record(3, 1'000'000, 2, 0);
  EXPECT_EQ(t.duplicated(), 1u);
}

}  // namespace
}  // namespace mqkit::bench
