#include "commit_service.hpp"

namespace mqkit::plugins::stores::commitlog {

CommitService::CommitService(CommitLog& commit_log, Logger log, CommitOptions options, CommittedFn on_committed,
                             FailureFn on_failure)
    : commit_log_(commit_log),
      log_(log),
      options_(options),
      on_committed_(std::move(on_committed)),
      on_failure_(std::move(on_failure)) {}

void CommitService::start() {
  thread_.start([this] { run(); });
}

void CommitService::stop() { thread_.stop(); }

void CommitService::appended(std::int64_t written) {
  // The rule commit() applies, checked here so that most appends wake nobody.
  if (worth_writing_back(commit_log_.max_offset(), written, commit_log_.options().file_size, options_.least_pages)) {
    thread_.wakeup();
  }
}

void CommitService::run() {
  WriteBackRounds rounds(options_.least_pages, options_.thorough_interval);
  while (!thread_.stopping()) {
    thread_.wait_for(options_.interval);
    auto committed = commit_log_.commit(rounds.next_least_pages());
    if (!committed.is_ok()) {
      if (!failed_) {
        failed_ = true;
        log_.error("committing the transient store pool to the commit log failed: " + committed.status().to_string() +
                   "; the store refuses writes until it is restarted");
        if (on_failure_) on_failure_(committed.status());
      }
      continue;
    }
    if (*committed && on_committed_) on_committed_(commit_log_.max_offset());
  }
}

}  // namespace mqkit::plugins::stores::commitlog
