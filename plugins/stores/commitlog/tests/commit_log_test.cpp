#include "commit_log.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "big_endian.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

using v1::kBlankMagic;

class CommitLogTest : public ::testing::Test {
 protected:
  CommitLogTest() : log_(*env_, Logger(host_), {dir_ / "commitlog", kFileSize, 16 * 1024}) {
    EXPECT_TRUE(log_.load().is_ok());
  }
  v1::AppendResult append(const Message& m) {
    const auto view = m.view();
    auto outcome = log_.append(std::span(&view, 1));
    EXPECT_TRUE(outcome.is_ok()) << outcome.status().to_string();
    return outcome.is_ok() ? outcome->result : v1::AppendResult{};
  }
  std::vector<std::uint8_t> master_bytes(std::int64_t from);

  static constexpr std::int64_t kFileSize = 4096;
  TempDir dir_;
  CapturingHost host_;
  std::shared_ptr<Env> env_ = posix_env();
  CommitLog log_;
};

TEST_F(CommitLogTest, AppendsRecordsBackToBackWithAssignedOffsets) {
  const auto a = append(message("T", 0, "first"));
  const auto b = append(message("T", 0, "second"));
  const auto c = append(message("T", 1, "third"));
  EXPECT_EQ(a.commit_offset, 0);
  EXPECT_EQ(b.commit_offset, a.bytes);
  EXPECT_EQ(c.commit_offset, a.bytes + b.bytes);
  EXPECT_EQ(a.queue_offset, 0);
  EXPECT_EQ(b.queue_offset, 1);
  EXPECT_EQ(c.queue_offset, 0);
  EXPECT_EQ(log_.max_offset(), a.bytes + b.bytes + c.bytes);

  // The stored bytes are RocketMQ records with the placement stamped in.
  auto slice = log_.read_record(b.commit_offset);
  ASSERT_TRUE(slice.is_ok()) << slice.status().to_string();
  auto record = v1::decode_record(slice->bytes, v1::CrcCheck::kVerify);
  ASSERT_TRUE(record.is_ok());
  EXPECT_EQ(text(record->body), "second");
  EXPECT_EQ(record->commit_offset, b.commit_offset);
  EXPECT_EQ(record->queue_offset, 1);
  EXPECT_EQ(record->store_timestamp, b.store_timestamp);
  EXPECT_EQ(log_.store_timestamp_at(b.commit_offset).value(), b.store_timestamp);

  EXPECT_EQ(log_.read_record(b.commit_offset + 1).status().code(), v1::StatusCode::kNotFound);
  EXPECT_EQ(log_.read_record(log_.max_offset()).status().code(), v1::StatusCode::kNotFound);
}

TEST_F(CommitLogTest, ARecordThatDoesNotFitLeavesABlankAndRollsOver) {
  // 242-byte records while two more would fit; then a 492-byte one cannot (it needs 8 spare bytes).
  std::vector<v1::AppendResult> placed;
  while (log_.max_offset() + 2 * 242 + 8 <= kFileSize) placed.push_back(append(message("T", 0, std::string(150, 'x'))));
  ASSERT_EQ(placed.back().bytes, 242);
  const std::int64_t end_of_first = log_.max_offset();
  const auto big = append(message("T", 0, std::string(400, 'y')));
  EXPECT_EQ(big.commit_offset, kFileSize) << "records never span files";
  EXPECT_EQ(big.queue_offset, static_cast<std::int64_t>(placed.size()));
  EXPECT_EQ(log_.files().count(), 2u);

  const auto first_file = read_file(dir_ / "commitlog/00000000000000000000");
  ASSERT_EQ(first_file.size(), static_cast<std::size_t>(kFileSize));
  EXPECT_EQ(load_i32(first_file.data() + end_of_first), kFileSize - end_of_first) << "blank: remaining bytes";
  EXPECT_EQ(load_i32(first_file.data() + end_of_first + 4), kBlankMagic);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "commitlog/00000000000000004096"));

  // Dispatch reads skip the blank and never cross a file.
  auto chunk = log_.read_for_dispatch(0, 1 << 20);
  ASSERT_TRUE(chunk.is_ok());
  EXPECT_EQ(chunk->start_offset, 0);
  EXPECT_EQ(static_cast<std::int64_t>(chunk->bytes.bytes.size()), end_of_first);
  EXPECT_EQ(chunk->next_offset, kFileSize) << "the padding is skipped";
  auto next = log_.read_for_dispatch(chunk->next_offset, 1 << 20);
  ASSERT_TRUE(next.is_ok());
  EXPECT_EQ(next->start_offset, kFileSize);
  EXPECT_EQ(next->next_offset, log_.max_offset());
  auto caught_up = log_.read_for_dispatch(log_.max_offset(), 1 << 20);
  ASSERT_TRUE(caught_up.is_ok());
  EXPECT_TRUE(caught_up->bytes.bytes.empty());
  EXPECT_EQ(caught_up->next_offset, log_.max_offset());
}

