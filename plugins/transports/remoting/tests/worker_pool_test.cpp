// The worker pool on its own: every job runs once, in order on one thread; stop() runs what was
// queued before it and refuses the rest.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "transports/remoting/log.hpp"
#include "transports/remoting/worker_pool.hpp"

namespace mqkit::plugins::transports::remoting {
namespace {

class QuietHost final : public v1::Host {
 public:
  void log(v1::LogLevel, std::string_view, std::string_view) noexcept override {}
  v1::Result<std::shared_ptr<void>> create_plugin(v1::Category, std::string_view) noexcept override {
    return v1::Status::not_supported("no nested plugins here");
  }
};

TEST(WorkerPool, OneThreadRunsEveryJobOnceInSubmissionOrder) {
  QuietHost host;
  Log log(host);
  std::mutex mutex;
  std::vector<int> ran;
  {
    WorkerPool pool(1, log);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(pool.submit([&, i](const JobContext&) {
        std::lock_guard lock(mutex);
        ran.push_back(i);
      }));
    }
  }  // the destructor stops the pool once the queued jobs have run
  ASSERT_EQ(ran.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(ran[static_cast<std::size_t>(i)], i);
}

TEST(WorkerPool, StopRunsWhatWasQueuedAndRefusesTheRest) {
  QuietHost host;
  Log log(host);
  std::atomic<int> ran{0};
  std::atomic<bool> release{false};
  WorkerPool pool(4, log);
  // Four jobs hold the threads until stop() has begun, so the others are still queued then.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(pool.submit([&](const JobContext&) {
      for (int spins = 0; !release.load() && spins < 10'000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++ran;
    }));
  }
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(pool.submit([&](const JobContext&) { ++ran; }));
  std::thread stopper([&] { pool.stop(); });
  // submit() refuses once stop() has begun; until then it may still queue (and so run) jobs.
  int accepted = 0;
  for (int tries = 0; tries < 10'000 && pool.submit([&](const JobContext&) { ++ran; }); ++tries) {
    ++accepted;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  release = true;
  stopper.join();
  EXPECT_EQ(ran.load(), 104 + accepted);
  EXPECT_FALSE(pool.submit([](const JobContext&) {}));
}

TEST(WorkerPool, FiguresCountTheQueuedRequestsAndTheOldestJobsWait) {
  QuietHost host;
  Log log(host);
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  WorkerPool pool(1, log);
  EXPECT_EQ(pool.figures().queued, 0);
  EXPECT_EQ(pool.figures().head_wait_ms, 0);
  // The one thread is held, so the jobs behind it wait in the queue.
  ASSERT_TRUE(pool.submit(
      [&](const JobContext&) {
        started = true;
        for (int spins = 0; !release.load() && spins < 10'000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      },
      1));
  for (int spins = 0; !started.load() && spins < 10'000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(started.load());
  ASSERT_TRUE(pool.submit([](const JobContext&) {}, 3));
  ASSERT_TRUE(pool.submit([](const JobContext&) {}, 2));
  ASSERT_TRUE(pool.submit([](const JobContext&) {}));  // no request: a channel-closed notice
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const auto waiting = pool.figures();
  EXPECT_EQ(waiting.queued, 5);
  EXPECT_GE(waiting.head_wait_ms, 30);
  EXPECT_LT(waiting.head_wait_ms, 60'000);
  release = true;
  pool.stop();
  EXPECT_EQ(pool.figures().queued, 0);
  EXPECT_EQ(pool.figures().head_wait_ms, 0);
}

}  // namespace
}  // namespace mqkit::plugins::transports::remoting
