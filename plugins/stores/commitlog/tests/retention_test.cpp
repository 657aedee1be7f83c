// Retention: expired commit log files go with the consume queue and index files that point only
// into them; min offsets move; a reader holding a slice keeps its bytes; a full disk stops writes.
#include <gtest/gtest.h>

#include <thread>

#include "fault_env.hpp"
#include "mqkit/plugin/v1/store_admin.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

using namespace std::chrono_literals;

class RetentionTest : public ::testing::Test {
 protected:
  RetentionTest() : options_(small_options(dir_.path())) {
    options_.file_reserved_time = 1ms;
    options_.max_index_num = 40;  // several index files
  }
  // Fills several commit log files with T/0 and T/1 messages, keyed by number.
  void fill(TestStore& store, int count) {
    for (int i = 0; i < count; ++i) {
      Message m = message("T", i % 2, "m" + std::to_string(i) + std::string(400, '.'));
      m.keys("k" + std::to_string(i));
      ASSERT_TRUE(store.append(m).is_ok());
    }
    ASSERT_TRUE(store.wait_dispatched());
  }

  TempDir dir_;
  StoreOptions options_;
  std::shared_ptr<FaultEnv> env_ = std::make_shared<FaultEnv>();
};

TEST_F(RetentionTest, ExpiredFilesGoAndMinOffsetsMove) {
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  fill(store, 600);
  // Files holding records (the allocator may have prepared one more, still empty).
  const std::int64_t data_files = store.store().stats().commit_log_max_offset / options_.commit_log_file_size + 1;
  ASSERT_GE(data_files, 4);
  const std::size_t index_files_before = list_dir(dir_ / "index").size();
  ASSERT_GE(index_files_before, 3u);

  // A consumer is in the middle of reading the oldest records.
  v1::ReadRequest request;
  request.topic = "T";
  request.offset = 0;
  request.max_count = 2;
  auto held = store.store().read(request).value();
  ASSERT_EQ(held.records.size(), 2u);

  std::this_thread::sleep_for(5ms);
  // Not the delete hour, disk nearly empty: nothing goes on a scheduled pass.
  env_->set_disk_used_ratio(0.10);
  EXPECT_EQ(store.store().run_retention(false).commit_log_files, 0);
  const RetentionCounts counts = store.store().run_retention(true);
  EXPECT_EQ(counts.commit_log_files, data_files - 1) << "all but the newest";
  EXPECT_GT(counts.consume_queue_files, 0);
  EXPECT_GT(counts.index_files, 0);
  EXPECT_EQ(list_dir(dir_ / "index").size(), index_files_before - static_cast<std::size_t>(counts.index_files));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "commitlog/00000000000000000000"));
  EXPECT_TRUE(store.host().logged({"retention: deleted commit log file", "00000000000000000000", "(expired)"}));

  const auto stats = store.store().stats();
  EXPECT_EQ(stats.commit_log_min_offset, (data_files - 1) * options_.commit_log_file_size);
  const std::int64_t min0 = store.store().min_offset("T", 0);
  EXPECT_GT(min0, 0);
  EXPECT_EQ(store.store().max_offset("T", 0), 300);
  // Reads below the new minimum are told so; reads from it find the surviving records.
  request.offset = 0;
  EXPECT_EQ(store.store().read(request).value().status, v1::ReadStatus::kOffsetTooSmall);
  request.offset = min0;
  auto first_left = store.store().read(request).value();
  ASSERT_EQ(first_left.status, v1::ReadStatus::kFound);
  EXPECT_GE(first_left.records[0].bytes.size(), 400u);
  EXPECT_FALSE(store.store().read_at(0).is_ok());
  auto earliest = store.store().earliest_message_time("T", 0);
  EXPECT_TRUE(earliest.is_ok());

  // The slices read before the deletion still hold their records.
  EXPECT_EQ(body_of(held.records[0]).substr(0, 2), "m0");
  EXPECT_EQ(body_of(held.records[1]).substr(0, 2), "m2");

  // Keys of deleted records are gone from queries; newer ones are found.
  auto old_key = store.store().query_by_key("T", "k0", 10, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(old_key.is_ok());
  EXPECT_TRUE(old_key->records.empty());
  auto new_key = store.store().query_by_key("T", "k599", 10, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(new_key.is_ok());
  EXPECT_EQ(new_key->records.size(), 1u);
}

TEST_F(RetentionTest, UnexpiredFilesStayUnlessTheDiskIsNearlyFull) {
  options_.file_reserved_time = std::chrono::hours(72);
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  fill(store, 400);
  const std::int64_t files = store.store().stats().commit_log_max_offset / options_.commit_log_file_size + 1;
  ASSERT_GE(files, 3);
  env_->set_disk_used_ratio(0.80);  // above disk_max_used_space_ratio: cleaning, but only expired files
  EXPECT_EQ(store.store().run_retention(false).commit_log_files, 0);
  env_->set_disk_used_ratio(0.87);  // above the forcible ratio: the oldest go even if young
  EXPECT_EQ(store.store().run_retention(false).commit_log_files, files - 1);
  EXPECT_TRUE(store.host().logged({"deleted before expiry"}));
  EXPECT_TRUE(store.store().stats().writable);
}

TEST_F(RetentionTest, AFullDiskRefusesWritesWithAClearError) {
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  ASSERT_TRUE(store.append(message("T", 0, "before")).is_ok());
  env_->set_disk_used_ratio(0.95);
  store.store().run_retention(false);
  EXPECT_FALSE(store.store().stats().writable);
  auto refused = store.append(message("T", 0, "refused"));
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), v1::StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("disk is full [CL: 0.95"), std::string::npos) << refused.status().to_string();
  EXPECT_TRUE(store.host().logged({"disk is full", "refusing writes"}));

  env_->set_disk_used_ratio(0.88);  // between the forcible and the warning ratio: still full
  store.store().run_retention(false);
  EXPECT_FALSE(store.append(message("T", 0, "still refused")).is_ok());
  env_->set_disk_used_ratio(0.50);
  store.store().run_retention(false);
  EXPECT_TRUE(store.store().stats().writable);
  ASSERT_TRUE(store.append(message("T", 0, "after")).is_ok());
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), (std::vector<std::string>{"before", "after"}));
}