TEST_F(CommitLogTest, DispatchChunksHoldWholeRecordsWithinMaxBytes) {
  const auto a = append(message("T", 0, "a"));
  append(message("T", 0, "b"));
  append(message("T", 0, "c"));
  auto chunk = log_.read_for_dispatch(0, a.bytes + 10);
  ASSERT_TRUE(chunk.is_ok());
  EXPECT_EQ(static_cast<std::int64_t>(chunk->bytes.bytes.size()), a.bytes);
  auto tiny = log_.read_for_dispatch(a.commit_offset, 1);
  ASSERT_TRUE(tiny.is_ok());
  EXPECT_EQ(static_cast<std::int64_t>(tiny->bytes.bytes.size()), a.bytes) << "at least one record";
}

TEST_F(CommitLogTest, ADispatchChunkStillHeldKeepsItsBytesWhileOthersAreRead) {
  const auto a = append(message("T", 0, "aaaa"));
  const auto b = append(message("T", 0, "bbbb"));
  auto held = log_.read_for_dispatch(a.commit_offset, a.bytes);  // as an HA transfer holds its chunk
  ASSERT_TRUE(held.is_ok());
  const std::vector<std::uint8_t> before(held->bytes.bytes.begin(), held->bytes.bytes.end());
  for (int i = 0; i < 3; ++i) {
    auto other = log_.read_for_dispatch(b.commit_offset, b.bytes);
    ASSERT_TRUE(other.is_ok());
    EXPECT_EQ(other->start_offset, b.commit_offset);
  }
  EXPECT_EQ(std::vector<std::uint8_t>(held->bytes.bytes.begin(), held->bytes.bytes.end()), before);
  auto record = v1::decode_record(held->bytes.bytes, v1::CrcCheck::kVerify);
  ASSERT_TRUE(record.is_ok());
  EXPECT_EQ(text(record->body), "aaaa");
}

TEST_F(CommitLogTest, ACommitLogFileCutShortBehindItsBackIsAnErrorForDispatchNotACrash) {
  append(message("T", 0, "first"));
  append(message("T", 0, "second"));
  ASSERT_EQ(::truncate((dir_ / "commitlog/00000000000000000000").c_str(), 16), 0);
  auto chunk = log_.read_for_dispatch(0, 1 << 20);
  ASSERT_FALSE(chunk.is_ok());
  EXPECT_EQ(chunk.status().code(), v1::StatusCode::kIoError);
  EXPECT_NE(chunk.status().message().find("00000000000000000000 is shorter than its committed data"), std::string::npos)
      << chunk.status().to_string();
}

TEST_F(CommitLogTest, RefusesWhatRocketMqRefuses) {
  const auto refuse = [&](const Message& m) {
    const auto view = m.view();
    return log_.append(std::span(&view, 1)).status().code();
  };
  EXPECT_EQ(refuse(message("T", 0, std::string(16 * 1024 + 1, 'b'))), v1::StatusCode::kInvalidArgument)
      << "body over max_message_size";
  EXPECT_EQ(refuse(message("", 0, "b")), v1::StatusCode::kInvalidArgument);
  EXPECT_EQ(refuse(message("a/b", 0, "b")), v1::StatusCode::kInvalidArgument) << "would escape consumequeue/";
  EXPECT_EQ(refuse(message("..", 0, "b")), v1::StatusCode::kInvalidArgument);
  EXPECT_EQ(refuse(message("T", 0, std::string(kFileSize, 'b'))), v1::StatusCode::kInvalidArgument)
      << "larger than a commit log file";
  EXPECT_EQ(log_.max_offset(), 0);
}

