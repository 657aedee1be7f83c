// Power loss: FaultEnv models the page cache, so dropping a store without syncing loses what was
// not flushed — all of it, or a random subset of pages (the kernel wrote some back before the
// power went). What was acknowledged as durable must survive, and the store must come back
// consistent: contiguous queues of CRC-valid records, offsets that continue.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <map>
#include <thread>

#include "fault_env.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

constexpr int kQueues = 3;

std::string body_for(int queue, std::int64_t offset) {
  return std::to_string(queue) + ":" + std::to_string(offset) + std::string(static_cast<std::size_t>(offset % 300), '.');
}

// The message at `offset` of `queue`, keyed "k<queue>-<offset>".
Message numbered(int queue, std::int64_t offset) {
  Message m = message("T", queue, body_for(queue, offset));
  m.keys("k" + std::to_string(queue) + "-" + std::to_string(offset));
  return m;
}

// Reopens on the real file system and checks every queue; returns each queue's end.
std::map<int, std::int64_t> reopen_and_check(const StoreOptions& options) {
  std::map<int, std::int64_t> ends;
  TestStore store(options);
  auto report = store.open();
  EXPECT_TRUE(report.is_ok()) << report.status().to_string();
  if (!report.is_ok()) return ends;
  EXPECT_TRUE(store.wait_dispatched());
  for (int queue = 0; queue < kQueues; ++queue) {
    const auto bodies = store.bodies("T", queue);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      EXPECT_EQ(bodies[i], body_for(queue, static_cast<std::int64_t>(i))) << "queue " << queue << " offset " << i;
    }
    ends[queue] = static_cast<std::int64_t>(bodies.size());
    EXPECT_EQ(store.store().max_offset("T", queue), ends[queue]);
    // The newest surviving record is found by its key, once, whatever the index lost.
    if (ends[queue] > 0) {
      const std::string key = "k" + std::to_string(queue) + "-" + std::to_string(ends[queue] - 1);
      auto found = store.store().query_by_key("T", key, 8, 0, std::numeric_limits<std::int64_t>::max());
      EXPECT_TRUE(found.is_ok() && found->records.size() == 1) << key;
    }
    // New appends continue the queue where the surviving records end.
    auto next = store.append(numbered(queue, ends[queue]));
    EXPECT_TRUE(next.is_ok() && next->queue_offset == ends[queue]) << "queue " << queue;
  }
  return ends;
}

TEST(PowerLossTest, SyncFlushKeepsEveryAcknowledgedMessage) {
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    auto options = small_options(dir.path());
    options.flush_mode = FlushMode::kSync;
    std::map<int, std::int64_t> acknowledged;
    {
      auto env = std::make_shared<FaultEnv>(posix_env(), FaultEnv::PowerLoss::kRandomPages, seed);
      TestStore store(options, env);
      ASSERT_TRUE(store.open().is_ok());
      std::vector<std::thread> writers;
      std::mutex mutex;
      for (int queue = 0; queue < kQueues; ++queue) {
        writers.emplace_back([&, queue] {
          for (std::int64_t offset = 0; offset < 150; ++offset) {
            auto result = store.append(numbered(queue, offset));
            ASSERT_TRUE(result.is_ok()) << result.status().to_string();
            std::lock_guard lock(mutex);
            acknowledged[queue] = offset + 1;
          }
        });
      }
      for (auto& writer : writers) writer.join();
      store.crash();  // the mappings go unsynced: the power is gone
    }
    const auto ends = reopen_and_check(options);
    for (int queue = 0; queue < kQueues; ++queue) {
      EXPECT_GE(ends.at(queue), acknowledged[queue]) << "queue " << queue << " lost acknowledged messages";
    }
  }
}

TEST(PowerLossTest, AsyncFlushLosesExactlyTheUnflushedTail) {
  TempDir dir;
  auto options = small_options(dir.path());
  options.flush_commit_log_least_pages = 1'000'000;  // flush only when asked
  options.flush_commit_log_thorough_interval = std::chrono::hours(1);
  auto env = std::make_shared<FaultEnv>(posix_env(), FaultEnv::PowerLoss::kLoseUnsynced);
  {
    TestStore store(options, env);
    ASSERT_TRUE(store.open().is_ok());
    for (std::int64_t offset = 0; offset < 40; ++offset) {
      for (int queue = 0; queue < kQueues; ++queue) ASSERT_TRUE(store.append(numbered(queue, offset)).is_ok());
    }
    ASSERT_TRUE(store.store().flush().is_ok());
    for (std::int64_t offset = 40; offset < 60; ++offset) {
      for (int queue = 0; queue < kQueues; ++queue) ASSERT_TRUE(store.append(numbered(queue, offset)).is_ok());
    }
    ASSERT_TRUE(store.wait_dispatched());
    store.crash();
  }
  EXPECT_GT(env->pages_lost(), 0);
  const auto ends = reopen_and_check(options);
  for (int queue = 0; queue < kQueues; ++queue) {
    EXPECT_EQ(ends.at(queue), 40) << "what was flushed survives; the acknowledged but unflushed tail is lost";
  }
}

TEST(PowerLossTest, RandomlySurvivingPagesStillRecoverConsistently) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    auto options = small_options(dir.path());
    options.flush_commit_log_least_pages = 1'000'000;
    options.flush_commit_log_thorough_interval = std::chrono::hours(1);
    auto env = std::make_shared<FaultEnv>(posix_env(), FaultEnv::PowerLoss::kRandomPages, seed);
    constexpr std::int64_t kFlushed = 120;
    {
      TestStore store(options, env);
      ASSERT_TRUE(store.open().is_ok());
      for (std::int64_t offset = 0; offset < 300; ++offset) {
        for (int queue = 0; queue < kQueues; ++queue) ASSERT_TRUE(store.append(numbered(queue, offset)).is_ok());
        if (offset + 1 == kFlushed) {
          ASSERT_TRUE(store.store().flush().is_ok());
        }
      }
      ASSERT_TRUE(store.wait_dispatched());
      store.crash();
    }
    const auto ends = reopen_and_check(options);
    for (int queue = 0; queue < kQueues; ++queue) {
      EXPECT_GE(ends.at(queue), kFlushed) << "flushed records survive any power loss";
      EXPECT_LE(ends.at(queue), 300);
    }
  }
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
