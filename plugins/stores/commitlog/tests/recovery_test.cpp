// Recovery through the whole store: clean restarts, crashes (a store stopped as a killed process
// would be), torn and corrupt tails, lost or damaged consume queues, the directory lock.
#include <gtest/gtest.h>

#include <fstream>

#include "big_endian.hpp"
#include "checkpoint.hpp"
#include "fault_env.hpp"
#include "mapped_file.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

class RecoveryTest : public ::testing::Test {
 protected:
  RecoveryTest() : options_(small_options(dir_.path())) {}

  // Appends `count` messages to T/0 and T/1 alternately; returns their results.
  std::vector<v1::AppendResult> fill(TestStore& store, int count, const std::string& prefix = "m") {
    std::vector<v1::AppendResult> placed;
    for (int i = 0; i < count; ++i) {
      Message m = message("T", i % 2, prefix + std::to_string(i));
      m.keys("key-" + prefix + std::to_string(i));
      auto result = store.append(m);
      EXPECT_TRUE(result.is_ok()) << result.status().to_string();
      placed.push_back(result.value_or(v1::AppendResult{}));
    }
    return placed;
  }
  std::vector<std::string> expected(int count, int queue, const std::string& prefix = "m") {
    std::vector<std::string> out;
    for (int i = queue; i < count; i += 2) out.push_back(prefix + std::to_string(i));
    return out;
  }

  TempDir dir_;
  StoreOptions options_;
};

TEST_F(RecoveryTest, CleanShutdownRecoversFastFromTheCheckpoint) {
  std::int64_t end = 0;
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    fill(store, 40);
    ASSERT_TRUE(store.wait_dispatched());
    end = store.store().stats().commit_log_max_offset;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "abort")) << "removed at clean shutdown";
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->clean_shutdown);
  EXPECT_EQ(report->commit_log_max_offset, end);
  EXPECT_EQ(report->truncated_bytes, 0);
  EXPECT_EQ(report->dispatch_from_offset, end) << "nothing to re-dispatch";
  EXPECT_TRUE(store.host().logged({"clean shutdown", "scanned 0 records"}));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "abort")) << "present while running";
  EXPECT_EQ(store.bodies("T", 0), expected(40, 0));
  EXPECT_EQ(store.append(message("T", 0, "next")).value().queue_offset, 20);
}

TEST_F(RecoveryTest, CrashKeepsEverythingWrittenAndRebuildsWhatLags) {
  std::int64_t end = 0;
  options_.flush_consume_queue_thorough_interval = std::chrono::hours(1);  // checkpoints by hand only
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    fill(store, 30);
    ASSERT_TRUE(store.wait_dispatched());
    ASSERT_TRUE(store.store().write_checkpoint_now().is_ok());
    // These are written but their dispatch is never checkpointed.
    fill(store, 30, "late");
    end = store.store().stats().commit_log_max_offset;
    ASSERT_TRUE(store.wait_committed());
    store.crash();
  }
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_FALSE(report->clean_shutdown);
  EXPECT_EQ(report->commit_log_max_offset, end);
  EXPECT_LT(report->dispatch_from_offset, end);
  ASSERT_TRUE(store.wait_dispatched());
  auto queue0 = expected(30, 0);
  for (const auto& body : expected(30, 0, "late")) queue0.push_back(body);
  EXPECT_EQ(store.bodies("T", 0), queue0);
  EXPECT_EQ(store.store().max_offset("T", 0), 30);
  EXPECT_EQ(store.append(message("T", 1, "after")).value().queue_offset, 30) << "queue offsets continue";
  auto found = store.store().query_by_key("T", "key-late7", 10, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(found.is_ok());
  ASSERT_EQ(found->records.size(), 1u) << "re-dispatch indexed what the crash left unindexed, once";
  EXPECT_EQ(body_of(found->records[0]), "late7");
}

TEST_F(RecoveryTest, QueueOffsetsContinueEvenBeforeRedispatch) {
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open(/*dispatch=*/false).is_ok());
    fill(store, 10);
    ASSERT_TRUE(store.wait_committed());
    store.crash();
  }
  TestStore store(options_);
  ASSERT_TRUE(store.open(/*dispatch=*/false).is_ok());
  EXPECT_EQ(store.append(message("T", 0, "m10")).value().queue_offset, 5)
      << "the offset table is rebuilt from the scanned records, not only from consume queues";
  store.pipeline().start(store.recovery().dispatch_from_offset);
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), (std::vector<std::string>{"m0", "m2", "m4", "m6", "m8", "m10"}));
}

