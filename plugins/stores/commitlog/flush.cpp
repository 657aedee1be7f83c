#include "flush.hpp"

#include <algorithm>
#include <vector>

namespace mqkit::plugins::stores::commitlog {

namespace {
// How long the group-commit thread sleeps when nobody wakes it (RocketMQ waits 10 ms).
constexpr std::chrono::milliseconds kGroupCommitWait{10};
constexpr std::chrono::milliseconds kWatchdogIdle{100};
constexpr std::chrono::milliseconds kNotifierIdle{100};
// Up to this many writers are called back on the flusher thread itself.
constexpr std::size_t kAnsweredInline = 2;
// Gathering starts when the last flush answered at least this many writers; it waits for this
// share of them, at most this long.
constexpr std::size_t kGatherFromWriters = 4;
constexpr std::size_t kGatherPercent = 75;
constexpr std::chrono::microseconds kGatherLongest{1000};
}  // namespace

CommitLogFlusher::CommitLogFlusher(CommitLog& commit_log, Logger log, FlushOptions options, FailureFn on_failure)
    : commit_log_(commit_log), log_(log), options_(options), on_failure_(std::move(on_failure)) {}

CommitLogFlusher::~CommitLogFlusher() { abandon(v1::Status::unavailable("the store was destroyed before the flush")); }

void CommitLogFlusher::start() {
  if (options_.mode == FlushMode::kSync) {
    flusher_.start("GroupCommit", [this] { run_group_commit(); });
    watchdog_.start("FlushWatchdog", [this] { run_watchdog(); });
    notifier_.start("FlushNotifier", [this] { run_notifier(); });
  } else {
    flusher_.start("FlushRealTime", [this] { run_async(); });
  }
}

void CommitLogFlusher::stop() {
  flusher_.stop();
  watchdog_.stop();
  notifier_.stop();
  deliver_handed_over();
  auto flushed = flush_now();
  answer(flushed.is_ok() ? *flushed : -1, flushed.status());
}

void CommitLogFlusher::abandon(const v1::Status& status) {
  flusher_.stop();
  watchdog_.stop();
  notifier_.stop();
  deliver_handed_over();
  answer(-1, status);
}

void CommitLogFlusher::submit(std::int64_t end_offset, plugin::v1::AppendResult result,
                              plugin::v1::AppendCallback done) {
  bool durable = false;
  bool failed = false;
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    failed = failed_;
    durable = commit_log_.flushed_offset() >= end_offset;
    if (!failed && !durable) {
      waiters_.push_back({end_offset, std::chrono::steady_clock::now() + options_.sync_timeout, result, std::move(done)});
      wake = waiters_.size() >= wake_at_waiters_;
    }
  }
  if (failed) {
    done(v1::Status::io_error("an earlier commit log flush failed; the record may not be durable"));
  } else if (durable) {
    done(result);
  } else if (wake) {
    flusher_.wakeup();
  }
}

std::size_t CommitLogFlusher::waiting() const {
  std::lock_guard lock(mutex_);
  return waiters_.size();
}

v1::Result<std::int64_t> CommitLogFlusher::flush_now(bool settled_only) {
  auto flushed = settled_only ? commit_log_.flush_settled() : commit_log_.flush();
  if (!flushed.is_ok()) {
    bool first = false;
    {
      std::lock_guard lock(mutex_);
      first = !failed_;
      failed_ = true;
    }
    if (first) {
      log_.error("commit log flush failed: " + flushed.status().to_string() +
                 "; the store refuses writes until it is restarted");
      if (on_failure_) on_failure_(flushed.status());
    }
  }
  return flushed;
}

std::size_t CommitLogFlusher::answer(std::int64_t flushed, const v1::Status& error, bool hand_over) {
  std::vector<Answer> ready;
  bool handed = false;
  std::size_t answered = 0;
  {
    std::lock_guard lock(mutex_);
    auto keep = waiters_.begin();
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (!error.is_ok() || it->end_offset <= flushed) {
        ready.push_back({std::move(*it), error});
      } else {
        if (keep != it) *keep = std::move(*it);
        ++keep;
      }
    }
    waiters_.erase(keep, waiters_.end());
    answered = ready.size();
    if (hand_over && ready.size() > kAnsweredInline) {
      for (auto& answer : ready) handed_over_.push_back(std::move(answer));
      ready.clear();
      handed = true;
    }
  }
  if (handed) notifier_.wakeup();
  for (auto& answer : ready) deliver(answer);
  return answered;
}

