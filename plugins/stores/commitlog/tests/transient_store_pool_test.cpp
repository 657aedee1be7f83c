// The transient store pool: the ring itself, the commit log writing through it (dispatch sees
// bytes only once committed, lookups by commit offset find them before, blanks leave file tails
// zero, batches larger than the pool go straight to the file) and the store's commit service (shutdown commits and flushes all, a
// crash loses only what was not committed, a failed commit stops writes).
#include "transient_store_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "big_endian.hpp"
#include "commit_log.hpp"
#include "fault_env.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

TEST(TransientStorePoolTest, BuffersAreCappedAndBytesWrapAroundTheRing) {
  auto small = TransientStorePool::create(3, 4096);
  ASSERT_TRUE(small.is_ok());
  EXPECT_EQ((*small)->size(), 3 * 4096) << "a buffer is never larger than a commit log file";
  auto big = TransientStorePool::create(2, 1LL << 30);
  ASSERT_TRUE(big.is_ok());
  EXPECT_EQ((*big)->size(), 2 * TransientStorePool::kMaxBufferSize);

  auto& pool = **small;
  std::vector<std::uint8_t> bytes(100);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i + 1);
  const std::int64_t at = 6 * 4096 - 40;  // ring position 3 * 4096 - 40: 40 bytes before the end
  pool.put(at, bytes);
  const auto head = pool.view(at, 100);
  ASSERT_EQ(head.size(), 40u) << "a view stops where the ring wraps";
  EXPECT_TRUE(std::equal(head.begin(), head.end(), bytes.begin()));
  const auto tail = pool.view(at + 40, 60);
  ASSERT_EQ(tail.size(), 60u);
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), bytes.begin() + 40));
  EXPECT_EQ(pool.view(9 * 4096, 1).data(), tail.data()) << "offsets 6 * 4096 and 9 * 4096 are ring position 0";
}

class CommitLogPoolTest : public ::testing::Test {
 protected:
  void open(std::int64_t file_size, std::int64_t buffers) {
    file_size_ = file_size;
    log_ = std::make_unique<CommitLog>(*env_, Logger(host_),
                                       CommitLogOptions{dir_ / "commitlog", file_size, 1 << 20, buffers});
    ASSERT_TRUE(log_->load().is_ok());
  }
  v1::AppendResult append(const Message& m) {
    const auto view = m.view();
    auto outcome = log_->append(std::span(&view, 1));
    EXPECT_TRUE(outcome.is_ok()) << outcome.status().to_string();
    return outcome.is_ok() ? outcome->result : v1::AppendResult{};
  }
  std::string file_name(std::int64_t start) { return dir_ / ("commitlog/" + offset_file_name(start)); }
  // Reads every record through the commit log from 0 and checks it against `placed`.
  void expect_readable(const std::vector<std::pair<v1::AppendResult, std::string>>& placed) {
    for (const auto& [result, body] : placed) {
      auto slice = log_->read_record(result.commit_offset);
      ASSERT_TRUE(slice.is_ok()) << slice.status().to_string();
      auto record = v1::decode_record(slice->bytes, v1::CrcCheck::kVerify);
      ASSERT_TRUE(record.is_ok()) << record.status().to_string();
      EXPECT_EQ(text(record->body), body);
    }
  }

  TempDir dir_;
  CapturingHost host_;
  std::shared_ptr<Env> env_ = posix_env();
  std::int64_t file_size_ = 0;
  std::unique_ptr<CommitLog> log_;
};

