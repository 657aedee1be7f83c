// BrokerStatsData: what a broker answers to VIEW_BROKER_STATS_DATA (one stats item's last minute,
// hour and day), and the stats key of a topic and group. Written as fastjson writes it (keys in
// alphabetical order) so Java admin tools read it; shared by the broker and mqadmin statsAll.
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

// One window: what was counted (messages or bytes), per second, and per counted call.
struct BrokerStatsItem {
  std::int64_t sum = 0;
  double tps = 0;
  double avgpt = 0;
  bool operator==(const BrokerStatsItem&) const = default;
};

struct BrokerStatsData {
  BrokerStatsItem stats_minute{};
  BrokerStatsItem stats_hour{};
  BrokerStatsItem stats_day{};
  bool operator==(const BrokerStatsData&) const = default;
};

std::string encode(const BrokerStatsData& data);
// Missing windows or fields read as zero; a window that is not an object is an error.
plugin::v1::Result<BrokerStatsData> decode_broker_stats_data(std::string_view json);

// Messages of the last 24 hours as RocketMQ's statsAll counts them: the day window's sum, or the
// hour's while the day window has nothing, or the minute's.
std::int64_t sum_of_last_day(const BrokerStatsData& data);

// RocketMQ's stats key of a topic and group (GROUP_GET_NUMS, SNDBCK_PUT_NUMS): "topic@group".
std::string stats_key(std::string_view topic, std::string_view group);

}  // namespace mqkit::protocol