TEST_F(RecoveryTest, ATornRecordIsCutOff) {
  std::vector<v1::AppendResult> placed;
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    placed = fill(store, 10);
    ASSERT_TRUE(store.wait_dispatched());
    store.crash();
  }
  // The last record lost its size field, as when the process died in the middle of copying it.
  const auto& last = placed.back();
  const std::uint8_t zeros[4] = {};
  patch_file(dir_ / "commitlog/00000000000000000000", last.commit_offset, zeros);
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->commit_log_max_offset, last.commit_offset);
  EXPECT_EQ(report->truncated_bytes, last.bytes) << "the torn record, up to its last written byte";
  EXPECT_TRUE(store.host().logged({"cutting the commit log at", "00000000000000000000 at byte " +
                                       std::to_string(last.commit_offset), "not completely written"}));
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 1), (std::vector<std::string>{"m1", "m3", "m5", "m7"}));
  EXPECT_EQ(store.store().max_offset("T", 1), 4) << "the unit of the cut record is gone too";
  EXPECT_EQ(store.append(message("T", 1, "again")).value().commit_offset, last.commit_offset);
}

TEST_F(RecoveryTest, AFlippedByteDropsTheRecordAndEverythingAfter) {
  std::vector<v1::AppendResult> placed;
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    placed = fill(store, 10);
    ASSERT_TRUE(store.wait_committed());
    store.crash();
  }
  // Flip a byte in the body of record 6: its CRC no longer matches.
  const auto& victim = placed[6];
  auto bytes = read_file(dir_ / "commitlog/00000000000000000000");
  const std::uint8_t flipped[1] = {static_cast<std::uint8_t>(bytes[static_cast<std::size_t>(victim.commit_offset + 88)] ^ 0x01)};
  patch_file(dir_ / "commitlog/00000000000000000000", victim.commit_offset + 88, flipped);
  std::filesystem::remove(dir_ / "checkpoint");  // force a scan from the first file
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->commit_log_max_offset, victim.commit_offset);
  EXPECT_GT(report->truncated_bytes, 0);
  EXPECT_TRUE(store.host().logged({"cutting the commit log", "commit offset " + std::to_string(victim.commit_offset),
                                   "body CRC mismatch"}));
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), (std::vector<std::string>{"m0", "m2", "m4"}));
  EXPECT_EQ(store.bodies("T", 1), (std::vector<std::string>{"m1", "m3", "m5"}));
}

TEST_F(RecoveryTest, ALostConsumeQueueDirectoryIsRebuilt) {
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    fill(store, 600);  // several commit log and consume queue files
    ASSERT_TRUE(store.wait_dispatched());
    ASSERT_GT(store.store().stats().commit_log_max_offset, options_.commit_log_file_size);
  }
  std::filesystem::remove_all(dir_ / "consumequeue");
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->dispatch_from_offset, 0) << "full re-dispatch";
  EXPECT_TRUE(store.host().logged({"consumequeue directory is missing"}));
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), expected(600, 0));
  EXPECT_EQ(store.bodies("T", 1), expected(600, 1));
}

TEST_F(RecoveryTest, ADamagedConsumeQueueIsRebuiltFromTheCommitLog) {
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    fill(store, 40);
    ASSERT_TRUE(store.wait_dispatched());
  }
  // Garbage over unit 3 of T/0's last file (20 units: files of 64 units hold them all).
  const std::uint8_t garbage[20] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  patch_file(dir_ / "consumequeue/T/0/00000000000000000000", 3 * 20, garbage);
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(store.host().logged({"consume queue T/0", "unit 3"}));
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), expected(40, 0));
  EXPECT_EQ(store.store().max_offset("T", 0), 20);
}

TEST_F(RecoveryTest, AMissingCheckpointMeansAFullRebuild) {
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    fill(store, 20);
    ASSERT_TRUE(store.wait_dispatched());
  }
  std::filesystem::remove(dir_ / "checkpoint");
  std::filesystem::remove_all(dir_ / "consumequeue/T/1");
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->dispatch_from_offset, 0);
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 1), expected(20, 1)) << "a lost queue comes back from the commit log";
}

