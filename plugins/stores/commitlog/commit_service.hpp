// CommitService: with transient_store_pool_enable, copies what the writer put in the pool into
// the commit log files (RocketMQ's CommitRealTimeService). Every commit_interval (or when woken
// after an append) it commits if at least `least_pages` 4 KiB pages wait, and everything at
// least every `thorough_interval`. After a commit it tells the flusher, which makes committed
// bytes durable on its own schedule.
//
// Appends are acknowledged once committed (submit()), unlike RocketMQ, which acknowledges what
// is still in the pool (mqkit does that only for appends that do not wait, RocketMQ's
// WAIT=false: appended()). A waiting append gets everything committed at once, by the first
// waiting appender, so an acknowledged message is in the page cache — readable at once (the
// acknowledgement is what wakes the dispatch stage) and safe from a crash of the process, as
// without the pool. Under load one commit covers many appends; the writer still never touches
// the mapped file.
//
// Streaming: when appends come back to back (eight in a row each less than 5 µs after the last
// commit ended), committing inline would cost the writer one pwrite per append. The appender
// then hands the commits to the service's thread, which commits everything waiting, again and
// again, while appends keep arriving (on the other core, in large pwrites), and goes back to
// sleep when none waits; appenders leave their acknowledgement to it meanwhile. A lone append
// at a modest rate is still committed by its own thread, without a wake-up.
//
// A failed commit (pwrite error) is reported to the owner once (the store then refuses writes),
// fails the waiting appends, and is retried on the next round; nothing committed is ever taken
// back.
//
// Threads: submit()/appended() from appending threads (after the put lock is released);
// commits and acknowledgements run on the first waiting appender's thread (submit()) or the
// service's own thread (CommitLog serializes commits); start()/stop() from the owner.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include "commit_log.hpp"
#include "logger.hpp"
#include "mqkit/plugin/v1/service_thread.hpp"

namespace mqkit::plugins::stores::commitlog {

struct CommitOptions {
  std::chrono::milliseconds interval{200};
  std::int64_t least_pages = 4;
  std::chrono::milliseconds thorough_interval{200};
};

class CommitService {
 public:
  using CommittedFn = std::function<void(std::int64_t committed)>;
  using FailureFn = std::function<void(const v1::Status&)>;

  CommitService(CommitLog& commit_log, Logger log, CommitOptions options, CommittedFn on_committed,
                FailureFn on_failure);
  ~CommitService() { stop(); }
  CommitService(const CommitService&) = delete;
  CommitService& operator=(const CommitService&) = delete;

  void start();
  // Stops the thread; what is still in the pool is committed by the next flush (shutdown).
  void stop();
  // An append that does not wait (WAIT=false) went up to `written`: wakes the service when it
  // would commit by the least-pages rule.
  void appended(std::int64_t written);
  // Calls `done` with `result` once the bytes below `end_offset` are committed, or with the
  // commit's error.
  void submit(std::int64_t end_offset, plugin::v1::AppendResult result, plugin::v1::AppendCallback done);
  // After the owner's last flush (which commits everything): answers every waiting append —
  // committed ones with their result, any other with `status`.
  void answer_remaining(const v1::Status& status);

 private:
  struct Pending {
    std::int64_t end_offset;
    plugin::v1::AppendResult result;
    plugin::v1::AppendCallback done;
  };

  void run();
  // Commits while appends wait; returns when none waits (streaming_ is then false) or when a
  // commit made no progress.
  void stream();
  // Every byte the writer put in the pool is in the file already.
  bool nothing_to_commit() const noexcept;
  bool has_pending() const;
  static std::int64_t now_ns() noexcept;
  // One commit, then the answers; false when nothing was committed or it failed.
  bool commit_and_answer(std::int64_t least_pages);
  // Answers the appends at or below the committed offset, or all of them with `error`.
  void answer(const v1::Status& error);

  CommitLog& commit_log_;
  Logger log_;
  const CommitOptions options_;
  CommittedFn on_committed_;
  FailureFn on_failure_;
  std::atomic<bool> failed_{false};   // the failure was reported
  std::atomic<bool> leading_{false};  // an appender is committing for the waiting appends
  std::atomic<bool> streaming_{false};  // the service's thread commits for the waiting appends
  std::atomic<std::int64_t> last_commit_end_ns_{0};  // steady clock
  std::atomic<int> back_to_back_{0};  // appends in a row that came right after a commit
  mutable std::mutex mutex_;
  std::deque<Pending> pending_;  // guarded by mutex_; end offsets rise along it
  v1::ServiceThread thread_;
};

}  // namespace mqkit::plugins::stores::commitlog
