// Flush modes through the whole store: async flushing in the background, group commit sharing
// one flush among many waiting writers, the flush timeout, and WAIT=false.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fault_env.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

using namespace std::chrono_literals;

TEST(FlushTest, AsyncFlushCatchesUpInTheBackground) {
  TempDir dir;
  auto options = small_options(dir.path());
  options.flush_commit_log_least_pages = 1;
  TestStore store(options);
  ASSERT_TRUE(store.open().is_ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.append(message("T", 0, std::string(100, 'a'))).is_ok());
  const std::int64_t end = store.store().stats().commit_log_max_offset;
  EXPECT_TRUE(eventually([&] { return store.store().stats().flushed_offset == end; }))
      << "the thorough interval flushes even less than least_pages";
}

TEST(FlushTest, AsyncRoundsFlushOnlyWholeBlocksBehindTheWriter) {
  TempDir dir;
  auto options = small_options(dir.path());
  options.commit_log_file_size = 3 * kWriteBackBlock;
  options.flush_commit_log_least_pages = 1;
  options.flush_commit_log_thorough_interval = std::chrono::minutes(10);
  TestStore store(options);
  ASSERT_TRUE(store.open().is_ok());
  const std::string body(1000, 'b');
  while (store.store().stats().commit_log_max_offset < kWriteBackBlock + kWriteBackBlock / 2) {
    ASSERT_TRUE(store.append(message("T", 0, body)).is_ok());
  }
  EXPECT_TRUE(eventually([&] { return store.store().stats().flushed_offset == kWriteBackBlock; }))
      << "the first whole block is flushed by the periodic rounds";
  std::this_thread::sleep_for(100ms);  // several more rounds (every 20 ms)
  EXPECT_EQ(store.store().stats().flushed_offset, kWriteBackBlock)
      << "the block the writer is in is left to the thorough round";
  ASSERT_TRUE(store.store().flush().is_ok());
  EXPECT_EQ(store.store().stats().flushed_offset, store.store().stats().commit_log_max_offset)
      << "an explicit flush covers everything";
}

TEST(FlushTest, SyncFlushAcknowledgesOnlyDurableBytesAndSharesFlushes) {
  TempDir dir;
  auto env = std::make_shared<FaultEnv>();
  auto options = small_options(dir.path());
  options.flush_mode = FlushMode::kSync;
  options.commit_log_file_size = 1 << 20;
  TestStore store(options, env);
  ASSERT_TRUE(store.open().is_ok());
  // A slow disk: while one flush runs, many writers queue up behind it.
  env->set_sync_delay(5ms);
  const std::int64_t syncs_before = env->syncs();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  std::atomic<int> acknowledged{0};
  std::atomic<bool> ordered{true};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto result = store.append(message("T", t, "m" + std::to_string(i)));
        ASSERT_TRUE(result.is_ok()) << result.status().to_string();
        EXPECT_FALSE(result->flush_timed_out);
        // Acknowledged means durable: the flushed offset covers the record.
        if (store.store().stats().flushed_offset < result->commit_offset + result->bytes) ordered = false;
        ++acknowledged;
      }
    });
  }
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(acknowledged.load(), kThreads * kPerThread);
  EXPECT_TRUE(ordered.load()) << "a writer was called back before its bytes were flushed";
  const std::int64_t syncs = env->syncs() - syncs_before;
  EXPECT_LT(syncs, kThreads * kPerThread / 2) << "group commit shares one flush among waiting writers";
}

TEST(FlushTest, ASlowDiskTimesOutAsFlushDiskTimeout) {
  TempDir dir;
  auto env = std::make_shared<FaultEnv>();
  auto options = small_options(dir.path());
  options.flush_mode = FlushMode::kSync;
  options.sync_flush_timeout = 50ms;
  TestStore store(options, env);
  ASSERT_TRUE(store.open().is_ok());
  env->set_sync_delay(400ms);
  const auto started = std::chrono::steady_clock::now();
  auto result = store.append(message("T", 0, "slow"));
  const auto waited = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(result.is_ok()) << "stored, only the flush is late";
  EXPECT_TRUE(result->flush_timed_out);
  EXPECT_LT(waited, 350ms) << "the writer is answered at the timeout, not when the disk finishes";
  EXPECT_TRUE(store.host().logged({"FLUSH_DISK_TIMEOUT"}));

  // WAIT=false: acknowledged at once even in SYNC_FLUSH.
  v1::AppendOptions no_wait;
  no_wait.wait_for_flush = false;
  const auto quick_start = std::chrono::steady_clock::now();
  auto quick = store.append(message("T", 0, "no wait"), no_wait);
  ASSERT_TRUE(quick.is_ok());
  EXPECT_FALSE(quick->flush_timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - quick_start, 100ms);
  env->set_sync_delay(0ms);
  EXPECT_TRUE(eventually([&] {
    return store.store().stats().flushed_offset == store.store().stats().commit_log_max_offset;
  })) << "bytes that nobody waited for are flushed on the group commit's beat";
}

TEST(FlushTest, ShutdownAnswersWaitingWritersOnce) {
  TempDir dir;
  auto env = std::make_shared<FaultEnv>();
  auto options = small_options(dir.path());
  options.flush_mode = FlushMode::kSync;
  TestStore store(options, env);
  ASSERT_TRUE(store.open().is_ok());
  env->set_sync_delay(100ms);
  std::atomic<int> calls{0};
  const Message pending = message("T", 0, "pending");
  const auto view = pending.view();
  store.store().append(std::span(&view, 1), {}, [&](v1::Result<v1::AppendResult> result) {
    EXPECT_TRUE(result.is_ok()) << result.status().to_string();
    ++calls;
  });
  store.close();
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