TEST_F(CommitLogPoolTest, BytesAreReadableOnlyOnceCommitted) {
  open(64 * 1024, 1);
  const auto a = append(message("T", 0, "first"));
  EXPECT_EQ(log_->written_offset(), a.bytes);
  EXPECT_EQ(log_->max_offset(), 0) << "nothing committed yet";
  auto early = log_->read_record(0);
  ASSERT_TRUE(early.is_ok()) << "looked up by commit offset, a record in the pool is found (a copy)";
  EXPECT_EQ(text(v1::decode_record(early->bytes, v1::CrcCheck::kVerify).value().body), "first");
  EXPECT_EQ(log_->read_record(1).status().code(), v1::StatusCode::kNotFound) << "inside a record";
  EXPECT_EQ(log_->read_record(a.bytes).status().code(), v1::StatusCode::kNotFound) << "past the end";
  auto chunk = log_->read_for_dispatch(0, 1 << 20);
  ASSERT_TRUE(chunk.is_ok());
  EXPECT_TRUE(chunk->bytes.bytes.empty()) << "dispatch does not see uncommitted bytes";
  const auto on_disk = read_file(file_name(0));
  EXPECT_TRUE(std::all_of(on_disk.begin(), on_disk.end(), [](std::uint8_t b) { return b == 0; }))
      << "the file holds nothing before the commit";

  EXPECT_FALSE(log_->commit(4).value()) << "fewer than 4 pages wait";
  EXPECT_EQ(log_->max_offset(), 0);
  EXPECT_TRUE(log_->commit(0).value());
  EXPECT_EQ(log_->max_offset(), a.bytes);
  expect_readable({{a, "first"}});
  const auto committed = read_file(file_name(0));
  EXPECT_EQ(load_i32(committed.data()), a.bytes) << "the record is in the file (pwrite), not only in the pool";
  EXPECT_FALSE(log_->commit(0).value()) << "nothing left";
}

TEST_F(CommitLogPoolTest, RingWrapsAndBlanksKeepTheFilesByteForByteAsWithoutThePool) {
  // One 64 KiB buffer for 64 KiB files: every file reuses the ring positions of the one before,
  // so a blank's file tail has the previous file's bytes at its ring positions.
  open(64 * 1024, 1);
  std::vector<std::pair<v1::AppendResult, std::string>> placed;
  for (int i = 0; i < 600; ++i) {
    const std::string body(200 + (i * 37) % 900, static_cast<char>('a' + i % 26));
    placed.push_back({append(message("T", i % 3, body)), body});
    if (i % 50 == 0) {
      ASSERT_TRUE(log_->commit(4).is_ok());
    }
  }
  ASSERT_TRUE(log_->commit(0).is_ok());
  EXPECT_EQ(log_->max_offset(), log_->written_offset());
  ASSERT_GT(log_->files().count(), 4u);
  expect_readable(placed);
  // Every full file ends with a blank followed by zeros only.
  for (const auto& file : log_->files().snapshot()) {
    if (file->end_offset() > log_->max_offset()) break;
    const auto bytes = read_file(file->path());
    std::int64_t at = 0;
    while (at + 8 <= file_size_ && load_i32(bytes.data() + at + 4) != v1::kBlankMagic) at += load_i32(bytes.data() + at);
    ASSERT_LT(at + 8, file_size_ + 1) << file->path() << " has no blank";
    EXPECT_EQ(load_i32(bytes.data() + at), file_size_ - at);
    EXPECT_TRUE(std::all_of(bytes.begin() + at + 8, bytes.end(), [](std::uint8_t b) { return b == 0; }))
        << file->path() << ": bytes after the blank";
  }
}

TEST_F(CommitLogPoolTest, TheRingWrapsInsideAFile) {
  // 8 MiB files and one 4 MiB buffer: commits are split where the ring wraps, mid-file.
  open(8LL << 20, 1);
  std::vector<std::pair<v1::AppendResult, std::string>> placed;
  for (int i = 0; placed.empty() || placed.back().first.commit_offset < (6LL << 20); ++i) {
    const std::string body(3000 + i % 1000, static_cast<char>('a' + i % 26));
    placed.push_back({append(message("T", 0, body)), body});
  }
  ASSERT_TRUE(log_->commit(0).is_ok());
  EXPECT_EQ(log_->files().count(), 1u);
  expect_readable(placed);
}

