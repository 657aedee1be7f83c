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

// A sender blocked in acquire() on its own thread. At its deadline a waiter looks once more and
// finds room anyway, so what shows a missed wake-up is the time it took.
class WaitingSender {
 public:
  WaitingSender(SendWindow& window, std::size_t bytes) : deadline_(in(milliseconds(5000))) {
    thread_ = std::thread([this, &window, bytes] {
      got_ = window.acquire(bytes, deadline_);
      done_ = SendWindow::Clock::now();
    });
    std::this_thread::sleep_for(milliseconds(20));  // (most likely) waiting by now
  }
  ~WaitingSender() {
    if (thread_.joinable()) thread_.join();
  }
  WaitingSender(const WaitingSender&) = delete;
  WaitingSender& operator=(const WaitingSender&) = delete;
  void expect_woken() {
    thread_.join();
    EXPECT_TRUE(got_.is_ok()) << got_.to_string();
    EXPECT_LT(done_, deadline_ - milliseconds(2500)) << "the waiting sender was not woken";
  }

 private:
  const SendWindow::Clock::time_point deadline_;
  Status got_ = Status::internal("not yet");
  SendWindow::Clock::time_point done_;
  std::thread thread_;
};

TEST(SendWindowTest, WaitingSenderIsWokenOnceAQuarterOfTheWindowIsFree) {
  SendWindow window(8, 1 << 20);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(window.acquire(1, in(milliseconds(0))).is_ok());
  WaitingSender sender(window, 1);
  window.release(1);
  window.release(1);  // 6 of 8 in flight: a quarter is free, the sender must be woken
  sender.expect_woken();
  EXPECT_EQ(window.messages_in_flight(), 7u);
}

TEST(SendWindowTest, ByteWaiterIsWokenAsBytesDrain) {
  SendWindow window(100, 1000);
  ASSERT_TRUE(window.acquire(500, in(milliseconds(0))).is_ok());
  ASSERT_TRUE(window.acquire(500, in(milliseconds(0))).is_ok());
  WaitingSender sender(window, 400);
  window.release(500);  // 500 of 1000 bytes left: room for 400
  sender.expect_woken();
}

}  // namespace
}  // namespace mqkit::client
