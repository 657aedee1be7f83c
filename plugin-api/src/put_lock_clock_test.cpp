// PutLockClock: what a store reports as RocketMQ's pageCacheLockTimeMills.
#include <gtest/gtest.h>

#include "mqkit/plugin/v1/runtime_figures.hpp"

namespace mqkit::plugin::v1 {
namespace {

TEST(PutLockClock, ReadsZeroWhileNoAppendHoldsTheLock) {
  PutLockClock clock;
  EXPECT_EQ(clock.held_ms(1'700'000'000'000), 0);
}

TEST(PutLockClock, CountsFromWhenTheHolderTookTheLockUntilItLetsGo) {
  PutLockClock clock;
  {
    const PutLockClock::Held held(clock, 1'700'000'000'000);
    EXPECT_EQ(clock.held_ms(1'700'000'000'000), 0);
    EXPECT_EQ(clock.held_ms(1'700'000'000'250), 250);
    // A caller's clock a little behind the store's reads 0, not a negative time.
    EXPECT_EQ(clock.held_ms(1'699'999'999'990), 0);
  }
  EXPECT_EQ(clock.held_ms(1'700'000'000'250), 0);
}

}  // namespace
}  // namespace mqkit::plugin::v1
