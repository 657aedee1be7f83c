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
  stats.count_put("T", 3, 100);
  stats.count_get("T", "G", 2, 100);
  stats.sample(1'000, 100);
  auto t = figures(stats);
  EXPECT_EQ(t["msgPutTotalTodayNow"], "3");
  EXPECT_EQ(t["msgGetTotalTodayNow"], "2");
  EXPECT_EQ(t["msgPutTotalTodayMorning"], "0");  // no midnight seen yet
  EXPECT_EQ(t["msgPutTotalYesterdayMorning"], "0");

  stats.count_put("T", 4, 100);
  stats.sample(2'000, 100);  // same day: nothing rolls
  EXPECT_EQ(figures(stats)["msgPutTotalTodayMorning"], "0");
  stats.sample(3'000, 101);  // first sample after midnight
  stats.count_put("T", 5, 100);
  stats.count_get("T", "G", 1, 100);
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
    stats.count_put("T", 10, 100);  // 10 a second
    stats.count_get("T", "G", second < 50 ? 0 : 6, 100);
  }
  const auto t = figures(stats);
  EXPECT_EQ(t.at("putTps"), "10.00 10.00 ");
  // 60 pulled in the last ten seconds, none before.
  EXPECT_EQ(t.at("getTransferedTps"), "6.00 1.00 ");
}

TEST(StatsItemTest, AWindowKeepsItsNewestSnapshotsAsRocketMQDoes) {
  StatsItem item;
  EXPECT_EQ(item.windows(0).stats_minute.sum, 0);  // nothing sampled yet
  item.add(50, 5);
  item.sample(StatsWindow::kMinute, 100'000);  // preceded by a zero snapshot at 90'000
  StatsSnapshot minute = item.windows(100'000).stats_minute;
  EXPECT_EQ(minute.sum, 50);
  EXPECT_DOUBLE_EQ(minute.tps, 5.0);
  EXPECT_DOUBLE_EQ(minute.avgpt, 10.0);
  for (int i = 1; i <= 8; ++i) {
    item.add(10, 1);
    item.sample(StatsWindow::kMinute, 100'000 + i * 10'000);
  }
  // Seven snapshots kept: 120'000 (value 70) to 180'000 (value 130).
  minute = item.windows(180'000).stats_minute;
  EXPECT_EQ(minute.sum, 60);
  EXPECT_DOUBLE_EQ(minute.tps, 1.0);
  EXPECT_DOUBLE_EQ(minute.avgpt, 10.0);
  // The first minute sample started the hour and day windows too (zero at 100'000 - period).
  EXPECT_EQ(item.windows(180'000).stats_hour.sum, 130);
  EXPECT_DOUBLE_EQ(item.windows(180'000).stats_hour.tps, 130.0 / 680.0);
  item.sample(StatsWindow::kDay, 200'000);
  EXPECT_EQ(item.windows(200'000).stats_day.sum, 130);
  EXPECT_DOUBLE_EQ(item.windows(200'000).stats_day.tps, 130.0 / 3700.0);
  // A window ends now: what came after its newest snapshot counts too (RocketMQ's would wait for
  // the next hourly sample).
  item.add(70, 1);
  const StatsSnapshot day = item.windows(200'000 + 3'600'000).stats_day;
  EXPECT_EQ(day.sum, 200);
  EXPECT_DOUBLE_EQ(day.tps, 200.0 / 7300.0);
}

TEST(BrokerStatsTest, ViewFindsEveryStatsNameByItsKey) {
  BrokerStats stats;
  stats.count_put("T", 3, 300);
  stats.count_put("T", 1, 100);
  stats.count_get("T", "G", 2, 200);
  stats.count_send_back("T", "G");
  stats.sample(1'000'000, 1);
  const auto minute_sum = [&](std::string_view name, std::string_view key) {
    const auto windows = stats.view(name, key, "DefaultCluster", 1'000'000);
    return windows ? windows->stats_minute.sum : -1;
  };
  EXPECT_EQ(minute_sum(BrokerStats::kTopicPutNums, "T"), 4);
  EXPECT_DOUBLE_EQ(stats.view(BrokerStats::kTopicPutNums, "T", "", 1'000'000)->stats_minute.avgpt, 2.0);  // two calls
  EXPECT_EQ(minute_sum(BrokerStats::kTopicPutSize, "T"), 400);
  EXPECT_EQ(minute_sum(BrokerStats::kGroupGetNums, "T@G"), 2);
  EXPECT_EQ(minute_sum(BrokerStats::kGroupGetSize, "T@G"), 200);
  EXPECT_EQ(minute_sum(BrokerStats::kSendBackPutNums, "T@G"), 1);
  EXPECT_EQ(minute_sum(BrokerStats::kBrokerPutNums, "DefaultCluster"), 4);
  EXPECT_EQ(minute_sum(BrokerStats::kBrokerGetNums, "DefaultCluster"), 2);
  EXPECT_EQ(stats.view(BrokerStats::kTopicPutNums, "T", "", 1'000'000)->stats_hour.sum, 4);  // every window sampled at start
  EXPECT_DOUBLE_EQ(stats.group_get_tps("T", "G", 1'000'000), 0.2);                      // 2 in 10 s

  // What was never counted does not exist, as in RocketMQ.
  EXPECT_EQ(minute_sum(BrokerStats::kTopicPutNums, "U"), -1);
  EXPECT_EQ(minute_sum(BrokerStats::kGroupGetNums, "T@H"), -1);
  EXPECT_EQ(minute_sum(BrokerStats::kGroupGetNums, "T"), -1);
  EXPECT_EQ(minute_sum(BrokerStats::kBrokerPutNums, "OtherCluster"), -1);
  EXPECT_EQ(minute_sum("QUEUE_PUT_NUMS", "T@0"), -1);
  EXPECT_DOUBLE_EQ(stats.group_get_tps("T", "H", 1'000'000), 0.0);
}

TEST(BrokerStatsTest, WindowsSampleOnTheirOwnPeriod) {
  BrokerStats stats;
  stats.sample(0, 1);
  stats.count_put("U", 6, 600);  // a key created after the first sampling
  stats.sample(5'000, 1);        // the minute window is not due yet
  EXPECT_EQ(stats.view(BrokerStats::kTopicPutNums, "U", "", 5'000)->stats_minute.sum, 0);
  stats.sample(10'000, 1);
  const StatsWindows windows = *stats.view(BrokerStats::kTopicPutNums, "U", "", 10'000);
  EXPECT_EQ(windows.stats_minute.sum, 6);
  EXPECT_EQ(windows.stats_hour.sum, 6);  // started by U's first sample, not at the next hourly tick
  EXPECT_EQ(windows.stats_day.sum, 6);
  stats.count_put("U", 1, 100);
  stats.sample(20'000, 1);  // the hour window is not due: it ends now all the same
  EXPECT_EQ(stats.view(BrokerStats::kTopicPutNums, "U", "", 20'000)->stats_hour.sum, 7);
}

TEST(BrokerStatsTest, LocalDayChangesOncePerDay) {
  const std::int64_t now = 1'700'000'000'000;
  const std::int64_t day = BrokerStats::local_day(now);
  EXPECT_EQ(BrokerStats::local_day(now + 86'400'000), day + 1);
  EXPECT_LE(BrokerStats::local_day(now + 3'600'000) - day, 1);
}

}  // namespace
}  // namespace mqkit::broker
