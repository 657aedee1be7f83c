#include "send_window.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;

SendWindow::Clock::time_point in(milliseconds ms) { return SendWindow::Clock::now() + ms; }

TEST(SendWindowTest, BoundsMessagesInFlight) {
  SendWindow window(2, 1 << 20);
  EXPECT_TRUE(window.acquire(10, in(milliseconds(0))).is_ok());
  EXPECT_TRUE(window.acquire(10, in(milliseconds(0))).is_ok());
  const Status full = window.acquire(10, in(milliseconds(20)));
  EXPECT_EQ(full.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("window full"), std::string::npos);
  window.release(10);
  EXPECT_TRUE(window.acquire(10, in(milliseconds(0))).is_ok());
  EXPECT_EQ(window.messages_in_flight(), 2u);
  EXPECT_EQ(window.bytes_in_flight(), 20u);
}

TEST(SendWindowTest, BoundsBytesButAdmitsOneOversizedMessage) {
  SendWindow window(100, 1000);
  EXPECT_TRUE(window.acquire(5000, in(milliseconds(0))).is_ok());  // alone in the window
  EXPECT_FALSE(window.acquire(1, in(milliseconds(10))).is_ok());
  window.release(5000);
  EXPECT_TRUE(window.acquire(600, in(milliseconds(0))).is_ok());
  EXPECT_FALSE(window.acquire(600, in(milliseconds(10))).is_ok());
  EXPECT_TRUE(window.acquire(400, in(milliseconds(0))).is_ok());
}

TEST(SendWindowTest, WaitingSenderGetsRoomWhenAResponseArrives) {
  SendWindow window(1, 1000);
  ASSERT_TRUE(window.acquire(1, in(milliseconds(0))).is_ok());
  std::thread responder([&] {
    std::this_thread::sleep_for(milliseconds(20));
    window.release(1);
  });
  EXPECT_TRUE(window.acquire(1, in(milliseconds(10000))).is_ok());
  responder.join();
  EXPECT_FALSE(window.wait_until_empty(in(milliseconds(10))));
  window.release(1);
  EXPECT_TRUE(window.wait_until_empty(in(milliseconds(0))));
}

TEST(SendWindowTest, WaitingSenderIsWokenOnceAQuarterOfTheWindowIsFree) {
  SendWindow window(8, 1 << 20);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(window.acquire(1, in(milliseconds(0))).is_ok());
  // At its deadline a waiter looks once more and finds room anyway, so what shows a missed
  // wake-up is the time it took.
  const auto deadline = in(milliseconds(5000));
  Status got = Status::internal("not yet");
  SendWindow::Clock::time_point done;
  std::thread sender([&] {
    got = window.acquire(1, deadline);
    done = SendWindow::Clock::now();
  });
  std::this_thread::sleep_for(milliseconds(20));  // the sender is (most likely) waiting by now
  window.release(1);
  window.release(1);  // 6 of 8 in flight: a quarter is free, the sender must be woken
  sender.join();
  EXPECT_TRUE(got.is_ok()) << got.to_string();
  EXPECT_LT(done, deadline - milliseconds(2500)) << "the waiting sender was not woken";
  EXPECT_EQ(window.messages_in_flight(), 7u);
}

TEST(SendWindowTest, ByteWaiterIsWokenAsBytesDrain) {
  SendWindow window(100, 1000);
  ASSERT_TRUE(window.acquire(500, in(milliseconds(0))).is_ok());
  ASSERT_TRUE(window.acquire(500, in(milliseconds(0))).is_ok());
  const auto deadline = in(milliseconds(5000));
  Status got = Status::internal("not yet");
  SendWindow::Clock::time_point done;
  std::thread sender([&] {
    got = window.acquire(400, deadline);
    done = SendWindow::Clock::now();
  });
  std::this_thread::sleep_for(milliseconds(20));
  window.release(500);  // 500 of 1000 bytes left: room for 400
  sender.join();
  EXPECT_TRUE(got.is_ok()) << got.to_string();
  EXPECT_LT(done, deadline - milliseconds(2500)) << "the waiting sender was not woken";
}

}  // namespace
}  // namespace mqkit::client
