#include "mqkit/broker/broker_stats.hpp"

#include <gtest/gtest.h>

namespace mqkit::broker {
namespace {

std::map<std::string, std::string> figures(const BrokerStats& stats) {
  protocol::KvTable info;
  stats.add_to(info);
  return info.table;
}

TEST(BrokerStatsTest, TotalsCountFromStartAndMorningsRollAtLocalMidnight) {
  BrokerStats stats;
  stats.count_put(3);
  stats.count_get(2);
  stats.sample(1'000, 100);
  auto t = figures(stats);
  EXPECT_EQ(t["msgPutTotalTodayNow"], "3");
  EXPECT_EQ(t["msgGetTotalTodayNow"], "2");
  EXPECT_EQ(t["msgPutTotalTodayMorning"], "0");  // no midnight seen yet
  EXPECT_EQ(t["msgPutTotalYesterdayMorning"], "0");

  stats.count_put(4);
  stats.sample(2'000, 100);  // same day: nothing rolls
  EXPECT_EQ(figures(stats)["msgPutTotalTodayMorning"], "0");
  stats.sample(3'000, 101);  // first sample after midnight
  stats.count_put(5);
  stats.count_get(1);
  t = figures(stats);
  EXPECT_EQ(t["msgPutTotalTodayNow"], "12");
  EXPECT_EQ(t["msgPutTotalTodayMorning"], "7");
  EXPECT_EQ(t["msgGetTotalTodayMorning"], "2");
  EXPECT_EQ(t["msgPutTotalYesterdayMorning"], "0");
  stats.sample(4'000, 102);
  t = figures(stats);
  EXPECT_EQ(t["msgPutTotalTodayMorning"], "12");
  EXPECT_EQ(t["msgPutTotalYesterdayMorning"], "7");
  EXPECT_EQ(t["msgGetTotalYesterdayMorning"], "2");
  EXPECT_EQ(t["msgGetTotalTodayMorning"], "3");
}

TEST(BrokerStatsTest, TpsPerWindowOnceEnoughSamplesExist) {
  BrokerStats stats;
  EXPECT_EQ(figures(stats)["putTps"], "  ");  // RocketMQ leaves every window empty at first
  for (int second = 0; second <= 60; ++second) {
    stats.sample(second * 1000, 1);
    stats.count_put(10);  // 10 a second
    stats.count_get(second < 50 ? 0 : 6);
  }
  const auto t = figures(stats);
  EXPECT_EQ(t.at("putTps"), "10.00 10.00 ");
  // 60 pulled in the last ten seconds, none before.
  EXPECT_EQ(t.at("getTransferedTps"), "6.00 1.00 ");
}

TEST(BrokerStatsTest, LocalDayChangesOncePerDay) {
  const std::int64_t now = 1'700'000'000'000;
  const std::int64_t day = BrokerStats::local_day(now);
  EXPECT_EQ(BrokerStats::local_day(now + 86'400'000), day + 1);
  EXPECT_LE(BrokerStats::local_day(now + 3'600'000) - day, 1);
}

}  // namespace
}  // namespace mqkit::broker
