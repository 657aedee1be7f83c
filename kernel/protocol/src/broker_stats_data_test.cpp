#include "mqkit/protocol/broker_stats_data.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(BrokerStatsDataTest, EncodesAsFastjsonDoes) {
  const BrokerStatsData data{{120, 2.0, 1.5}, {7200, 2.0, 1.0}, {0, 0.0, 0.0}};
  EXPECT_EQ(encode(data),
            R"({"statsDay":{"avgpt":0.0,"sum":0,"tps":0.0},"statsHour":{"avgpt":1.0,"sum":7200,"tps":2.0},)"
            R"("statsMinute":{"avgpt":1.5,"sum":120,"tps":2.0}})");
}

TEST(BrokerStatsDataTest, DecodesWhatAJavaBrokerSends) {
  // Any key order, a window missing, numbers as strings.
  const auto decoded = decode_broker_stats_data(
      R"({"statsMinute":{"tps":16.5,"sum":"990","avgpt":3},"statsHour":{"sum":45000,"tps":12.5,"avgpt":2.0}})");
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->stats_minute, (BrokerStatsItem{990, 16.5, 3.0}));
  EXPECT_EQ(decoded->stats_hour, (BrokerStatsItem{45000, 12.5, 2.0}));
  EXPECT_EQ(decoded->stats_day, BrokerStatsItem{});
  const BrokerStatsData again = *decode_broker_stats_data(encode(*decoded));
  EXPECT_EQ(again, *decoded);
}

TEST(BrokerStatsDataTest, AWindowOfTheWrongShapeIsNamed) {
  const auto decoded = decode_broker_stats_data(R"({"statsDay":[1,2]})");
  ASSERT_FALSE(decoded.is_ok());
  EXPECT_NE(decoded.status().message().find("statsDay"), std::string::npos) << decoded.status().to_string();
  EXPECT_FALSE(decode_broker_stats_data(R"({"statsHour":{"sum":"many"}})").is_ok());
}

TEST(BrokerStatsDataTest, TheLastDayFallsBackToTheHourThenTheMinute) {
  EXPECT_EQ(sum_of_last_day({{5, 0, 0}, {50, 0, 0}, {500, 0, 0}}), 500);
  EXPECT_EQ(sum_of_last_day({{5, 0, 0}, {50, 0, 0}, {0, 0, 0}}), 50);
  EXPECT_EQ(sum_of_last_day({{5, 0, 0}, {0, 0, 0}, {0, 0, 0}}), 5);
  EXPECT_EQ(sum_of_last_day({}), 0);
}

TEST(BrokerStatsDataTest, StatsKeyJoinsTopicAndGroup) { EXPECT_EQ(stats_key("TopicA", "GroupB"), "TopicA@GroupB"); }

}  // namespace
}  // namespace mqkit::protocol
