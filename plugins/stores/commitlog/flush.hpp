// CommitLogFlusher: makes the commit log durable (RocketMQ's FlushRealTimeService and
// GroupCommitService).
//
// ASYNC_FLUSH: every flush_interval (or when woken after an append) the flusher msyncs the
// commit log if at least `least_pages` 4 KiB pages are dirty, and everything at least every
// `thorough_interval`. Appends are acknowledged before they are durable.
//
// SYNC_FLUSH (group commit): an append that waits registers its end offset and callback; the
// flusher wakes, commits everything written so far (SYNC_FLUSH writes the commit log with pwrite
// through a write buffer, so no mapped page is ever write-protected again by the msync) and
// msyncs it — one flush for every writer that queued meanwhile — and each writer whose bytes are
// now durable is called back. Many callbacks are
// handed to a notifier thread, so the flusher starts the next msync at once instead of waking
// writers one by one between msyncs (the disk then works while the CPU wakes writers); one or
// two are called on the flusher thread, where a hand-over would only add a wake-up. When the
// last flush answered many writers and fewer are waiting now, the flusher first gathers: it
// waits — at most as long as the last flush took, and never over 1 ms — until three quarters of
// that many wait (submit() wakes it only then), so the writers it just answered ride the next
// flush together instead of each round covering the few that came back first (PostgreSQL's
// commit_delay, made adaptive: a lone writer never waits). A writer still waiting
// after `sync_timeout` is called back with flush_timed_out = true (RocketMQ's
// FLUSH_DISK_TIMEOUT) by a separate watchdog thread, so a flush stuck in the kernel cannot keep
// a producer waiting forever. Each callback is called exactly once.
//
// A failed flush fails every waiting writer with the I/O error and reports it to the owner
// (the store then refuses writes: after a failed fsync the page cache can no longer be trusted).
//
// Threads: submit()/appended() from appending threads (never under the put lock); callbacks run
// on the flusher, notifier or watchdog thread, or on the submitting thread when the bytes were
// already durable (or at stop, on the stopping thread); start()/stop() from the owner.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "commit_log.hpp"
#include "logger.hpp"
#include "options.hpp"
#include "mqkit/plugin/v1/service_thread.hpp"

namespace mqkit::plugins::stores::commitlog {

struct FlushOptions {
  FlushMode mode = FlushMode::kAsync;
  std::chrono::milliseconds interval{500};
  std::int64_t least_pages = 4;
  std::chrono::milliseconds thorough_interval{10'000};
  std::chrono::milliseconds sync_timeout{5000};
};

class CommitLogFlusher {
 public:
  using FailureFn = std::function<void(const v1::Status&)>;

  CommitLogFlusher(CommitLog& commit_log, Logger log, FlushOptions options, FailureFn on_failure);
  ~CommitLogFlusher();
  CommitLogFlusher(const CommitLogFlusher&) = delete;
  CommitLogFlusher& operator=(const CommitLogFlusher&) = delete;

  void start();
  // Flushes what is committed, answers every waiting writer, stops the threads.
  void stop();
  // Stops without flushing; waiting writers get `status` (a simulated crash).
  void abandon(const v1::Status& status);

  // SYNC_FLUSH: calls `done` once the bytes below `end_offset` are durable, or with
  // flush_timed_out after the sync timeout, or with the flush error.
  void submit(std::int64_t end_offset, plugin::v1::AppendResult result, plugin::v1::AppendCallback done);
  // Something was appended up to `end_offset`. In ASYNC_FLUSH this wakes the flusher only when
  // it would flush (enough dirty pages, or a file filled), so appends do not wake it each time.
  void appended(std::int64_t end_offset);

  std::size_t waiting() const;

 private:
  struct Waiter {
    std::int64_t end_offset;
    std::chrono::steady_clock::time_point deadline;
    plugin::v1::AppendResult result;
    plugin::v1::AppendCallback done;
  };

  // ASYNC_FLUSH's rule: at least `least_pages` dirty pages (0: any), or a file filled up.
  bool worth_flushing(std::int64_t committed, std::int64_t least_pages) const noexcept;
  // A waiter whose fate is decided: OK `error` means flushed.
  struct Answer {
    Waiter waiter;
    v1::Status error;
  };

  void run_async();
  void run_group_commit();
  void run_watchdog();
  void run_notifier();
  // Flushes (everything, or only what CommitLog::flush_settled covers) and reports a failure;
  // returns the flushed offset or the error.
  v1::Result<std::int64_t> flush_now(bool settled_only = false);
  // Answers every waiter at or below `flushed`, or all with `error`: on the notifier thread when
  // `hand_over` and there are several, else here (outside the lock). Returns how many.
  std::size_t answer(std::int64_t flushed, const v1::Status& error, bool hand_over = false);
  // Group commit: waits up to `longest` for `writers` waiters (see the top of this file).
  void gather(std::size_t writers, std::chrono::steady_clock::duration longest);
  static void deliver(Answer& answer);
  // Calls back what was handed to the notifier and not yet delivered.
  void deliver_handed_over();

  CommitLog& commit_log_;
  Logger log_;
  const FlushOptions options_;
  FailureFn on_failure_;
  v1::ServiceThread flusher_;
  v1::ServiceThread watchdog_;
  v1::ServiceThread notifier_;
  mutable std::mutex mutex_;
  std::deque<Waiter> waiters_;  // guarded by mutex_
  std::vector<Answer> handed_over_;  // guarded by mutex_: for the notifier
  bool failed_ = false;         // guarded by mutex_: the first failure was reported
  std::size_t wake_at_waiters_ = 1;  // guarded by mutex_: submit() wakes the flusher at this many
};

}  // namespace mqkit::plugins::stores::commitlog
