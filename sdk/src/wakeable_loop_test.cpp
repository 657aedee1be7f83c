#include "wakeable_loop.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace mqkit::client {
namespace {

using namespace std::chrono_literals;

bool within(const std::atomic<int>& runs, int wanted, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (runs.load() < wanted && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  return runs.load() >= wanted;
}

TEST(WakeableLoopTest, WakeAfterBringsTheNextRunForward) {
  std::atomic<int> runs{0};
  WakeableLoop loop("test-loop", std::chrono::hours(1), [&] { ++runs; });
  loop.start();
  loop.wake_after(50ms);
  EXPECT_TRUE(within(runs, 1, 10s)) << "the run waited for the hour-long interval";
  loop.wake_after(20ms);  // once more: each wake_after is one earlier run
  EXPECT_TRUE(within(runs, 2, 10s));
  loop.stop();
}

TEST(WakeableLoopTest, WakeAfterNeverDelaysTheInterval) {
  std::atomic<int> runs{0};
  WakeableLoop loop("test-loop", 30ms, [&] { ++runs; });
  loop.start();
  loop.wake_after(std::chrono::hours(1));
  EXPECT_TRUE(within(runs, 3, 10s)) << "a later wake_after held the regular runs back";
  loop.stop();
}

TEST(WakeableLoopTest, StopEndsAWaitForALateRun) {
  std::atomic<int> runs{0};
  WakeableLoop loop("test-loop", std::chrono::hours(1), [&] { ++runs; });
  loop.start();
  loop.wake_after(std::chrono::hours(1));
  loop.stop();  // returns without waiting for either
  EXPECT_EQ(runs.load(), 0);
}

}  // namespace
}  // namespace mqkit::client