TEST_F(CommitLogPoolTest, ABatchLargerThanThePoolGoesStraightToTheFile) {
  // 16 MiB files, one 4 MiB buffer, a batch of 5 x 1 MB.
  open(16LL << 20, 1);
  const auto before = append(message("T", 0, "before"));
  std::vector<Message> batch;
  for (int i = 0; i < 5; ++i) batch.push_back(message("T", 1, std::string(1'000'000, static_cast<char>('0' + i))));
  std::vector<v1::MessageToAppend> views;
  for (const auto& m : batch) views.push_back(m.view());
  auto outcome = log_->append(views);
  ASSERT_TRUE(outcome.is_ok()) << outcome.status().to_string();
  EXPECT_GT(outcome->result.bytes, log_->pool()->size());
  EXPECT_EQ(log_->max_offset(), log_->written_offset()) << "the pool was emptied, the batch written directly";
  expect_readable({{before, "before"}});
  const std::int64_t record = outcome->result.bytes / 5;
  auto last = log_->read_record(outcome->result.commit_offset + 4 * record);
  ASSERT_TRUE(last.is_ok()) << last.status().to_string();
  EXPECT_EQ(text(v1::decode_record(last->bytes, v1::CrcCheck::kVerify).value().body), std::string(1'000'000, '4'));
  const auto after = append(message("T", 0, "after"));
  ASSERT_TRUE(log_->commit(0).is_ok());
  expect_readable({{after, "after"}});
}

TEST_F(CommitLogPoolTest, LookupsByCommitOffsetWhileWritingAndCommittingReturnWholeRecords) {
  open(64 * 1024, 1);  // one 64 KiB buffer: reused every 64 KiB, often while being read
  constexpr int kCount = 3000;
  std::vector<std::atomic<std::int64_t>> offsets(kCount);
  for (auto& offset : offsets) offset.store(-1);
  std::atomic<int> appended{0};
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < kCount; ++i) {
      offsets[static_cast<std::size_t>(i)].store(append(message("T", 0, "m" + std::to_string(i) + std::string(300, 'x'))).commit_offset);
      appended.store(i + 1);
    }
    done.store(true);
  });
  std::thread committer([&] {
    while (!done.load()) ASSERT_TRUE(log_->commit(0).is_ok());
  });
  int checked = 0;
  while (!done.load() || checked < 200) {
    const int n = appended.load();
    if (n == 0) continue;
    const int i = n - 1 - checked % std::min(n, 8);  // the newest records: mostly still in the pool
    auto slice = log_->read_record(offsets[static_cast<std::size_t>(i)].load());
    ASSERT_TRUE(slice.is_ok()) << slice.status().to_string();
    auto record = v1::decode_record(slice->bytes, v1::CrcCheck::kVerify);
    ASSERT_TRUE(record.is_ok()) << record.status().to_string();
    EXPECT_EQ(text(record->body), "m" + std::to_string(i) + std::string(300, 'x'));
    ++checked;
  }
  writer.join();
  committer.join();
  EXPECT_GE(checked, 200);
}

TEST_F(CommitLogPoolTest, AFailedCommitKeepsTheCommittedOffsetAndIsRemembered) {
  env_ = std::make_shared<FaultEnv>();
  open(64 * 1024, 1);
  const auto a = append(message("T", 0, "a"));
  ASSERT_TRUE(log_->commit(0).is_ok());
  static_cast<FaultEnv&>(*env_).fail_writes("commitlog/");
  append(message("T", 0, "b"));  // fits the blocks reserved with the first record: no allocation
  EXPECT_FALSE(log_->commit(0).is_ok());
  EXPECT_TRUE(log_->commit_failed());
  EXPECT_EQ(log_->max_offset(), a.bytes) << "nothing half-committed becomes readable";
  static_cast<FaultEnv&>(*env_).heal();
  EXPECT_TRUE(log_->commit(0).value()) << "a later commit may still succeed; the store has stopped writes by then";
}

class StorePoolTest : public ::testing::Test {
 protected:
  StorePoolTest() : options_(small_options(dir_.path())) {
    options_.transient_store_pool_enable = true;
    options_.transient_store_pool_size = 1;
  }
  // Nothing commits unless the store flushes (or the writer needs room).
  void no_background_commits() {
    options_.commit_interval_commit_log = options_.commit_commit_log_thorough_interval = std::chrono::minutes(1);
    options_.commit_commit_log_least_pages = 1'000'000;
  }
  TempDir dir_;
  StoreOptions options_;
};