// The operator requests (StoreAdmin): deleteExpiredCommitLog, cleanExpiredCQ, queryCq.
TEST_F(RetentionTest, StoreAdminDeletesExpiredFilesAndDropsQueuesWithNothingLeft) {
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  auto* admin = static_cast<v1::StoreAdmin*>(store.store().extension(v1::kStoreAdminId));
  ASSERT_NE(admin, nullptr);
  // "Old" lives only in the first file; T fills the rest.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store.append(message("Old", 0, "old" + std::to_string(i))).is_ok());
  fill(store, 600);
  const std::int64_t data_files = store.store().stats().commit_log_max_offset / options_.commit_log_file_size + 1;
  ASSERT_GE(data_files, 4);

  auto units = admin->queue_units("Old", 0, 0, 10);
  ASSERT_TRUE(units.is_ok()) << units.status().to_string();
  EXPECT_EQ(units->max_offset, 3);
  ASSERT_EQ(units->units.size(), 3u);
  EXPECT_EQ(units->units[1].queue_offset, 1);
  EXPECT_EQ(units->units[1].commit_offset, store.store().commit_offset_of("Old", 0, 1).value());
  EXPECT_GT(units->units[1].size, 0);
  EXPECT_EQ(admin->queue_units("Old", 0, 2, 10)->units.size(), 1u);
  EXPECT_EQ(admin->queue_units("Missing", 0, 0, 10).status().code(), v1::StatusCode::kNotFound);
  // Nothing has expired from the log yet: the queue stays.
  EXPECT_FALSE(admin->drop_expired_queue("Old", 0).value());

  std::this_thread::sleep_for(5ms);
  env_->set_disk_used_ratio(0.10);  // not the delete hour, disk nearly empty
  auto deleted = admin->delete_expired_files();
  ASSERT_TRUE(deleted.is_ok()) << deleted.status().to_string();
  EXPECT_EQ(*deleted, data_files - 1) << "all but the newest, whatever the hour";
  EXPECT_TRUE(store.host().logged({"expired commit log file(s) on request"}));

  const auto queues = admin->queues().value();
  EXPECT_EQ(queues.size(), 3u);  // Old/0, T/0, T/1
  EXPECT_TRUE(admin->drop_expired_queue("Old", 0).value());
  EXPECT_FALSE(admin->drop_expired_queue("T", 0).value()) << "its newest messages are still in the log";
  EXPECT_FALSE(admin->drop_expired_queue("Old", 0).value()) << "already gone";
  EXPECT_FALSE(std::filesystem::exists(dir_ / "consumequeue/Old"));
  EXPECT_EQ(admin->queues().value().size(), 2u);
  EXPECT_TRUE(store.host().logged({"dropped consume queue Old/0"}));

  // The queue starts again at offset 0, as in RocketMQ.
  const auto again = store.append(message("Old", 0, "new life"));
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->queue_offset, 0);
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("Old", 0), (std::vector<std::string>{"new life"}));
}

// A queue dropped while messages are being sent to it: either the drop happens before a send (which
// then starts the queue again at 0) or not at all; no sent message is lost from the queue.
TEST_F(RetentionTest, DroppingAnExpiredQueueRacesSafelyWithSendsToIt) {
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  auto* admin = static_cast<v1::StoreAdmin*>(store.store().extension(v1::kStoreAdminId));
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(store.append(message("Old", 0, "old")).is_ok());
  fill(store, 600);
  std::this_thread::sleep_for(5ms);
  env_->set_disk_used_ratio(0.10);
  ASSERT_GT(admin->delete_expired_files().value(), 0);

  constexpr int kSends = 200;
  std::thread sender([&] {
    for (int i = 0; i < kSends; ++i) ASSERT_TRUE(store.append(message("Old", 0, "new" + std::to_string(i))).is_ok());
  });
  int drops = 0;
  for (int i = 0; i < 2000 && drops == 0; ++i) drops += admin->drop_expired_queue("Old", 0).value() ? 1 : 0;
  sender.join();
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_LE(drops, 1);
  const std::vector<std::string> bodies = store.bodies("Old", 0);
  ASSERT_GE(bodies.size(), static_cast<std::size_t>(kSends));
  // Whatever happened first, every sent message is in the queue, in order, after what remains.
  const std::vector<std::string> sent(bodies.end() - kSends, bodies.end());
  for (int i = 0; i < kSends; ++i) EXPECT_EQ(sent[static_cast<std::size_t>(i)], "new" + std::to_string(i));
  EXPECT_FALSE(admin->drop_expired_queue("Old", 0).value()) << "its messages are in the log";
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
