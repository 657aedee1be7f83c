// CommitService: with transient_store_pool_enable, copies what the writer put in the pool into
// the commit log files (RocketMQ's CommitRealTimeService). Every commit_interval (or when woken
// after an append) it commits if at least `least_pages` 4 KiB pages wait, and everything at
// least every `thorough_interval` — so a record becomes readable (and dispatchable) at most
// about thorough_interval after it was appended, sooner under load. After a commit it tells the
// flusher, which makes committed bytes durable on its own schedule.
//
// A failed commit (pwrite error) is reported to the owner once (the store then refuses writes)
// and retried on the next round; nothing committed is ever taken back.
//
// Threads: appended() from appending threads (after the put lock is released); the commits run
// on the service's own thread; start()/stop() from the owner.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "commit_log.hpp"
#include "logger.hpp"
#include "service_thread.hpp"

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
  // Something was appended up to `written`: wakes the service when it would commit.
  void appended(std::int64_t written);

 private:
  void run();

  CommitLog& commit_log_;
  Logger log_;
  const CommitOptions options_;
  CommittedFn on_committed_;
  FailureFn on_failure_;
  bool failed_ = false;  // only on the service's thread: the failure was reported
  ServiceThread thread_;
};

}  // namespace mqkit::plugins::stores::commitlog
