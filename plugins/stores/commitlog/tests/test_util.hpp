// Shared helpers for the commitlog engine's unit tests: a temporary directory, a Host that keeps
// log lines, messages that own their bytes, and a store driven by the kernel's real dispatch
// pipeline (as a broker drives it).
//
// Threads: a TestStore is used by one test thread, except append(), which may be called from
// several at once; CapturingHost::log is thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "env.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/host.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "options.hpp"
#include "store.hpp"

namespace mqkit::plugins::stores::commitlog::testing {

namespace v1 = ::mqkit::plugin::v1;

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

// Keeps every log line; set MQKIT_TEST_LOG=1 to also print them.
class CapturingHost final : public v1::Host {
 public:
  void log(v1::LogLevel level, std::string_view plugin, std::string_view message) noexcept override;
  v1::Result<std::shared_ptr<void>> create_plugin(v1::Category, std::string_view) noexcept override {
    return v1::Status::not_supported("no nested plugins in unit tests");
  }
  std::vector<std::string> lines() const;
  // Whether some line contains every one of `parts`.
  bool logged(std::initializer_list<std::string_view> parts) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

// A message that owns its topic, body and properties.
struct Message {
  std::string topic = "TopicA";
  std::int32_t queue_id = 0;
  std::string body = "body";
  v1::Properties properties;
  std::int32_t sys_flag = 0;

  Message& keys(std::string value);
  Message& unique_key(std::string value);
  Message& tags(std::string value);
  v1::MessageToAppend view() const;

 private:
  mutable std::string encoded_;
};
Message message(std::string topic, std::int32_t queue_id, std::string body);

// Small files and fast timers: runs cross file boundaries and flush rounds quickly.
StoreOptions small_options(const std::string& dir);

// A CommitLogStore plus the kernel's dispatch pipeline.
class TestStore {
 public:
  TestStore(StoreOptions options, std::shared_ptr<Env> env = posix_env());
  ~TestStore();

  v1::Result<v1::RecoveryReport> open(bool dispatch = true);
  // Shuts down cleanly (pipeline first, as a broker does).
  void close();
  // Stops as a killed process would (see TestHooks::simulate_crash).
  void crash();

  CommitLogStore& store() { return *store_; }
  CapturingHost& host() { return host_; }
  const v1::RecoveryReport& recovery() const { return recovery_; }
  kernel::DispatchPipeline& pipeline() { return *pipeline_; }

  v1::Result<v1::AppendResult> append(std::span<const Message> batch, v1::AppendOptions options = {});
  v1::Result<v1::AppendResult> append(const Message& m, v1::AppendOptions options = {}) {
    return append(std::span(&m, 1), options);
  }
  // Waits until everything appended is dispatched.
  bool wait_dispatched();
  // Waits until the last record appended is committed (in the file): with the transient store pool
  // a crash loses what the pool had not committed yet, as a killed RocketMQ broker does.
  bool wait_committed();
  // Bodies of every record of a queue, from its min offset.
  std::vector<std::string> bodies(std::string_view topic, std::int32_t queue_id);

 private:
  CapturingHost host_;
  StoreOptions options_;
  std::shared_ptr<Env> env_;
  std::shared_ptr<CommitLogStore> store_;
  std::unique_ptr<kernel::DispatchPipeline> pipeline_;
  v1::RecoveryReport recovery_{};
  std::atomic<std::int64_t> last_commit_offset_{-1};  // append() may run on several threads
};

// Polls `condition` every 5 ms until it holds (true) or `limit` passes (false).
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = std::chrono::seconds(5));
std::string_view text(std::span<const std::uint8_t> bytes);
std::string body_of(const v1::StoredSlice& slice);
// Reads a whole file as bytes / writes bytes at a position (to corrupt files on purpose).
std::vector<std::uint8_t> read_file(const std::string& path);
void patch_file(const std::string& path, std::int64_t offset, std::span<const std::uint8_t> bytes);
std::vector<std::string> list_dir(const std::string& path);
// Bytes of disk a (possibly sparse) file takes.
std::int64_t allocated_bytes(const std::string& path);

}  // namespace mqkit::plugins::stores::commitlog::testing