TEST_F(CommitLogTest, PreparedTransactionsTakeNoQueueOffset) {
  Message prepared = message("T", 0, "half");
  prepared.sys_flag = v1::sys_flag::kTransactionPrepared;
  EXPECT_EQ(append(prepared).queue_offset, 0);
  EXPECT_EQ(append(message("T", 0, "plain")).queue_offset, 0);
  EXPECT_EQ(append(message("T", 0, "plain")).queue_offset, 1);
}

TEST_F(CommitLogTest, FlushMakesCommittedBytesDurable) {
  append(message("T", 0, "x"));
  EXPECT_EQ(log_.flushed_offset(), 0);
  auto flushed = log_.flush();
  ASSERT_TRUE(flushed.is_ok());
  EXPECT_EQ(*flushed, log_.max_offset());
  EXPECT_EQ(log_.flushed_offset(), log_.max_offset());
  EXPECT_EQ(log_.flushed_store_timestamp(), log_.last_store_timestamp());
}

// The raw bytes from `from` on of another log holding 40 records (over a file end), as a master
// sends them: end-of-file padding included.
std::vector<std::uint8_t> CommitLogTest::master_bytes(std::int64_t from) {
  std::vector<std::uint8_t> bytes;
  TempDir other;
  CommitLog source(*env_, Logger(host_), {other / "commitlog", kFileSize, 16 * 1024});
  for (int i = 0; i < 40; ++i) {
    const Message m = message("T", i % 2, std::string(100, 'm'));
    const auto view = m.view();
    EXPECT_TRUE(source.append(std::span(&view, 1)).is_ok());
  }
  for (std::int64_t offset = from; offset < source.max_offset();) {
    auto file = source.files().find(offset);
    const std::int64_t end = std::min(source.max_offset(), file->end_offset());
    bytes.insert(bytes.end(), file->data() + (offset - file->start_offset()), file->data() + (end - file->start_offset()));
    offset = end;
  }
  return bytes;
}

TEST_F(CommitLogTest, ReplicatedBytesAreCheckedThenCopied) {
  const std::vector<std::uint8_t> master = master_bytes(0);
  ASSERT_GT(master.size(), static_cast<std::size_t>(kFileSize)) << "the copy crosses a file end";
  EXPECT_EQ(log_.append_replicated(5, master).code(), v1::StatusCode::kInvalidArgument);
  auto corrupt = master;
  corrupt[88] ^= 0xFF;  // a body byte: the CRC no longer matches
  EXPECT_FALSE(log_.append_replicated(0, corrupt).is_ok());
  EXPECT_EQ(log_.max_offset(), 0) << "nothing of a refused copy is written";
  ASSERT_TRUE(log_.append_replicated(0, master).is_ok());
  EXPECT_EQ(log_.max_offset(), static_cast<std::int64_t>(master.size()));
  EXPECT_EQ(append(message("T", 0, "next")).queue_offset, 20) << "queue offsets continue the copy's";
}

TEST_F(CommitLogTest, AnEmptyLogTakesACopyFromTheStartOfAFile) {
  const std::vector<std::uint8_t> last_file = master_bytes(kFileSize);
  ASSERT_FALSE(last_file.empty()) << "the master needs a second file";
  // As a master starts an empty slave: at its last file. Anywhere else is refused.
  EXPECT_EQ(log_.append_replicated(kFileSize + 1, last_file).code(), v1::StatusCode::kInvalidArgument);
  ASSERT_TRUE(log_.append_replicated(kFileSize, last_file).is_ok());
  EXPECT_EQ(log_.min_offset(), kFileSize);
  EXPECT_EQ(log_.max_offset(), kFileSize + static_cast<std::int64_t>(last_file.size()));
  EXPECT_EQ(log_.files().first()->start_offset(), kFileSize);
  // No longer empty: the next copy must continue it.
  EXPECT_EQ(log_.append_replicated(2 * kFileSize, last_file).code(), v1::StatusCode::kInvalidArgument);
}