TEST_F(RecoveryTest, ACheckpointPastTheLogIsNotTrusted) {
  std::int64_t end = 0;
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    fill(store, 600);
    ASSERT_TRUE(store.wait_dispatched());
    end = store.store().stats().commit_log_max_offset;
  }
  // The newest commit log file is gone (removed by hand): the checkpoint points past the log.
  const std::int64_t last_start = end / options_.commit_log_file_size * options_.commit_log_file_size;
  ASSERT_GT(last_start, 0);
  for (const auto& name : list_dir(dir_ / "commitlog")) {
    if (name >= offset_file_name(last_start)) std::filesystem::remove(dir_ / ("commitlog/" + name));
  }
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(store.host().logged({"past the last commit log file"}));
  EXPECT_EQ(report->dispatch_from_offset, 0);
  ASSERT_TRUE(store.wait_dispatched());
  const auto bodies = store.bodies("T", 0);
  ASSERT_FALSE(bodies.empty());
  EXPECT_EQ(bodies.front(), "m0");
  EXPECT_EQ(store.store().max_offset("T", 0), static_cast<std::int64_t>(bodies.size()))
      << "units of the lost file are dropped, the rest is readable";
}

TEST_F(RecoveryTest, TheLockKeepsASecondStoreOut) {
  TestStore first(options_);
  ASSERT_TRUE(first.open().is_ok());
  TestStore second(options_);
  auto refused = second.open();
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), v1::StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("already open"), std::string::npos) << refused.status().to_string();
  first.close();
  TestStore third(options_);
  EXPECT_TRUE(third.open().is_ok()) << "released at shutdown";
}

TEST_F(RecoveryTest, RecoveryAcrossManyFilesAndABlankAtTheEnd) {
  std::int64_t end = 0;
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(store.append(message("T", 0, std::string(500, 'a' + i % 26))).is_ok());
    end = store.store().stats().commit_log_max_offset;
    ASSERT_TRUE(store.wait_committed());
    store.crash();
  }
  std::filesystem::remove(dir_ / "checkpoint");
  TestStore store(options_);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->commit_log_max_offset, end);
  EXPECT_EQ(report->truncated_bytes, 0);
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.store().max_offset("T", 0), 300);
}

