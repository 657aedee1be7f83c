// I/O failures injected under a running store come back as Status errors — never a crash, never
// silent loss — and a full disk gives a clear error and leaves nothing corrupt.
#include <gtest/gtest.h>

#include <algorithm>

#include "fault_env.hpp"
#include "metadata.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

class FaultTest : public ::testing::Test {
 protected:
  FaultTest() : options_(small_options(dir_.path())) {}

  // Appends numbered messages to T/0 until one fails; returns the bodies acknowledged and the
  // failure.
  std::pair<std::vector<std::string>, v1::Status> append_until_failure(TestStore& store, int limit,
                                                                       const std::string& prefix) {
    std::vector<std::string> acknowledged;
    for (int i = 0; i < limit; ++i) {
      const std::string body = prefix + std::to_string(i) + std::string(300, '.');
      auto result = store.append(message("T", 0, body));
      if (!result.is_ok()) return {acknowledged, result.status()};
      acknowledged.push_back(body);
    }
    return {acknowledged, v1::Status::ok()};
  }

  // Stores "first" in T/0, makes the disk full and appends until an append fails, which must be
  // the full disk; returns every body acknowledged, "first" included.
  std::vector<std::string> fill_until_disk_full(TestStore& store, int limit, const std::string& prefix) {
    std::vector<std::string> stored;
    EXPECT_TRUE(store.append(message("T", 0, "first")).is_ok());
    stored.push_back("first");
    EXPECT_TRUE(store.wait_dispatched());
    env_->set_disk_full(true);
    auto [acknowledged, failure] = append_until_failure(store, limit, prefix);
    stored.insert(stored.end(), acknowledged.begin(), acknowledged.end());
    EXPECT_EQ(failure.code(), v1::StatusCode::kIoError) << failure.to_string();
    EXPECT_NE(failure.message().find("No space left on device"), std::string::npos) << failure.to_string();
    return stored;
  }

  // Reopens the store on the real file system and checks that it holds exactly `bodies` in T/0,
  // each with a valid CRC.
  void expect_exactly(const std::vector<std::string>& bodies) {
    std::filesystem::remove(dir_ / "checkpoint");  // scan and check every record
    TestStore store(options_);
    auto report = store.open();
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    EXPECT_EQ(report->truncated_bytes, 0) << "nothing torn or corrupt";
    ASSERT_TRUE(store.wait_dispatched());
    EXPECT_EQ(store.bodies("T", 0), bodies);
  }

  TempDir dir_;
  StoreOptions options_;
  std::shared_ptr<FaultEnv> env_ = std::make_shared<FaultEnv>();
};

TEST_F(FaultTest, AFailedFileCreationFailsTheAppendAndHeals) {
  std::vector<std::string> stored;
  {
    TestStore store(options_, env_);
    ASSERT_TRUE(store.open().is_ok());
    ASSERT_TRUE(store.append(message("T", 0, "first")).is_ok());
    stored.push_back("first");
    env_->fail_writes("commitlog/");
    auto [acknowledged, failure] = append_until_failure(store, 1000, "m");
    ASSERT_FALSE(failure.is_ok()) << "a new commit log file was needed and could not be made";
    EXPECT_EQ(failure.code(), v1::StatusCode::kIoError);
    EXPECT_NE(failure.message().find("commitlog/"), std::string::npos) << failure.to_string();
    EXPECT_NE(failure.message().find("Input/output error"), std::string::npos) << failure.to_string();
    stored.insert(stored.end(), acknowledged.begin(), acknowledged.end());
    if (options_.transient_store_pool_enable) {
      // With the pool the failing write is the commit's pwrite, which fails the append and
      // stops writes until a restart, as a failed flush does (StorePoolTest.AFailedCommitStopsWrites).
      EXPECT_NE(failure.message().find("committing the transient store pool failed"), std::string::npos)
          << failure.to_string();
      env_->heal();
      EXPECT_FALSE(store.append(message("T", 0, "refused")).is_ok());
      store.close();
      // The failed append stays in the pool and shutdown's flush may still write it: like any
      // failed send it may or may not be stored, but every acknowledged one is.
      TestStore reopened(options_);
      ASSERT_TRUE(reopened.open().is_ok());
      ASSERT_TRUE(reopened.wait_dispatched());
      const auto bodies = reopened.bodies("T", 0);
      ASSERT_GE(bodies.size(), stored.size());
      EXPECT_LE(bodies.size(), stored.size() + 1);
      EXPECT_TRUE(std::equal(stored.begin(), stored.end(), bodies.begin()));
      return;
    }

    env_->heal();
    ASSERT_TRUE(store.append(message("T", 0, "healed")).is_ok()) << "the next append makes the file";
    stored.push_back("healed");
    ASSERT_TRUE(store.wait_dispatched());
    EXPECT_EQ(store.bodies("T", 0), stored);
  }
  expect_exactly(stored);
}

