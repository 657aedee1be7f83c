#include "mapped_file.hpp"

#include <gtest/gtest.h>

#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>

#include <cstring>
#include <fstream>

#include "fault_env.hpp"
#include "logger.hpp"
#include "mapped_file_queue.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

TEST(MappedFileTest, NamesAreTwentyDigitOffsets) {
  EXPECT_EQ(offset_file_name(0), "00000000000000000000");
  EXPECT_EQ(offset_file_name(1073741824), "00000000001073741824");
  std::int64_t offset = 0;
  EXPECT_TRUE(parse_offset_file_name("00000000001073741824", &offset));
  EXPECT_EQ(offset, 1073741824);
  EXPECT_FALSE(parse_offset_file_name("0000000000107374182", &offset));
  EXPECT_FALSE(parse_offset_file_name("00000000001073741824.tmp", &offset));
  EXPECT_FALSE(parse_offset_file_name("0000000000107374182x", &offset));
}

TEST(MappedFileTest, CreateReservesZeroedSpaceAndRefusesDuplicates) {
  TempDir dir;
  auto env = posix_env();
  auto file = MappedFile::create(*env, dir / "00000000000000004096", 4096, 8192, MappedFile::Policy::whole(8192));
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  EXPECT_EQ((*file)->start_offset(), 4096);
  EXPECT_EQ((*file)->end_offset(), 4096 + 8192);
  EXPECT_EQ(std::filesystem::file_size(dir / "00000000000000004096"), 8192u);
  for (std::int64_t i = 0; i < 8192; ++i) ASSERT_EQ((*file)->data()[i], 0);
  auto again = MappedFile::create(*env, dir / "00000000000000004096", 4096, 8192, MappedFile::Policy::whole(8192));
  EXPECT_EQ(again.status().code(), v1::StatusCode::kAlreadyExists);
}

TEST(MappedFileTest, WritesThroughTheMappingReachTheFile) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "00000000000000000000";
  {
    auto file = MappedFile::create(*env, path, 0, 8192, MappedFile::Policy::whole(8192)).value();
    std::memcpy(file->data() + 100, "hello", 5);
    file->set_wrote_position(105);
    EXPECT_TRUE(file->should_flush(0));
    EXPECT_FALSE(file->should_flush(1)) << "less than one dirty page";
    ASSERT_TRUE(file->flush_to(file->wrote_position()).is_ok());
    EXPECT_EQ(file->flushed_position(), 105);
    EXPECT_FALSE(file->should_flush(0));
  }
  const auto bytes = read_file(path);
  ASSERT_EQ(bytes.size(), 8192u);
  EXPECT_EQ(std::string(bytes.begin() + 100, bytes.begin() + 105), "hello");
  auto reopened = MappedFile::open(*env, path, 0, 8192, MappedFile::Policy::whole(8192));
  ASSERT_TRUE(reopened.is_ok());
  EXPECT_EQ(std::memcmp((*reopened)->data() + 100, "hello", 5), 0);
  auto wrong_size = MappedFile::open(*env, path, 0, 4096, MappedFile::Policy::whole(8192));
  EXPECT_EQ(wrong_size.status().code(), v1::StatusCode::kCorruption) << "a longer file means the configured size changed";
}

TEST(MappedFileTest, DropCachedEvictsOnlyFlushedPagesAndTheBytesStayReadable) {
  TempDir dir;
  auto env = posix_env();
  constexpr std::int64_t kPage = 4096;
  auto file = MappedFile::create(*env, dir / "00000000000000000000", 0, 16 * kPage, MappedFile::Policy::whole(16 * kPage))
                  .value();
  std::string pattern(8 * kPage, '\0');
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>('a' + i % 26);
  std::memcpy(file->data(), pattern.data(), pattern.size());
  file->set_wrote_position(static_cast<std::int64_t>(pattern.size()));
  ASSERT_TRUE(file->flush_to(4 * kPage).is_ok());
  file->drop_cached(0, 8 * kPage);  // only the flushed half may go
  const auto resident = [&](std::int64_t page) {
    unsigned char in_core = 0;
    EXPECT_EQ(::mincore(file->data() + page * kPage, kPage, &in_core), 0);
    return (in_core & 1) != 0;
  };
  struct statfs fs {};
  ASSERT_EQ(::statfs(dir.path().c_str(), &fs), 0);
  if (fs.f_type != TMPFS_MAGIC) {  // tmpfs pages cannot leave memory: nothing to evict there
    for (std::int64_t page = 0; page < 4; ++page) EXPECT_FALSE(resident(page)) << "flushed page " << page;
  }
  for (std::int64_t page = 4; page < 8; ++page) EXPECT_TRUE(resident(page)) << "unflushed page " << page << " was dropped";
  EXPECT_EQ(std::memcmp(file->data(), pattern.data(), pattern.size()), 0) << "evicted pages read back from the file";
}

