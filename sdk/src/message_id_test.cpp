#include "mqkit/client/message_id.hpp"

#include <gtest/gtest.h>

#include <array>
#include <ctime>
#include <set>
#include <thread>
#include <vector>

namespace mqkit::client {
namespace {

// Local-time midnight of the first of the month `months_ahead` from the month of `ms`.
std::int64_t month_start_of(std::int64_t ms, int months_ahead = 0) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm t{};
  ::localtime_r(&seconds, &t);
  t.tm_mday = 1;
  t.tm_hour = t.tm_min = t.tm_sec = 0;
  t.tm_mon += months_ahead;
  t.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&t)) * 1000;
}

constexpr std::int64_t kNow = 1'700'000'000'000;  // 2023-11-14

TEST(UniqueIdTest, LayoutIsIpPidLoaderHashTimeCounter) {
  UniqueIdGenerator generator({10, 0, 0, 5}, 0x1234, 0xCAFEBABE);
  const std::string first = generator.next_at(kNow);
  const std::string second = generator.next_at(kNow);
  ASSERT_EQ(first.size(), 32u);
  EXPECT_EQ(first.substr(0, 20), "0A0000051234CAFEBABE");
  char expected_time[9];
  std::snprintf(expected_time, sizeof(expected_time), "%08X",
                static_cast<unsigned>(kNow - month_start_of(kNow)));
  EXPECT_EQ(first.substr(20, 8), expected_time);
  EXPECT_EQ(first.substr(28), "0000");
  EXPECT_EQ(second.substr(28), "0001");
  for (const char c : first) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')) << first;
}

TEST(UniqueIdTest, NextIntoWritesTheSameLayoutAsNext) {
  UniqueIdGenerator generator({10, 0, 0, 5}, 0x1234, 0xCAFEBABE);
  const std::string before = generator.next();
  std::array<char, kUniqueIdLength> written{};
  generator.next_into(written);
  const std::string after = generator.next();
  const std::string id(written.data(), written.size());
  EXPECT_EQ(id.substr(0, 20), "0A0000051234CAFEBABE");
  // The counter advances through next_into like through next.
  EXPECT_EQ(id.substr(28), "0001");
  EXPECT_EQ(after.substr(28), "0002");
  EXPECT_LE(before.substr(20, 8), id.substr(20, 8));
  EXPECT_LE(id.substr(20, 8), after.substr(20, 8));
}

TEST(UniqueIdTest, TimeRestartsAtEveryMonth) {
  UniqueIdGenerator generator({127, 0, 0, 1}, 1, 2);
  (void)generator.next_at(kNow);
  const std::int64_t next_month = month_start_of(kNow, 1);
  EXPECT_EQ(generator.next_at(next_month + 5).substr(20, 8), "00000005");
}

TEST(UniqueIdTest, ParsesBackIpPidAndTime) {
  UniqueIdGenerator generator({192, 168, 1, 20}, 4242, 7);
  const std::string id = generator.next_at(kNow);
  auto info = parse_unique_id(id, kNow + 60'000);
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->ip, "192.168.1.20");
  EXPECT_EQ(info->pid, 4242);
  EXPECT_EQ(info->time_ms, kNow);
  EXPECT_FALSE(parse_unique_id("XYZ", kNow).is_ok());
  EXPECT_FALSE(parse_unique_id(std::string(32, 'G'), kNow).is_ok());
}

TEST(UniqueIdTest, UniqueAcrossThreads) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::vector<std::string>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) made[t].push_back(new_unique_id());
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> all;
  for (const auto& ids : made) all.insert(ids.begin(), ids.end());
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace mqkit::client