TEST_F(FaultTest, AFailedReadOfTheCommitLogHoldsDispatchBackUntilItHeals) {
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  ASSERT_TRUE(store.append(message("T", 0, "first")).is_ok());
  ASSERT_TRUE(store.wait_dispatched());
  env_->fail_reads("commitlog/");
  ASSERT_TRUE(store.append(message("T", 0, "second")).is_ok()) << "appends do not read the file";
  store.pipeline().notify_appended();
  ASSERT_TRUE(eventually([&] { return !store.pipeline().last_error().is_ok(); }))
      << "dispatch reported no error while it could not read";
  const v1::Status error = store.pipeline().last_error();
  EXPECT_EQ(error.code(), v1::StatusCode::kIoError) << error.to_string();
  EXPECT_NE(error.message().find("commitlog/"), std::string::npos) << error.to_string();
  EXPECT_NE(error.message().find("reading committed records at offset"), std::string::npos) << error.to_string();
  EXPECT_EQ(store.bodies("T", 0), std::vector<std::string>{"first"}) << "nothing dispatched past the failure";
  env_->heal();
  ASSERT_TRUE(store.wait_dispatched()) << "dispatch resumes once reads work";
  EXPECT_EQ(store.bodies("T", 0), (std::vector<std::string>{"first", "second"}));
}

TEST_F(FaultTest, AFailedFsyncFailsWaitingWritersAndStopsWrites) {
  options_.flush_mode = FlushMode::kSync;
  {
    TestStore store(options_, env_);
    ASSERT_TRUE(store.open().is_ok());
    ASSERT_TRUE(store.append(message("T", 0, "durable")).is_ok());
    env_->fail_syncs("commitlog/");
    auto failed = store.append(message("T", 0, "not durable"));
    ASSERT_FALSE(failed.is_ok());
    EXPECT_EQ(failed.status().code(), v1::StatusCode::kIoError);
    EXPECT_NE(failed.status().message().find("commit log flush failed"), std::string::npos)
        << failed.status().to_string();
    auto refused = store.append(message("T", 0, "refused"));
    ASSERT_FALSE(refused.is_ok());
    EXPECT_EQ(refused.status().code(), v1::StatusCode::kUnavailable);
    EXPECT_FALSE(store.store().stats().writable);
    EXPECT_TRUE(store.host().logged({"commit log flush failed", "refuses writes"}));
    env_->heal();
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "abort")) << "an unclean stop: the next start recovers as after a crash";
  // The record whose flush failed may or may not survive; the one acknowledged must.
  TestStore store(options_);
  ASSERT_TRUE(store.open().is_ok());
  ASSERT_TRUE(store.wait_dispatched());
  const auto bodies = store.bodies("T", 0);
  ASSERT_FALSE(bodies.empty());
  EXPECT_EQ(bodies.front(), "durable");
  EXPECT_FALSE(store.recovery().clean_shutdown);
}

