// DispatchPipeline: the broker's reput stage (RocketMQ's ReputMessageService). One thread reads
// what the store's commit log has committed, decodes each record once into a DispatchRecord, and
// hands it to every dispatcher in order: first the store's own (consume queue builder, index
// builder), then the kernel's (long-polling wake-up, delay scheduler, ...). A record becomes
// readable by queue once the store's dispatchers have seen it.
//
// Threads: start() launches the reput thread. notify_appended() and the wait/observer methods
// may be called from any thread. Dispatchers are called by one thread at a time, in commit log
// order: the reput thread, or the thread calling notify_appended() when the reput thread is idle
// (it then dispatches the append itself, for half a millisecond at most: at a modest rate a
// wake-up per append costs more than the dispatch, and it is one more hop between a send and
// the pull it answers).
//
// Failure policy: a record that fails to decode or a dispatcher error stops progress at that
// record (never skipped) and is logged; the pipeline retries after a back-off, and the store's
// recovery rebuilds what is missing after a restart.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::kernel {

struct DispatchOptions {
  std::int64_t max_chunk_bytes = 4 * 1024 * 1024;
  // How long the reput thread sleeps when it is caught up and nobody calls notify_appended():
  // idle_wait after a round that dispatched something or a notification, then twice as long
  // after each empty round, up to idle_wait_max. Appends notify, so the poll only finds records
  // that became readable without an append's callback (the transient store pool's commits of
  // WAIT=false appends, themselves up to commit_interval_commit_log late); an idle broker then
  // wakes this thread 60 times a second instead of 1,000.
  std::chrono::milliseconds idle_wait{1};
  std::chrono::milliseconds idle_wait_max{16};
  std::chrono::milliseconds error_backoff{100};
};

class DispatchPipeline {
 public:
  // Computes a record's tags code; the default hashes the TAGS property. The delay scheduler
  // overrides it for its schedule topic (the code becomes the delivery time).
  using TagsCodeFn = std::function<std::int64_t(const plugin::v1::RecordView& record,
                                                std::string_view tags)>;

  DispatchPipeline(std::shared_ptr<plugin::v1::MessageStore> store, DispatchOptions options = {});
  ~DispatchPipeline();
  DispatchPipeline(const DispatchPipeline&) = delete;
  DispatchPipeline& operator=(const DispatchPipeline&) = delete;

  // Adds a kernel dispatcher, called after the store's. Only before start(). Not owned.
  void add_dispatcher(plugin::v1::Dispatcher* dispatcher);
  void set_tags_code_fn(TagsCodeFn fn);

  // Starts dispatching from `from_offset` (the store's RecoveryReport::dispatch_from_offset).
  void start(std::int64_t from_offset);
  // Stops the thread after the record in progress.
  void stop();

  // Call after an append so dispatch latency stays low: dispatches on the calling thread when
  // no other thread is dispatching, else wakes the reput thread. Never from a dispatcher.
  void notify_appended();

  // Next commit log offset to dispatch (everything below it has been dispatched).
  std::int64_t dispatched_offset() const noexcept { return dispatched(); }
  // Waits until dispatched_offset() >= offset; false on timeout.
  bool wait_dispatched(std::int64_t offset, std::chrono::milliseconds timeout);
  // Dispatches synchronously on the caller's thread until caught up (tests, recovery tools).
  // Only when the thread is not running.
  plugin::v1::Status dispatch_until_caught_up();
  // The last error that stopped progress, OK when none.
  plugin::v1::Status last_error() const;

 private:
  static constexpr std::chrono::steady_clock::time_point kNoDeadline = std::chrono::steady_clock::time_point::max();
  // Dispatches one chunk, or its records up to the first to end past `deadline`; returns how many
  // bytes it advanced (0 = caught up). With dispatching_.
  plugin::v1::Result<std::int64_t> dispatch_once(std::chrono::steady_clock::time_point deadline = kNoDeadline);
  // notify_appended()'s own dispatch: true when it caught up (no wake-up needed).
  bool dispatch_on_this_thread();
  void run();
  std::int64_t dispatched() const noexcept { return dispatched_.load(std::memory_order_acquire); }

  std::shared_ptr<plugin::v1::MessageStore> store_;
  DispatchOptions options_;
  std::vector<plugin::v1::Dispatcher*> kernel_dispatchers_;
  TagsCodeFn tags_code_fn_;

  std::atomic<std::int64_t> dispatched_{0};
  std::thread thread_;
  // Held by whichever thread runs dispatchers; taken before mutex_.
  std::mutex dispatching_;
  std::atomic<bool> running_{false};  // start() .. stop(): dispatchers may be called
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable progressed_;
  bool stopping_ = false;
  std::atomic<bool> notified_{false};  // set before mutex_ is taken to notify: no lost wake-up
  plugin::v1::Status last_error_;
};

}  // namespace mqkit::kernel