TEST(MappedFileTest, ASparseFileReservesBlocksInGrowingChunksAheadOfTheWriter) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "00000000000000000000";
  constexpr std::int64_t kSize = 4 << 20;
  auto file = MappedFile::create(*env, path, 0, kSize, {4096, 64 * 1024}).value();
  EXPECT_EQ(std::filesystem::file_size(path), static_cast<std::uintmax_t>(kSize)) << "nominal size, as RocketMQ expects";
  EXPECT_EQ(file->reserved(), 4096);
  EXPECT_LE(allocated_bytes(path), 8192) << "a fresh file takes one page of disk, not its nominal size";
  ASSERT_TRUE(file->reserve_through(4096).is_ok());
  EXPECT_EQ(file->reserved(), 4096) << "already reserved: nothing to do";
  ASSERT_TRUE(file->reserve_through(5000).is_ok());
  EXPECT_EQ(file->reserved(), 8192) << "one more step of the size reserved so far";
  ASSERT_TRUE(file->reserve_through(40000).is_ok());
  EXPECT_EQ(file->reserved(), 40960) << "at least what the write needs, in whole pages";
  ASSERT_TRUE(file->reserve_through(40961).is_ok());
  EXPECT_EQ(file->reserved(), 40960 + 40960) << "steps grow with the file";
  ASSERT_TRUE(file->reserve_through(200000).is_ok());
  ASSERT_TRUE(file->reserve_through(200705).is_ok());
  EXPECT_EQ(file->reserved(), 200704 + 64 * 1024) << "up to max_step at a time";
  EXPECT_GE(allocated_bytes(path), file->reserved());
  EXPECT_LT(allocated_bytes(path), kSize / 4);
  EXPECT_EQ(file->reserve_through(kSize + 1).code(), v1::StatusCode::kInternal) << "past the end is a bug";
  ASSERT_TRUE(file->reserve_through(kSize).is_ok());
  EXPECT_EQ(file->reserved(), kSize);
}

TEST(MappedFileTest, AFailedReservationIsAnErrorAndReservesNothing) {
  TempDir dir;
  auto env = std::make_shared<FaultEnv>();
  const std::string path = dir / "00000000000000000000";
  auto file = MappedFile::create(*env, path, 0, 1 << 20, {4096, 4096}).value();
  env->set_disk_full(true);
  auto failed = file->reserve_through(4097);
  EXPECT_EQ(failed.code(), v1::StatusCode::kIoError);
  EXPECT_NE(failed.message().find("No space left on device"), std::string::npos) << failed.to_string();
  EXPECT_EQ(file->reserved(), 4096);
  auto not_created = MappedFile::create(*env, dir / "00000000000001048576", 1 << 20, 1 << 20, {4096, 4096});
  EXPECT_FALSE(not_created.is_ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "00000000000001048576")) << "no half-made file is left behind";
  env->heal();
  ASSERT_TRUE(file->reserve_through(4097).is_ok());
  EXPECT_EQ(file->reserved(), 8192);
}

bool page_resident(MappedFile& file, std::int64_t position) {
  unsigned char in_core = 0;
  const std::int64_t page = position / kFlushPageSize * kFlushPageSize;
  EXPECT_EQ(::mincore(file.data() + page, kFlushPageSize, &in_core), 0);
  return (in_core & 1) != 0;
}