TEST_F(StorePoolTest, ShutdownFlushesEverythingEvenWhenThePowerGoesRightAfter) {
  // Appends are committed before they are acknowledged; only shutdown's flush makes them durable.
  no_background_commits();
  options_.flush_commit_log_thorough_interval = std::chrono::minutes(1);
  std::vector<std::string> bodies;
  {
    auto env = std::make_shared<FaultEnv>(posix_env(), FaultEnv::PowerLoss::kLoseUnsynced);
    TestStore store(options_, env);
    ASSERT_TRUE(store.open().is_ok());
    for (int i = 0; i < 50; ++i) {
      bodies.push_back("m" + std::to_string(i));
      ASSERT_TRUE(store.append(message("T", 0, bodies.back())).is_ok());
    }
    EXPECT_EQ(store.store().stats().flushed_offset, 0) << "committed, not flushed";
    EXPECT_GE(store.store().stats().memory_bytes, 64 * 1024) << "the pool counts as the store's memory";
    store.close();
    EXPECT_EQ(env->pages_lost(), 0);
  }
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->clean_shutdown);
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), bodies);
}

TEST_F(StorePoolTest, AProcessCrashKeepsEveryAcknowledgedAppend) {
  no_background_commits();
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    ASSERT_TRUE(store.append(message("T", 0, "flushed")).is_ok());
    ASSERT_TRUE(store.store().flush().is_ok());
    // Acknowledged means committed to the file (page cache), not merely in the pool.
    ASSERT_TRUE(store.append(message("T", 0, "committed")).is_ok());
    EXPECT_GT(store.store().stats().commit_log_max_offset, store.store().stats().flushed_offset);
    store.crash();
  }
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_FALSE(report->clean_shutdown);
  EXPECT_EQ(report->truncated_bytes, 0);
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), (std::vector<std::string>{"flushed", "committed"}));
}

TEST_F(StorePoolTest, TheCommitServiceMakesAppendsReadableWithoutAFlush) {
  options_.flush_interval_commit_log = options_.flush_commit_log_thorough_interval = std::chrono::minutes(1);
  options_.flush_commit_log_least_pages = 1'000'000;
  TestStore store(options_);
  ASSERT_TRUE(store.open().is_ok());
  ASSERT_TRUE(store.append(message("T", 0, "one")).is_ok());
  ASSERT_TRUE(store.wait_committed()) << "within commit_commit_log_thorough_interval";
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), std::vector<std::string>{"one"});
  EXPECT_EQ(store.store().stats().flushed_offset, 0) << "committed is not flushed";
}

TEST_F(StorePoolTest, BackToBackAppendsAreEachAcknowledgedOnlyOnceCommitted) {
  // Appends that do not wait for each other: once they come back to back the commit service's
  // thread commits for them (streaming); each acknowledgement must still find its record in the
  // file. No background rounds: only the appenders and the streaming thread commit.
  no_background_commits();
  options_.transient_store_pool_size = 2;
  TestStore store(options_);
  ASSERT_TRUE(store.open().is_ok());
  constexpr int kAppends = 3000;
  std::vector<Message> messages;
  for (int i = 0; i < kAppends; ++i) messages.push_back(message("T", i % 2, "m" + std::to_string(i)));
  std::atomic<int> acknowledged{0};
  std::atomic<int> early{0};
  std::atomic<int> failed{0};
  for (const auto& m : messages) {
    const auto view = m.view();
    store.store().append(std::span(&view, 1), {}, [&](v1::Result<v1::AppendResult> result) {
      if (!result.is_ok()) {
        ++failed;
      } else if (auto chunk = store.store().read_for_dispatch(result->commit_offset, 1);
                 !chunk.is_ok() || chunk->bytes.bytes.empty()) {
        ++early;
      }
      ++acknowledged;
    });
  }
  ASSERT_TRUE(eventually([&] { return acknowledged.load() == kAppends; })) << acknowledged.load() << " acknowledged";
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(early.load(), 0) << "acknowledged before its record was committed";
  store.pipeline().notify_appended();
  ASSERT_TRUE(store.wait_dispatched());
  std::vector<std::string> even;
  for (int i = 0; i < kAppends; i += 2) even.push_back("m" + std::to_string(i));
  EXPECT_EQ(store.bodies("T", 0), even);
}

