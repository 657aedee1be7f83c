#include "consume_queue.hpp"

#include <gtest/gtest.h>

#include "big_endian.hpp"
#include "consume_queue_set.hpp"
#include "fault_env.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

constexpr std::int64_t kUnitsPerFile = 8;

class ConsumeQueueTest : public ::testing::Test {
 protected:
  std::unique_ptr<ConsumeQueue> make() {
    return std::make_unique<ConsumeQueue>(*env_, Logger(host_), "T", 3, dir_ / "T/3", kUnitsPerFile * kUnitSize);
  }
  // Unit i points at commit offset 100 * (i + 1), size 50.
  static ConsumeQueueUnit unit(std::int64_t i) { return {100 * (i + 1), 50, 7 * i}; }

  TempDir dir_;
  CapturingHost host_;
  std::shared_ptr<Env> env_ = posix_env();
};

TEST_F(ConsumeQueueTest, UnitsAreTwentyBigEndianBytesInNamedFiles) {
  auto queue = make();
  for (std::int64_t i = 0; i < 10; ++i) ASSERT_TRUE(queue->put(i, unit(i)).is_ok());
  EXPECT_EQ(queue->max_offset(), 10);
  EXPECT_EQ(list_dir(dir_ / "T/3"), (std::vector<std::string>{"00000000000000000000", "00000000000000000160"}))
      << "files are named by the byte offset of their first unit";
  const auto bytes = read_file(dir_ / "T/3/00000000000000000000");
  EXPECT_EQ(load_i64(bytes.data() + 20), 200);
  EXPECT_EQ(load_i32(bytes.data() + 28), 50);
  EXPECT_EQ(load_i64(bytes.data() + 32), 7);
  EXPECT_EQ(queue->unit(9).value().commit_offset, 1000);
  EXPECT_FALSE(queue->unit(10).is_ok());
  const UnitRun run = queue->units(6, 100);
  EXPECT_EQ(run.count, 2) << "a run stays within one file";
  EXPECT_EQ(run.at(1).commit_offset, 800);
  EXPECT_EQ(queue->last_commit_end(), 1050);
}