TEST_F(RecoveryTest, ACrashInAPartlyReservedFileRecoversAndTheFileKeepsGrowing) {
  options_.commit_log_file_size = 1 << 20;  // reserved in 64 KiB chunks
  options_.commit_log_warm_ahead = 0;       // warming reserves ahead of the writer too
  const std::string first_file = dir_ / "commitlog/00000000000000000000";
  const auto allocated = [&] { return allocated_bytes(first_file); };
  std::vector<std::string> bodies;
  std::int64_t end = 0;
  {
    TestStore store(options_);
    ASSERT_TRUE(store.open().is_ok());
    for (int i = 0; i < 300; ++i) {
      bodies.push_back(std::string(500, 'a' + i % 26) + std::to_string(i));
      ASSERT_TRUE(store.append(message("T", 0, bodies.back())).is_ok());
    }
    end = store.store().stats().commit_log_max_offset;
    ASSERT_TRUE(store.wait_committed());
    store.crash();
  }
  EXPECT_EQ(std::filesystem::file_size(first_file), static_cast<std::uintmax_t>(1 << 20));
  EXPECT_GE(allocated(), end);
  EXPECT_LT(allocated(), (1 << 20) / 2) << "the crash left a file reserved only part of the way";
  {
    TestStore store(options_);
    auto report = store.open();
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    EXPECT_FALSE(report->clean_shutdown);
    EXPECT_EQ(report->commit_log_max_offset, end);
    EXPECT_EQ(report->truncated_bytes, 0);
    for (int i = 300; i < 1500; ++i) {
      bodies.push_back(std::string(500, 'a' + i % 26) + std::to_string(i));
      ASSERT_TRUE(store.append(message("T", 0, bodies.back())).is_ok());
    }
    ASSERT_TRUE(store.wait_dispatched());
    EXPECT_EQ(store.bodies("T", 0), bodies);
    end = store.store().stats().commit_log_max_offset;
    ASSERT_LT(end, 1 << 20) << "still in the first file";
  }
  EXPECT_GE(allocated(), end) << "reservation went on past what the crash left";
  TestStore store(options_);
  ASSERT_TRUE(store.open().is_ok());
  EXPECT_TRUE(store.recovery().clean_shutdown);
  EXPECT_EQ(store.bodies("T", 0), bodies);
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

TEST(CheckpointTest, LayoutKeepsRocketMqFieldsFirst) {
  TempDir dir;
  auto env = posix_env();
  CheckpointData data;
  data.physic_msg_timestamp = 1111;
  data.logics_msg_timestamp = 2222;
  data.index_msg_timestamp = 3333;
  data.physic_offset = 4444;
  data.logics_offset = 5555;
  data.index_offset = 6666;
  ASSERT_TRUE(write_checkpoint(*env, dir / "checkpoint", data).is_ok());
  const auto bytes = read_file(dir / "checkpoint");
  ASSERT_EQ(bytes.size(), 4096u);
  EXPECT_EQ(load_i64(bytes.data()), 1111);
  EXPECT_EQ(load_i64(bytes.data() + 8), 2222);
  EXPECT_EQ(load_i64(bytes.data() + 16), 3333);
  EXPECT_EQ(load_i64(bytes.data() + 24), 0) << "5.x masterFlushedOffset";
  EXPECT_EQ(load_i32(bytes.data() + 40), 0x4D514B43);
  EXPECT_EQ(load_i64(bytes.data() + 48), 4444);
  EXPECT_EQ(load_i64(bytes.data() + 56), 5555);
  EXPECT_EQ(load_i64(bytes.data() + 64), 6666);
  const auto read = read_checkpoint(*env, dir / "checkpoint");
  ASSERT_TRUE(read.is_ok() && read->has_value());
  EXPECT_TRUE((*read)->has_offsets);
  EXPECT_EQ((*read)->logics_offset, 5555);

  const std::uint8_t flipped[1] = {0x01};
  patch_file(dir / "checkpoint", 60, flipped);
  EXPECT_EQ(read_checkpoint(*env, dir / "checkpoint").status().code(), v1::StatusCode::kCorruption);

  // A checkpoint RocketMQ wrote: timestamps only.
  std::vector<std::uint8_t> rocketmq(4096, 0);
  store_i64(rocketmq.data(), 1111);
  store_i64(rocketmq.data() + 8, 2222);
  std::filesystem::remove(dir / "checkpoint");
  std::ofstream(dir / "checkpoint", std::ios::binary).write(reinterpret_cast<const char*>(rocketmq.data()), 4096);
  const auto legacy = read_checkpoint(*env, dir / "checkpoint");
  ASSERT_TRUE(legacy.is_ok() && legacy->has_value());
  EXPECT_FALSE((*legacy)->has_offsets);
  EXPECT_EQ((*legacy)->logics_msg_timestamp, 2222);
  EXPECT_FALSE(read_checkpoint(*env, dir / "missing").value().has_value());
}

TEST(CheckpointTest, ARocketMqCheckpointAfterACrashUsesTheTimestampRule) {
  TempDir dir;
  auto options = small_options(dir.path());
  auto env = std::make_shared<FaultEnv>();
  std::vector<v1::AppendResult> placed;
  std::int64_t clock = 1'700'000'000'000;
  {
    TestStore store(options, env);
    ASSERT_TRUE(store.open().is_ok());
    // One minute per message: each commit log file's first record has a distinct, known time.
    for (int i = 0; i < 600; ++i) {
      env->set_now_ms(clock + 60'000LL * i);
      placed.push_back(store.append(message("T", 0, "m" + std::to_string(i) + std::string(300, '.'))).value());
    }
    ASSERT_TRUE(store.wait_dispatched());
    store.crash();
  }
  // Replace the checkpoint with RocketMQ's: it says record 400 was the last one flushed.
  std::vector<std::uint8_t> rocketmq(4096, 0);
  store_i64(rocketmq.data(), placed[400].store_timestamp);
  store_i64(rocketmq.data() + 8, placed[400].store_timestamp);
  store_i64(rocketmq.data() + 16, placed[400].store_timestamp);
  std::ofstream(dir / "checkpoint", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(rocketmq.data()), 4096);
  TestStore store(options, env);
  auto report = store.open();
  ASSERT_TRUE(report.is_ok());
  // The scan starts at the newest file whose first record is at least 3 s older than that.
  const std::int64_t file_size = options.commit_log_file_size;
  std::int64_t expected = 0;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const bool first_in_file = i == 0 || placed[i].commit_offset / file_size != placed[i - 1].commit_offset / file_size;
    if (first_in_file && placed[i].store_timestamp <= placed[400].store_timestamp - 3000) {
      expected = placed[i].commit_offset / file_size * file_size;
    }
  }
  ASSERT_GT(expected, 0);
  EXPECT_EQ(report->dispatch_from_offset, expected);
  EXPECT_TRUE(store.host().logged({"crash, RocketMQ checkpoint"}));
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.store().max_offset("T", 0), 600);
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
