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

}  // namespace
}  // namespace mqkit::client
