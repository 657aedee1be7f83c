#include "commit_service.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {
// Appends closer than this to the end of the last commit, this many times in a row, stream (see
// the header): a short burst (a paced producer catching up) stays inline, without a wake-up.
constexpr std::int64_t kStreamingGapNs = 5'000;
constexpr int kStreamingRun = 8;
}  // namespace

std::int64_t CommitService::now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

CommitService::CommitService(CommitLog& commit_log, Logger log, CommitOptions options, CommittedFn on_committed,
                             FailureFn on_failure)
    : commit_log_(commit_log),
      log_(log),
      options_(options),
      on_committed_(std::move(on_committed)),
      on_failure_(std::move(on_failure)) {}

void CommitService::start() {
  thread_.start("CommitRealTime", [this] { run(); });
}

void CommitService::stop() { thread_.stop(); }

void CommitService::appended(std::int64_t written) {
  // The rule commit() applies, checked here so that most appends wake nobody.
  if (worth_writing_back(commit_log_.max_offset(), written, commit_log_.options().file_size, options_.least_pages)) {
    thread_.wakeup();
  }
}

void CommitService::submit(std::int64_t end_offset, plugin::v1::AppendResult result,
                           plugin::v1::AppendCallback done) {
  {
    std::lock_guard lock(mutex_);
    pending_.push_back({end_offset, result, std::move(done)});
  }
  // Sequentially consistent with stream()'s store of false and its look at pending_: either it
  // sees this append, or this sees that it stopped streaming.
  if (streaming_.load()) return;
  if (now_ns() - last_commit_end_ns_.load(std::memory_order_relaxed) >= kStreamingGapNs) {
    back_to_back_.store(0, std::memory_order_relaxed);
  } else if (back_to_back_.fetch_add(1, std::memory_order_relaxed) + 1 >= kStreamingRun) {
    back_to_back_.store(0, std::memory_order_relaxed);
    streaming_.store(true);
    thread_.wakeup();
    return;
  }
  // The first waiting appender commits for everyone who waits (no hand-over to the service's
  // thread: one context switch less per message at low rates); the others return at once and
  // are answered by it. It goes on while appends keep arriving during its commits.
  while (!leading_.exchange(true, std::memory_order_acq_rel)) {
    bool stalled = false;
    while (!stalled && has_pending()) {
      // Nothing to commit yet waiters left (a store being closed): the service thread retries.
      stalled = !commit_and_answer(0) && has_pending() && nothing_to_commit();
    }
    leading_.store(false, std::memory_order_release);
    if (stalled) {
      thread_.wakeup();
      return;
    }
    // An append queued after the last check but before the release found a leader: take over.
    if (!has_pending()) return;
  }
}

bool CommitService::commit_and_answer(std::int64_t least_pages) {
  auto committed = commit_log_.commit(least_pages);
  if (!committed.is_ok()) {
    if (!failed_.exchange(true)) {
      log_.error("committing the transient store pool to the commit log failed: " + committed.status().to_string() +
                 "; the store refuses writes until it is restarted");
      if (on_failure_) on_failure_(committed.status());
    }
    answer(committed.status().with_context("committing the transient store pool failed"));
    return false;
  }
  if (*committed && on_committed_) on_committed_(commit_log_.max_offset());
  answer(v1::Status::ok());
  last_commit_end_ns_.store(now_ns(), std::memory_order_relaxed);
  return *committed;
}

bool CommitService::nothing_to_commit() const noexcept {
  return commit_log_.written_offset() <= commit_log_.max_offset();
}

bool CommitService::has_pending() const {
  std::lock_guard lock(mutex_);
  return !pending_.empty();
}

void CommitService::answer(const v1::Status& error) {
  std::deque<Pending> ready;
  {
    std::lock_guard lock(mutex_);
    if (!error.is_ok()) {
      ready.swap(pending_);
    } else {
      const std::int64_t committed = commit_log_.max_offset();
      while (!pending_.empty() && pending_.front().end_offset <= committed) {
        ready.push_back(std::move(pending_.front()));
        pending_.pop_front();
      }
    }
  }
  for (Pending& append : ready) {
    if (error.is_ok()) {
      append.done(append.result);
    } else {
      append.done(error);
    }
  }
}

void CommitService::answer_remaining(const v1::Status& status) {
  answer(v1::Status::ok());
  answer(status);
}

void CommitService::run() {
  WriteBackRounds rounds(options_.least_pages, options_.thorough_interval);
  while (!thread_.stopping()) {
    thread_.wait_for(options_.interval);
    if (streaming_.load()) {
      stream();
      continue;
    }
    // Someone waits for an acknowledgement: commit everything now.
    (void)commit_and_answer(has_pending() ? 0 : rounds.next_least_pages());
  }
}

void CommitService::stream() {
  while (!thread_.stopping()) {
    if (has_pending()) {
      // A failed commit answered what waited with its error; appends queued since (the store
      // refuses new ones once it knows) are answered by the next attempt, not left to a round.
      if (commit_and_answer(0) || failed_.load() || !has_pending()) continue;
      // Appends that came after that commit looked at the pool wait with their bytes in it now:
      // going to sleep would leave them until the next round, since they saw this thread streaming.
      if (!nothing_to_commit()) continue;
      // Waiting appends with nothing to commit (a store being closed): retried on the next round.
      streaming_.store(false);
      return;
    }
    streaming_.store(false);
    if (!has_pending()) return;
    streaming_.store(true);
  }
}

}  // namespace mqkit::plugins::stores::commitlog
