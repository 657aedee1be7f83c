// CommitLogStore: the commitlog store plugin's MessageStore — RocketMQ's DefaultMessageStore on
// memory-mapped files with RocketMQ's on-disk layout (docs/storage-format.md). It wires the
// engine parts together: CommitLog (+ FileAllocator), ConsumeQueueSet and IndexService (with
// their Dispatchers), CommitLogFlusher, Recovery, Retention, MetadataStore and QueueReader.
//
// Threads (see store.hpp in plugin-api for the contract): append() and reads from any thread;
// dispatchers from the kernel's reput thread; the store runs its own threads — the commit log
// flusher (+ a watchdog in SYNC_FLUSH), the commit service (with the transient store pool), the
// file allocator, and a housekeeping thread that flushes consume queues and the index, writes
// the checkpoint and runs retention.
// start()/shutdown() from the owner's thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "checkpoint.hpp"
#include "commit_log.hpp"
#include "commit_service.hpp"
#include "consume_queue_set.hpp"
#include "env.hpp"
#include "flush.hpp"
#include "index_service.hpp"
#include "logger.hpp"
#include "metadata.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/host.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "mqkit/plugin/v1/store_admin.hpp"
#include "options.hpp"
#include "queue_reader.hpp"
#include "retention.hpp"
#include "mqkit/plugin/v1/service_thread.hpp"
#include "test_hooks.hpp"

namespace mqkit::plugins::stores::commitlog {

class CommitLogStore final : public plugin::v1::MessageStore, public plugin::v1::StoreAdmin, public TestHooks {
 public:
  // The plugin's factory (MQKIT_PLUGIN): validated config, the real file system.
  static v1::Result<std::unique_ptr<CommitLogStore>> create(const v1::ConfigValues& config, plugin::v1::Host& host);

  // `host` must outlive the store. Nothing touches the disk before start().
  CommitLogStore(plugin::v1::Host& host, StoreOptions options, std::shared_ptr<Env> env);
  ~CommitLogStore() override;
  CommitLogStore(const CommitLogStore&) = delete;
  CommitLogStore& operator=(const CommitLogStore&) = delete;

  v1::Result<plugin::v1::RecoveryReport> start() noexcept override;
  void shutdown() noexcept override;

  void append(std::span<const plugin::v1::MessageToAppend> batch, const plugin::v1::AppendOptions& options,
              plugin::v1::AppendCallback done) noexcept override;
  v1::Status append_replicated(std::int64_t commit_offset, std::span<const std::uint8_t> records) noexcept override;

  v1::Result<plugin::v1::ReadResult> read(const plugin::v1::ReadRequest& request) noexcept override;
  std::int64_t min_offset(std::string_view topic, std::int32_t queue_id) noexcept override;
  std::int64_t max_offset(std::string_view topic, std::int32_t queue_id) noexcept override;
  v1::Result<std::int64_t> commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                            std::int64_t queue_offset) noexcept override;
  v1::Result<plugin::v1::StoredSlice> read_at(std::int64_t commit_offset) noexcept override;
  v1::Result<std::int64_t> offset_by_time(std::string_view topic, std::int32_t queue_id, std::int64_t timestamp_ms,
                                          plugin::v1::TimeBoundary boundary) noexcept override;
  v1::Result<std::int64_t> earliest_message_time(std::string_view topic, std::int32_t queue_id) noexcept override;
  v1::Result<plugin::v1::QueryResult> query_by_key(std::string_view topic, std::string_view key,
                                                   std::int32_t max_count, std::int64_t begin_ms,
                                                   std::int64_t end_ms) noexcept override;

  v1::Status delete_topic(std::string_view topic) noexcept override;
  v1::Status flush() noexcept override;

  v1::Result<plugin::v1::DispatchChunk> read_for_dispatch(std::int64_t from_offset,
                                                          std::int64_t max_bytes) noexcept override;
  std::span<plugin::v1::Dispatcher* const> dispatchers() noexcept override { return dispatchers_; }
  void on_dispatched(std::int64_t next_offset) noexcept override;

  v1::Status save_metadata(std::string_view name, std::string_view content) noexcept override;
  v1::Result<std::optional<std::string>> load_metadata(std::string_view name) noexcept override;

  plugin::v1::StoreStats stats() noexcept override;
  void* extension(std::string_view id) noexcept override;

  // StoreAdmin (store_admin.cpp)
  v1::Result<int> delete_expired_files() noexcept override;
  v1::Result<std::vector<plugin::v1::QueueRef>> queues() noexcept override;
  v1::Result<plugin::v1::QueueUnits> queue_units(std::string_view topic, std::int32_t queue_id, std::int64_t from,
                                                 std::int32_t count) noexcept override;
  v1::Result<bool> drop_expired_queue(std::string_view topic, std::int32_t queue_id) noexcept override;

  // TestHooks
  RetentionCounts run_retention(bool manual) noexcept override;
  v1::Status write_checkpoint_now() noexcept override;
  void simulate_crash() noexcept override;

  const StoreOptions& options() const noexcept { return options_; }

 private:
  enum class State : std::uint8_t { kCreated, kRunning, kStopped };

  v1::Status guard_readable() const;
  v1::Result<plugin::v1::RecoveryReport> open();
  void housekeeping();
  // Flushes consume queues (and with `thorough` everything, plus the index) and writes the
  // checkpoint; `thorough` also advances the checkpoint's dispatch offsets.
  v1::Status checkpoint(bool thorough);
  void stop_services(bool orderly);

  Logger log_;
  const StoreOptions options_;
  std::shared_ptr<Env> env_;
  CommitLog commit_log_;
  ConsumeQueueSet queues_;
  std::unique_ptr<IndexService> index_;
  ConsumeQueueDispatcher queue_dispatcher_;
  std::unique_ptr<IndexDispatcher> index_dispatcher_;
  std::vector<plugin::v1::Dispatcher*> dispatchers_;
  CommitLogFlusher flusher_;
  CommitService committer_;  // runs only with the transient store pool
  Retention retention_;
  MetadataStore metadata_;
  QueueReader reader_;
  v1::ServiceThread housekeeping_;

  std::mutex lifecycle_mutex_;
  std::atomic<State> state_{State::kCreated};
  std::unique_ptr<File> lock_file_;
  std::atomic<std::int64_t> dispatched_{0};
  std::atomic<bool> write_failed_{false};

  std::mutex checkpoint_mutex_;
  CheckpointData checkpoint_;  // guarded by checkpoint_mutex_: what was last written
};

}  // namespace mqkit::plugins::stores::commitlog
