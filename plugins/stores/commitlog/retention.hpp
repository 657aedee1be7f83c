// Retention: watches disk use and deletes old files (RocketMQ's CleanCommitLogService and
// CleanConsumeQueueService).
//
// Each pass measures the store's disk. Above disk_space_warning_level_ratio the store is marked
// disk-full and refuses writes; it becomes writable again once use falls to
// disk_space_clean_forcibly_ratio or below. Commit log files (never the newest) whose last write
// is older than file_reserved_time are deleted, oldest first, up to 10 per pass, when it is one of
// the delete_when hours, when use is above disk_max_used_space_ratio, or when a pass is run by
// hand; above disk_space_clean_forcibly_ratio even unexpired files go. Then consume queue and
// index files that only point below the new commit log minimum are deleted and queue minimum
// offsets move up. A deleted file a reader still holds stays mapped until the reader lets go.
//
// Threads: run() and check_disk() on the store's housekeeping thread or a test's (passes are
// serialized); disk_full() and the message from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "commit_log.hpp"
#include "consume_queue_set.hpp"
#include "env.hpp"
#include "index_service.hpp"
#include "logger.hpp"
#include "options.hpp"

namespace mqkit::plugins::stores::commitlog {

struct RetentionPass {
  int commit_log_files = 0;
  int consume_queue_files = 0;
  int index_files = 0;
  double disk_used_ratio = 0.0;
};

class Retention {
 public:
  // Sleeps between two deletions; false when the owner is stopping.
  using PauseFn = std::function<bool(std::chrono::milliseconds)>;

  Retention(Env& env, Logger log, const StoreOptions& options, CommitLog& commit_log, ConsumeQueueSet& queues,
            IndexService* index)
      : env_(env), log_(log), options_(options), commit_log_(commit_log), queues_(queues), index_(index) {}

  // One cleaning pass; `manual` deletes expired files whatever the hour and disk use.
  RetentionPass run(bool manual, const PauseFn& pause = {});
  // Measures disk use and updates the disk-full state; returns the used ratio (-1 unknown).
  double check_disk();

  // Runs `fn` while no pass is under way: a queue dropped by hand is not one a pass is cleaning.
  template <typename Fn>
  auto between_passes(Fn&& fn) {
    std::lock_guard lock(pass_mutex_);
    return fn();
  }

  bool disk_full() const noexcept { return disk_full_.load(std::memory_order_acquire); }
  double disk_used_ratio() const noexcept { return used_ratio_.load(std::memory_order_acquire); }
  // The error an append gets while the disk is full.
  std::string disk_full_message() const;

 private:
  int delete_commit_log_files(bool clean_at_once, const PauseFn& pause);
  bool is_delete_hour() const;

  Env& env_;
  Logger log_;
  const StoreOptions& options_;
  CommitLog& commit_log_;
  ConsumeQueueSet& queues_;
  IndexService* index_;
  std::mutex pass_mutex_;
  std::atomic<bool> disk_full_{false};
  std::atomic<double> used_ratio_{0.0};
};

}  // namespace mqkit::plugins::stores::commitlog