void CommitLogFlusher::deliver(Answer& answer) {
  if (answer.error.is_ok()) {
    answer.waiter.done(answer.waiter.result);
  } else {
    const v1::Status& error = answer.error;
    answer.waiter.done(error.code() == v1::StatusCode::kIoError ? error.with_context("commit log flush failed") : error);
  }
}

void CommitLogFlusher::deliver_handed_over() {
  std::vector<Answer> ready;
  {
    std::lock_guard lock(mutex_);
    ready.swap(handed_over_);
  }
  for (auto& answer : ready) deliver(answer);
}

void CommitLogFlusher::run_notifier() {
  while (!notifier_.stopping()) {
    notifier_.wait_for(kNotifierIdle);
    deliver_handed_over();
  }
}

void CommitLogFlusher::run_group_commit() {
  std::size_t last_answered = 0;
  std::chrono::steady_clock::duration last_flush{};
  while (!flusher_.stopping()) {
    flusher_.wait_for(kGroupCommitWait);
    // Appends that did not wait (WAIT=false) are flushed on the same beat as those that do.
    if (waiting() == 0 && commit_log_.flushed_offset() >= commit_log_.written_offset()) continue;
    if (last_answered >= kGatherFromWriters) {
      gather(last_answered * kGatherPercent / 100, std::min<std::chrono::steady_clock::duration>(last_flush, kGatherLongest));
    }
    const auto started = std::chrono::steady_clock::now();
    auto flushed = flush_now();
    last_flush = std::chrono::steady_clock::now() - started;
    last_answered = answer(flushed.is_ok() ? *flushed : -1, flushed.status(), /*hand_over=*/true);
  }
}

void CommitLogFlusher::gather(std::size_t writers, std::chrono::steady_clock::duration longest) {
  const auto deadline = std::chrono::steady_clock::now() + longest;
  {
    std::lock_guard lock(mutex_);
    if (waiters_.size() >= writers) return;
    wake_at_waiters_ = writers;
  }
  for (auto now = std::chrono::steady_clock::now(); now < deadline && !flusher_.stopping();
       now = std::chrono::steady_clock::now()) {
    flusher_.wait_for(deadline - now);
    if (waiting() >= writers) break;
  }
  std::lock_guard lock(mutex_);
  wake_at_waiters_ = 1;
}

void CommitLogFlusher::run_watchdog() {
  while (!watchdog_.stopping()) {
    const auto now = std::chrono::steady_clock::now();
    std::vector<Waiter> expired;
    auto next_wait = kWatchdogIdle;
    {
      std::lock_guard lock(mutex_);
      // Deadlines rise along the queue: every waiter got the same timeout when it was queued.
      while (!waiters_.empty() && waiters_.front().deadline <= now) {
        expired.push_back(std::move(waiters_.front()));
        waiters_.pop_front();
      }
      if (!waiters_.empty()) {
        next_wait = std::min(next_wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                            waiters_.front().deadline - now) + std::chrono::milliseconds(1));
      }
    }
    if (!expired.empty()) {
      log_.warn("sync flush did not finish within " + std::to_string(options_.sync_timeout.count()) + " ms; " +
                std::to_string(expired.size()) + " append(s) acknowledged as FLUSH_DISK_TIMEOUT");
    }
    for (auto& waiter : expired) {
      waiter.result.flush_timed_out = true;
      waiter.done(waiter.result);
    }
    watchdog_.wait_for(next_wait);
  }
}

bool CommitLogFlusher::worth_flushing(std::int64_t committed, std::int64_t least_pages) const noexcept {
  return worth_writing_back(commit_log_.flushed_offset(), committed, commit_log_.options().file_size, least_pages);
}

void CommitLogFlusher::appended(std::int64_t end_offset) {
  if (options_.mode == FlushMode::kAsync &&
      !worth_flushing(commit_log_.settled_offset(end_offset), options_.least_pages)) {
    return;
  }
  flusher_.wakeup();
}

void CommitLogFlusher::run_async() {
  WriteBackRounds rounds(options_.least_pages, options_.thorough_interval);
  while (!flusher_.stopping()) {
    flusher_.wait_for(options_.interval);
    const std::int64_t least_pages = rounds.next_least_pages();
    if (least_pages == 0) {
      if (worth_flushing(commit_log_.max_offset(), 0)) (void)flush_now();
    } else if (worth_flushing(commit_log_.settled_offset(commit_log_.max_offset()), least_pages)) {
      (void)flush_now(/*settled_only=*/true);
    }
  }
}

}  // namespace mqkit::plugins::stores::commitlog
