#include "ha_client.hpp"

#include <gtest/gtest.h>

namespace mqkit::broker::ha {
namespace {

TEST(ConnectFailureLogTest, FirstFailureThenOneLineAMinuteThenReconnection) {
  ConnectFailureLog log;
  EXPECT_EQ(log.failed(1'000), 1);  // the first is logged at once
  // Every 5 s for a minute: quiet, then one line covering them.
  std::int64_t now = 1'000;
  for (int i = 0; i < 11; ++i) EXPECT_EQ(log.failed(now += 5'000), 0) << i;
  EXPECT_EQ(log.failed(now += 5'000), 12);
  EXPECT_EQ(log.failed(now += 5'000), 0);
  EXPECT_EQ(log.connected(), 14);  // the reconnection line counts them all
  EXPECT_EQ(log.connected(), 0);
  // Down again later: its first failure is logged at once.
  EXPECT_EQ(log.failed(now += 1'000), 1);
}

}  // namespace
}  // namespace mqkit::broker::ha