// Whether this process has a page-table entry for the page at `address` (/proc/self/pagemap bit
// 63): a page the writer never touched has one only if something faulted it in ahead of time.
bool mapped_in(const std::uint8_t* address) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return false;
  std::uint64_t entry = 0;
  const auto page = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(address) / static_cast<std::uintptr_t>(::getpagesize()));
  const bool read = ::pread(fd, &entry, sizeof entry, page * static_cast<off_t>(sizeof entry)) == sizeof entry;
  ::close(fd);
  return read && (entry >> 63) != 0;
}

template <typename Predicate>
bool eventually(Predicate done) {
  for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

TEST(CommitLogWarmingTest, PagesAheadOfTheWriterAreFaultedInUpToTheDistanceAndIntoTheNextFile) {
  constexpr std::int64_t kSize = 4 << 20;
  constexpr std::int64_t kAhead = 1 << 20;
  TempDir dir;
  CapturingHost host;
  auto env = posix_env();
  CommitLogOptions options{dir / "commitlog", kSize, 64 * 1024};
  options.warm_ahead = kAhead;
  CommitLog log(*env, Logger(host), options);
  ASSERT_TRUE(log.load().is_ok());
  log.start_allocator();
  const Message m = message("T", 0, std::string(1000, 'w'));
  const auto view = m.view();
  ASSERT_TRUE(log.append(std::span(&view, 1)).is_ok());
  auto first = log.files().last();
  ASSERT_TRUE(eventually([&] { return first->populated() >= kAhead; })) << first->populated();
  EXPECT_TRUE(mapped_in(first->data() + kAhead - 4096)) << "faulted in ahead of the writer";
  EXPECT_FALSE(mapped_in(first->data() + 2 * kAhead + 4096)) << "not beyond the distance";
  EXPECT_LE(first->populated(), kAhead + (2 << 20)) << "at most one step past the distance";

  // Close to the end: the distance reaches into the next file, which gets warmed before the
  // writer arrives.
  while (log.max_offset() < kSize - kAhead / 2) ASSERT_TRUE(log.append(std::span(&view, 1)).is_ok());
  ASSERT_TRUE(eventually([&] { return first->populated() == kSize; }));
  ASSERT_TRUE(eventually([&] { return log.allocator().prepared_populated() > 0; })) << "the prepared next file";
  while (log.files().count() < 2) ASSERT_TRUE(log.append(std::span(&view, 1)).is_ok());
  auto second = log.files().last();
  EXPECT_GT(second->populated(), 0) << "the writer took the warmed file";
  ASSERT_TRUE(eventually([&] { return second->populated() >= log.max_offset() - kSize + kAhead; }));
  EXPECT_TRUE(mapped_in(second->data() + kAhead / 2));

  // Every record reads back whole.
  for (std::int64_t at = 0; at < log.max_offset();) {
    auto record = log.read_record(at);
    if (!record.is_ok()) {
      at = (at / kSize + 1) * kSize;  // the end-of-file blank
      continue;
    }
    ASSERT_TRUE(v1::decode_record(record->bytes, v1::CrcCheck::kVerify).is_ok()) << at;
    at += static_cast<std::int64_t>(record->bytes.size());
  }
  log.close();
}

TEST(CommitLogWarmingTest, WithoutADistanceNothingIsFaultedInAhead) {
  TempDir dir;
  CapturingHost host;
  auto env = posix_env();
  CommitLog log(*env, Logger(host), {dir / "commitlog", 4 << 20, 64 * 1024});
  ASSERT_TRUE(log.load().is_ok());
  log.start_allocator();
  const Message m = message("T", 0, std::string(1000, 'w'));
  const auto view = m.view();
  ASSERT_TRUE(log.append(std::span(&view, 1)).is_ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(log.files().last()->populated(), 0);
  EXPECT_FALSE(mapped_in(log.files().last()->data() + (512 << 10)));
  log.close();
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
