// Reads through consume queues into the commit log, at the engine level: statuses a store only
// shows in a race with retention, and the file allocator working ahead of the writer.
#include "queue_reader.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "commit_log.hpp"
#include "consume_queue_set.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

using namespace std::chrono_literals;

class QueueReaderTest : public ::testing::Test {
 protected:
  QueueReaderTest()
      : log_(*env_, Logger(host_), {dir_ / "commitlog", kFileSize, 16 * 1024}),
        queues_(*env_, Logger(host_), dir_ / "consumequeue", 20 * 8),  // a read scans one file: 8 units
        dispatcher_(queues_),
        reader_(log_, queues_) {
    EXPECT_TRUE(log_.load().is_ok());
  }

  // Appends and dispatches one message by hand (what the kernel's pipeline does).
  v1::AppendResult put(const Message& m) {
    const auto view = m.view();
    auto outcome = log_.append(std::span(&view, 1));
    EXPECT_TRUE(outcome.is_ok());
    v1::DispatchRecord record;
    record.topic = m.topic;
    record.queue_id = m.queue_id;
    record.commit_offset = outcome->result.commit_offset;
    record.size = outcome->result.bytes;
    record.queue_offset = outcome->result.queue_offset;
    record.store_timestamp = outcome->result.store_timestamp;
    EXPECT_TRUE(dispatcher_.dispatch(record).is_ok());
    return outcome->result;
  }
  v1::ReadResult read(std::int64_t offset) {
    v1::ReadRequest request;
    request.topic = "T";
    request.offset = offset;
    return reader_.read(request).value();
  }

  static constexpr std::int64_t kFileSize = 4096;
  TempDir dir_;
  CapturingHost host_;
  std::shared_ptr<Env> env_ = posix_env();
  CommitLog log_;
  ConsumeQueueSet queues_;
  ConsumeQueueDispatcher dispatcher_;
  QueueReader reader_;
};

TEST_F(QueueReaderTest, EntriesWhoseRecordsAreGoneReadAsRemoving) {
  std::vector<v1::AppendResult> placed;
  for (int i = 0; i < 40; ++i) placed.push_back(put(message("T", 0, std::string(200, 'a'))));
  ASSERT_GE(log_.files().count(), 2u);
  // The first commit log file goes, and the consume queue has not caught up with it yet.
  ASSERT_TRUE(log_.files().remove_first(log_.files().first()).is_ok());
  const auto removed = read(0);
  EXPECT_EQ(removed.status, v1::ReadStatus::kMessageWasRemoving) << "every entry of the scanned file is gone";
  EXPECT_TRUE(removed.records.empty());
  EXPECT_EQ(removed.next_begin_offset, 8);
  // Once the queue's minimum follows the commit log, the same read is "too small".
  queues_.find("T", 0)->correct_min_offset(log_.min_offset());
  const std::int64_t min = queues_.find("T", 0)->min_offset();
  EXPECT_GT(min, 0);
  EXPECT_EQ(read(0).status, v1::ReadStatus::kOffsetTooSmall);
  EXPECT_EQ(read(0).next_begin_offset, min);
  const auto found = read(min);
  ASSERT_EQ(found.status, v1::ReadStatus::kFound);
  EXPECT_EQ(found.queue_offsets.front(), min);
  EXPECT_EQ(reader_.earliest_message_time("T", 0).value(), placed[static_cast<std::size_t>(min)].store_timestamp);
  EXPECT_EQ(reader_.offset_by_time("T", 0, 0, v1::TimeBoundary::kLower).value(), min);
}

TEST_F(QueueReaderTest, UnknownQueuesAnswerZeroOrNotFound) {
  EXPECT_EQ(reader_.min_offset("T", 0), 0);
  EXPECT_EQ(reader_.max_offset("T", 0), 0);
  EXPECT_EQ(reader_.offset_by_time("T", 0, 123, v1::TimeBoundary::kUpper).value(), 0);
  EXPECT_EQ(reader_.earliest_message_time("T", 0).status().code(), v1::StatusCode::kNotFound);
  EXPECT_EQ(reader_.commit_offset_of("T", 0, 0).status().code(), v1::StatusCode::kNotFound);
  EXPECT_EQ(read(0).status, v1::ReadStatus::kNoMatchedLogicQueue);
}

TEST_F(QueueReaderTest, TheNextFileIsPreparedAheadAndDroppedIfUnused) {
  log_.start_allocator();
  put(message("T", 0, "x"));
  const std::string next = dir_ / "commitlog/00000000000000004096";
  for (int i = 0; i < 500 && !std::filesystem::exists(next); ++i) std::this_thread::sleep_for(2ms);
  EXPECT_TRUE(std::filesystem::exists(next)) << "the allocator makes the next file before it is needed";
  EXPECT_EQ(log_.files().count(), 1u) << "it joins the log only when the writer gets there";
  while (log_.max_offset() < kFileSize) put(message("T", 0, std::string(300, 'y')));
  EXPECT_EQ(log_.files().count(), 2u);
  log_.close();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "commitlog/00000000000000008192")) << "an unused prepared file is removed";
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