TEST(MappedFileTest, ZerosWrittenAheadOfTheWriterNeverTouchWhatItWrote) {
  TempDir dir;
  auto env = posix_env();
  constexpr std::int64_t kSize = 1 << 20;
  constexpr std::int64_t kAhead = 64 * 1024;
  auto file = MappedFile::create(*env, dir / "00000000000000000000", 0, kSize,
                                 {.min_step = 4096, .max_step = 64 * 1024, .zero_ahead = kAhead})
                  .value();
  EXPECT_FALSE(page_resident(*file, 0)) << "creating writes no zeros: the writer's position is not known yet";
  std::string expected;
  const std::int64_t sizes[] = {100, 5000, 1, 70'000, 333, 4096, 131'072, 7};
  for (std::size_t i = 0; expected.size() + 140'000 < static_cast<std::size_t>(kSize); ++i) {
    const std::int64_t position = static_cast<std::int64_t>(expected.size());
    const std::int64_t length = sizes[i % std::size(sizes)];
    ASSERT_TRUE(file->reserve_through(position + length).is_ok());
    EXPECT_TRUE(page_resident(*file, position + length + kAhead / 2 - 1)) << "zeros at least half the window ahead";
    const std::string record(static_cast<std::size_t>(length), static_cast<char>('a' + i % 26));
    std::memcpy(file->data() + position, record.data(), record.size());
    file->set_wrote_position(position + length);
    expected += record;
    ASSERT_EQ(std::memcmp(file->data(), expected.data(), expected.size()), 0) << "after write " << i;
  }
  const auto end = static_cast<std::int64_t>(expected.size());
  ASSERT_TRUE(file->reserve_through(kSize).is_ok()) << "zeros stop at the end of the file";
  for (std::int64_t at = end; at < kSize; ++at) ASSERT_EQ(file->data()[at], 0) << "byte " << at;
  ASSERT_TRUE(file->flush_to(end).is_ok());
  std::string on_disk(expected.size(), '\0');
  std::ifstream(dir / "00000000000000000000", std::ios::binary).read(on_disk.data(), end);
  EXPECT_EQ(on_disk, expected);
}

TEST(MappedFileTest, AFailedZeroWriteIsAnErrorAndLeavesTheWrittenBytes) {
  TempDir dir;
  auto env = std::make_shared<FaultEnv>();
  auto file =
      MappedFile::create(*env, dir / "00000000000000000000", 0, 1 << 20,
                         {.min_step = 1 << 20, .max_step = 1 << 20, .zero_ahead = 8192})
          .value();  // every block reserved: the zeros are the only write
  std::memcpy(file->data(), "abc", 3);
  file->set_wrote_position(3);
  env->fail_writes();
  const auto failed = file->reserve_through(3);
  EXPECT_EQ(failed.code(), v1::StatusCode::kIoError);
  EXPECT_NE(failed.message().find("writing zeros ahead"), std::string::npos) << failed.to_string();
  EXPECT_EQ(std::memcmp(file->data(), "abc", 3), 0);
  env->heal();
  ASSERT_TRUE(file->reserve_through(3).is_ok()) << "the next write tries again";
  EXPECT_EQ(std::memcmp(file->data(), "abc", 3), 0);
}

TEST(MappedFileTest, AShortFileIsExtendedSparseAndReservedFromItsStartOnTheFirstWrite) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "00000000000000000000";
  {
    std::ofstream out(path, std::ios::binary);
    out << "data written before a crash cut the file short";
  }
  auto file = MappedFile::open(*env, path, 0, 1 << 20, {4096, 4096}).value();
  EXPECT_EQ(std::filesystem::file_size(path), static_cast<std::uintmax_t>(1 << 20));
  EXPECT_EQ(text({file->data(), 4}), "data");
  EXPECT_EQ(file->data()[(1 << 20) - 1], 0) << "the rest reads as zeros (a hole)";
  EXPECT_EQ(file->reserved(), 0);
  ASSERT_TRUE(file->reserve_through(100).is_ok());
  EXPECT_EQ(file->reserved(), 4096);
}

TEST(MappedFileTest, SliceKeepsADestroyedFileMapped) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "00000000000000000000";
  v1::StoredSlice slice;
  {
    auto file = MappedFile::create(*env, path, 0, 4096, MappedFile::Policy::whole(8192)).value();
    std::memcpy(file->data(), "still here", 10);
    slice = file->slice(0, 10);
    ASSERT_TRUE(file->destroy(*env).is_ok());
    EXPECT_TRUE(file->destroyed());
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << "the name goes at once";
  EXPECT_EQ(text(slice.bytes), "still here") << "the bytes stay while a reader holds them";
}