TEST_F(ConsumeQueueTest, AFreshQueueTakesAPageOfDiskNotItsFileSize) {
  constexpr std::int64_t kDefaultFileSize = 300'000 * kUnitSize;  // mapped_file_size_consume_queue's default
  ConsumeQueue queue(*env_, Logger(host_), "T", 3, dir_ / "T/3", kDefaultFileSize);
  ASSERT_TRUE(queue.put(0, unit(0)).is_ok());
  const std::string path = dir_ / "T/3/00000000000000000000";
  EXPECT_EQ(std::filesystem::file_size(path), static_cast<std::uintmax_t>(kDefaultFileSize))
      << "the nominal size RocketMQ expects";
  EXPECT_LE(allocated_bytes(path), 8192) << "but only the first page is on disk";
  for (std::int64_t i = 1; i < 10'000; ++i) ASSERT_TRUE(queue.put(i, unit(i)).is_ok());
  EXPECT_LT(allocated_bytes(path), 10'000 * kUnitSize + 128 * 1024) << "blocks follow the units written";
  EXPECT_EQ(queue.unit(9'999).value().commit_offset, unit(9'999).commit_offset);
}

TEST_F(ConsumeQueueTest, AFullDiskStopsPutWithAnErrorNotACrash) {
  auto env = std::make_shared<FaultEnv>();
  ConsumeQueue queue(*env, Logger(host_), "T", 3, dir_ / "T/3", 300'000 * kUnitSize);
  std::int64_t i = 0;
  for (; i < 10'000; ++i) {
    if (i == 100) env->set_disk_full(true);
    auto put = queue.put(i, unit(i));
    if (!put.is_ok()) {
      EXPECT_NE(put.message().find("No space left on device"), std::string::npos) << put.to_string();
      break;
    }
  }
  EXPECT_GT(i, 100) << "units within the reserved page still go in";
  EXPECT_LT(i, 10'000) << "the first unit past the reservation fails";
  EXPECT_EQ(queue.max_offset(), i);
  env->heal();
  ASSERT_TRUE(queue.put(i, unit(i)).is_ok());
  EXPECT_EQ(queue.unit(i).value().commit_offset, unit(i).commit_offset);
}

TEST_F(ConsumeQueueTest, PuttingAUnitTwiceChangesNothing) {
  auto queue = make();
  for (std::int64_t i = 0; i < 5; ++i) ASSERT_TRUE(queue->put(i, unit(i)).is_ok());
  const auto before = read_file(dir_ / "T/3/00000000000000000000");
  for (std::int64_t i = 0; i < 5; ++i) ASSERT_TRUE(queue->put(i, unit(i)).is_ok());
  EXPECT_EQ(read_file(dir_ / "T/3/00000000000000000000"), before);
  EXPECT_EQ(queue->max_offset(), 5);
  EXPECT_FALSE(host_.logged({"rewriting"}));
}

TEST_F(ConsumeQueueTest, RecoverFindsTheEndAndDropsUnitsPastTheCommitLog) {
  {
    auto queue = make();
    for (std::int64_t i = 0; i < 12; ++i) ASSERT_TRUE(queue->put(i, unit(i)).is_ok());
  }
  auto queue = make();
  auto recovered = queue->recover();
  ASSERT_TRUE(recovered.is_ok());
  EXPECT_EQ(recovered->max_offset, 12);
  EXPECT_EQ(recovered->rebuild_from, -1);
  // The commit log was cut at 700: units for records at 700 and later go.
  ASSERT_TRUE(queue->truncate_dirty(700).is_ok());
  EXPECT_EQ(queue->max_offset(), 6);
  EXPECT_EQ(list_dir(dir_ / "T/3"), (std::vector<std::string>{"00000000000000000000"}));
  EXPECT_EQ(load_i64(read_file(dir_ / "T/3/00000000000000000000").data() + 6 * kUnitSize), 0) << "zeroed";
  ASSERT_TRUE(queue->put(6, {650, 40, 0}).is_ok());
  EXPECT_EQ(queue->max_offset(), 7);
}

TEST_F(ConsumeQueueTest, ADamagedUnitIsDroppedAndNamesWhereToRebuildFrom) {
  {
    auto queue = make();
    for (std::int64_t i = 0; i < 6; ++i) ASSERT_TRUE(queue->put(i, unit(i)).is_ok());
  }
  // Unit 3 now points backwards: corrupt.
  std::uint8_t bogus[8];
  store_i64(bogus, 5);
  patch_file(dir_ / "T/3/00000000000000000000", 3 * kUnitSize, bogus);
  auto queue = make();
  auto recovered = queue->recover();
  ASSERT_TRUE(recovered.is_ok());
  EXPECT_EQ(recovered->max_offset, 3);
  EXPECT_EQ(recovered->rebuild_from, 300 + 50) << "just past unit 2's record";
  EXPECT_TRUE(host_.logged({"consume queue T/3", "unit 3", "rebuilt from commit offset 350"}));
}

TEST_F(ConsumeQueueTest, MinOffsetFollowsTheCommitLogAndOldFilesGo) {
  auto queue = make();
  for (std::int64_t i = 0; i < 20; ++i) ASSERT_TRUE(queue->put(i, unit(i)).is_ok());
  queue->correct_min_offset(450);
  EXPECT_EQ(queue->min_offset(), 4) << "unit 4 is the first whose record (500) is still there";
  auto deleted = queue->delete_expired_files(1000);
  ASSERT_TRUE(deleted.is_ok());
  EXPECT_EQ(*deleted, 1) << "file [0, 8) points below 1000 only; file [8, 16) does not";
  EXPECT_EQ(queue->min_offset(), 9);
  auto all_gone = queue->delete_expired_files(1'000'000);
  ASSERT_TRUE(all_gone.is_ok());
  EXPECT_EQ(*all_gone, 1) << "the newest file always stays";
  EXPECT_EQ(queue->min_offset(), 20);
  EXPECT_EQ(queue->max_offset(), 20);
}

TEST_F(ConsumeQueueTest, AQueueMayStartPastZero) {
  auto queue = make();
  ASSERT_TRUE(queue->put(10, unit(10)).is_ok());
  EXPECT_EQ(queue->min_offset(), 10);
  EXPECT_EQ(queue->max_offset(), 11);
  EXPECT_EQ(list_dir(dir_ / "T/3"), (std::vector<std::string>{"00000000000000000160"}));
}

TEST_F(ConsumeQueueTest, DispatcherSkipsPreparedTransactions) {
  ConsumeQueueSet set(*env_, Logger(host_), dir_.path(), kUnitsPerFile * kUnitSize);
  ConsumeQueueDispatcher dispatcher(set);
  v1::DispatchRecord record;
  record.topic = "T";
  record.queue_id = 1;
  record.commit_offset = 0;
  record.size = 100;
  record.store_timestamp = 1234;
  record.sys_flag = v1::sys_flag::kTransactionPrepared;
  ASSERT_TRUE(dispatcher.dispatch(record).is_ok());
  EXPECT_EQ(set.find("T", 1), nullptr);
  record.sys_flag = v1::sys_flag::kTransactionCommit;
  ASSERT_TRUE(dispatcher.dispatch(record).is_ok());
  ASSERT_NE(set.find("T", 1), nullptr);
  EXPECT_EQ(set.find("T", 1)->max_offset(), 1);
  EXPECT_EQ(dispatcher.last_store_timestamp(), 1234);
  ASSERT_TRUE(set.delete_topic("T").is_ok());
  EXPECT_EQ(set.find("T", 1), nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "T"));
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