TEST_F(StorePoolTest, AFailedCommitWhileStreamingFailsWhatWaitsAndKeepsWhatWasAcknowledged) {
  // Back-to-back appends (streaming), and the disk starts failing halfway through: every append
  // is answered exactly once, none after the failure is acknowledged, and every acknowledged one
  // is in the file after the process dies.
  no_background_commits();
  std::vector<std::string> acknowledged;
  {
    auto env = std::make_shared<FaultEnv>();
    TestStore store(options_, env);
    ASSERT_TRUE(store.open().is_ok());
    constexpr int kAppends = 400;
    std::vector<Message> messages;
    for (int i = 0; i < kAppends; ++i) messages.push_back(message("T", 0, "m" + std::to_string(i)));
    std::vector<std::atomic<int>> outcome(kAppends);  // 0 pending, 1 acknowledged, 2 failed; +10 twice
    std::atomic<int> answered{0};
    for (int i = 0; i < kAppends; ++i) {
      if (i == kAppends / 2) env->fail_writes("commitlog/");
      const auto view = messages[static_cast<std::size_t>(i)].view();
      store.store().append(std::span(&view, 1), {}, [&, i](v1::Result<v1::AppendResult> result) {
        const int previous = outcome[static_cast<std::size_t>(i)].exchange(result.is_ok() ? 1 : 2);
        if (previous != 0) outcome[static_cast<std::size_t>(i)] = 10 + previous;
        ++answered;
      });
    }
    ASSERT_TRUE(eventually([&] { return answered.load() >= kAppends; })) << answered.load() << " answered";
    int failed = 0;
    for (int i = 0; i < kAppends; ++i) {
      const int state = outcome[static_cast<std::size_t>(i)].load();
      ASSERT_TRUE(state == 1 || state == 2) << "append " << i << " answered " << (state >= 10 ? "twice" : "never");
      if (state == 1) {
        EXPECT_LT(i, kAppends / 2) << "acknowledged after the disk failed";
        acknowledged.push_back("m" + std::to_string(i));
      } else {
        ++failed;
      }
    }
    EXPECT_GE(failed, kAppends / 2);
    EXPECT_FALSE(store.store().stats().writable);
    store.crash();
  }
  TestStore store(options_);
  ASSERT_TRUE(store.open().is_ok());
  ASSERT_TRUE(store.wait_dispatched());
  const auto stored = store.bodies("T", 0);
  ASSERT_GE(stored.size(), acknowledged.size());
  EXPECT_TRUE(std::equal(acknowledged.begin(), acknowledged.end(), stored.begin()))
      << "an acknowledged append is missing after the crash";
}

TEST_F(StorePoolTest, AFailedCommitStopsWrites) {
  auto env = std::make_shared<FaultEnv>();
  TestStore store(options_, env);
  ASSERT_TRUE(store.open().is_ok());
  ASSERT_TRUE(store.append(message("T", 0, "kept")).is_ok());
  ASSERT_TRUE(store.wait_committed());
  env->fail_writes("commitlog/");
  // Fits the blocks already reserved: written into the pool, then the commit fails the append.
  auto stuck = store.append(message("T", 0, "stuck"));
  ASSERT_FALSE(stuck.is_ok());
  EXPECT_EQ(stuck.status().code(), v1::StatusCode::kIoError) << stuck.status().to_string();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const auto reported = [&] { return store.host().logged({"committing the transient store pool", "injected"}); };
  while (!reported() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(reported()) << "the commit service reported the failed pwrite";
  EXPECT_FALSE(store.store().stats().writable);
  auto refused = store.append(message("T", 0, "refused"));
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), v1::StatusCode::kUnavailable);
  auto kept = store.store().read_at(0);
  ASSERT_TRUE(kept.is_ok());
  EXPECT_EQ(body_of(*kept), "kept");
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