TEST_F(FaultTest, ADiskFullWhileGrowingGivesAClearErrorAndNoCorruption) {
  std::vector<std::string> stored;
  {
    TestStore store(options_, env_);
    ASSERT_TRUE(store.open().is_ok());
    stored = fill_until_disk_full(store, 1000, "m");
    ASSERT_TRUE(store.wait_committed()) << "committing needs no new blocks: they were reserved before the ack";
    // Everything acknowledged can be read back by commit offset while the disk is full (dispatch
    // may stall: a consume queue needing a new file cannot get one).
    auto offset = static_cast<std::int64_t>(store.store().read_at(0).value().bytes.size());  // past "first"
    for (std::size_t i = 1; i < stored.size(); ++i) {
      auto record = store.store().read_at(offset);
      if (!record.is_ok()) {
        offset = (offset / options_.commit_log_file_size + 1) * options_.commit_log_file_size;  // past a blank
        record = store.store().read_at(offset);
      }
      ASSERT_TRUE(record.is_ok()) << record.status().to_string();
      EXPECT_EQ(body_of(*record), stored[i]);
      offset += static_cast<std::int64_t>(record->bytes.size());
    }
    env_->heal();
    ASSERT_TRUE(store.wait_dispatched()) << "dispatch resumes once there is room";
    EXPECT_EQ(store.bodies("T", 0), stored);
  }
  expect_exactly(stored);
}

// The allocator warms pages ahead of the writer and reserves their blocks first: a full disk
// stops the warming with a warning, and the writer's own reservation reports it.
TEST_F(FaultTest, ADiskFullWhileWarmingAheadIsReportedByTheWriter) {
  options_.commit_log_file_size = 4 << 20;  // reserved 256 KiB at a time
  options_.commit_log_warm_ahead = 256 << 10;
  std::vector<std::string> stored;
  {
    TestStore store(options_, env_);
    ASSERT_TRUE(store.open().is_ok());
    stored = fill_until_disk_full(store, 20000, "w");
    if (options_.write_buffers() == 0) {
      // The allocator's thread meets the full disk on its own time, which a busy machine may
      // put after the writer's failure; the disk stays full until it does.
      EXPECT_TRUE(eventually([&] {
        return store.host().logged({"could not warm the pages ahead", "No space left on device"});
      }));
    }
    env_->heal();
    ASSERT_TRUE(store.append(message("T", 0, "after")).is_ok()) << "appends go on once there is room";
    stored.push_back("after");
    ASSERT_TRUE(store.wait_dispatched());
    EXPECT_EQ(store.bodies("T", 0), stored);
  }
  expect_exactly(stored);
}

TEST_F(FaultTest, ACheckpointThatCannotBeWrittenIsLoggedNotFatal) {
  TestStore store(options_, env_);
  ASSERT_TRUE(store.open().is_ok());
  env_->fail_writes("checkpoint");
  ASSERT_TRUE(store.append(message("T", 0, "a")).is_ok());
  EXPECT_FALSE(store.store().write_checkpoint_now().is_ok());
  ASSERT_TRUE(store.append(message("T", 0, "b")).is_ok());
  ASSERT_TRUE(store.wait_dispatched());
  EXPECT_EQ(store.bodies("T", 0), (std::vector<std::string>{"a", "b"}));
  env_->heal();
}

TEST_F(FaultTest, AFailedMetadataSaveKeepsTheOldDocument) {
  CapturingHost host;
  MetadataStore metadata(*env_, Logger(host), dir_ / "config");
  ASSERT_TRUE(metadata.save("topics.json", R"({"v":1})").is_ok());
  env_->fail_writes("topics.json");
  EXPECT_EQ(metadata.save("topics.json", R"({"v":2})").code(), v1::StatusCode::kIoError);
  env_->heal();
  EXPECT_EQ(metadata.load("topics.json").value(), std::optional<std::string>(R"({"v":1})"));
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