TEST(MappedFileQueueTest, LoadFindsFilesByOffsetAndRejectsGaps) {
  TempDir dir;
  auto env = posix_env();
  CapturingHost host;
  {
    MappedFileQueue queue(*env, Logger(host), dir.path(), 4096, MappedFile::Policy::whole(8192));
    ASSERT_TRUE(queue.create_file(8192).is_ok()) << "an empty queue may start at any file boundary";
    ASSERT_TRUE(queue.create_file(12288).is_ok());
    EXPECT_FALSE(queue.create_file(20480).is_ok()) << "files must be contiguous";
  }
  std::ofstream(dir / "stray.tmp") << "x";
  MappedFileQueue queue(*env, Logger(host), dir.path(), 4096, MappedFile::Policy::whole(8192));
  ASSERT_TRUE(queue.load().is_ok());
  EXPECT_TRUE(host.logged({"ignoring", "stray.tmp"}));
  EXPECT_EQ(queue.count(), 2u);
  EXPECT_EQ(queue.min_offset(), 8192);
  EXPECT_EQ(queue.find(8191), nullptr);
  EXPECT_EQ(queue.find(8192)->start_offset(), 8192);
  EXPECT_EQ(queue.find(16383)->start_offset(), 12288);
  EXPECT_EQ(queue.find(16384), nullptr);

  MappedFile::create(*env, dir / offset_file_name(40960), 40960, 4096, MappedFile::Policy::whole(8192)).value();
  MappedFileQueue gapped(*env, Logger(host), dir.path(), 4096, MappedFile::Policy::whole(8192));
  EXPECT_EQ(gapped.load().code(), v1::StatusCode::kCorruption);
}

TEST(MappedFileQueueTest, TruncateScrubsTheTailAndDropsLaterFiles) {
  TempDir dir;
  auto env = posix_env();
  CapturingHost host;
  MappedFileQueue queue(*env, Logger(host), dir.path(), 4096, MappedFile::Policy::whole(8192));
  auto first = queue.create_file(0).value();
  auto second = queue.create_file(4096).value();
  std::memset(first->data(), 0xAB, 4096);
  std::memset(second->data(), 0xCD, 100);
  auto dropped = queue.truncate_from(1000);
  ASSERT_TRUE(dropped.is_ok());
  EXPECT_EQ(*dropped, (4096 - 1000) + 100);
  EXPECT_EQ(queue.count(), 1u);
  EXPECT_EQ(first->wrote_position(), 1000);
  EXPECT_EQ(first->data()[999], 0xAB);
  EXPECT_EQ(first->data()[1000], 0);
  EXPECT_EQ(first->data()[4095], 0);
  EXPECT_FALSE(std::filesystem::exists(dir / offset_file_name(4096)));
}

TEST(MappedFileQueueTest, PeriodicFlushLeavesThePageBeingFilledToAFullFlush) {
  TempDir dir;
  auto env = posix_env();
  CapturingHost host;
  MappedFileQueue queue(*env, Logger(host), dir.path(), 4 * kFlushPageSize, MappedFile::Policy::whole(16384));
  auto first = queue.create_file(0).value();
  auto second = queue.create_file(4 * kFlushPageSize).value();
  std::memset(first->data(), 0xAB, 4 * kFlushPageSize);
  first->set_wrote_position(4 * kFlushPageSize);
  std::memset(second->data(), 0xCD, kFlushPageSize + 100);
  second->set_wrote_position(kFlushPageSize + 100);
  auto durable = queue.flush(1);
  ASSERT_TRUE(durable.is_ok());
  EXPECT_EQ(first->flushed_position(), 4 * kFlushPageSize) << "a full file is flushed whole";
  EXPECT_EQ(second->flushed_position(), kFlushPageSize) << "only the whole page of the file being written";
  EXPECT_EQ(*durable, 5 * kFlushPageSize);
  durable = queue.flush(0);
  ASSERT_TRUE(durable.is_ok());
  EXPECT_EQ(second->flushed_position(), kFlushPageSize + 100) << "a thorough flush covers every byte";
  EXPECT_EQ(*durable, 5 * kFlushPageSize + 100);
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
