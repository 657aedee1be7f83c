// Values a broken or hostile client puts where a server expects something sensible: integers at
// the edges of their types, numbers that are not numbers, names of system topics and groups,
// RocketMQ's property separators, overlong and binary text. Shared by the hostile-request tests
// of the remoting servers and of mqproxy.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace mqkit::testing {

inline std::vector<std::int64_t> hostile_integers() {
  return {0, 1, -1, 100, 4096, 65536, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(),
          std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1, std::numeric_limits<std::int64_t>::min(),
          std::numeric_limits<std::int64_t>::max()};
}

inline std::vector<std::string> hostile_strings() {
  std::vector<std::string> values = {
      "", " ", "99999999999999999999999", "1e3", "0x10", "1.5", " 7", "abc", "NaN", "true", "null",
      "%RETRY%HostileGroup", "%DLQ%HostileGroup", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
      "SCHEDULE_TOPIC_XXXX", "rmq_sys_wheel_timer", "TBW102", "*", "||", "TagA || TagB", "a > 1 AND",
      "a BETWEEN 1 AND", "SQL92", std::string(300, 'T'), std::string(70'000, 'x'), "\x01\x02", "TAGS\x01",
      "\x01value\x02", "UNIQ_KEY\x01\x02" "DELAY\x01" "99\x02", "DELAY\x01-3\x02",
      "TIMER_DELAY_SEC\x01" "9999999999\x02", "127.0.0.1:10911", "127.0.0.1:0", "256.1.1.1:99999", ":",
      "7F00000100002A9F", "ZZ", "7F00000100002A9F00000000000000001", "7F00000100002A9F0000000000000011",
      "7F00000100002A9FFFFFFFFFFFFFFFFF", std::string("a\0b", 3), "\xff\xfe\xfd", "../../etc/passwd", "/tmp",
      "rocketmqHome"};
  for (const auto n : hostile_integers()) values.push_back(std::to_string(n));
  values.push_back("9223372036854775808");
  values.push_back("-2147483649");
  return values;
}

// A campaign's seed or length from the environment (MQKIT_HOSTILE_SEED, MQKIT_HOSTILE_ROUNDS),
// or `fallback`: the suite runs a short campaign, a longer one is a variable away.
inline std::uint64_t campaign_setting(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

}  // namespace mqkit::testing
