// IndexService: the list of index files and the Dispatcher that fills them (RocketMQ's
// IndexService + CommitLogDispatcherBuildIndex). Every committed record is indexed under
// "topic#UNIQ_KEY" and "topic#<each space-separated KEYS entry>"; rolled-back transaction
// records are skipped. A full file is followed by a new one; queries walk the files whose time
// span overlaps the request, newest first.
//
// Threads: build() runs on the reput thread; query() on any thread; retention and flushing on
// the housekeeping thread. A shared mutex keeps readers off a file while it is written.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "env.hpp"
#include "index_file.hpp"
#include "logger.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::plugins::stores::commitlog {

struct IndexQuery {
  std::vector<std::int64_t> commit_offsets;  // newest first; may hold hash collisions
  std::int64_t last_update_timestamp = 0;
  std::int64_t last_update_commit_offset = 0;
};

class IndexService {
 public:
  IndexService(Env& env, Logger log, std::string dir, std::int64_t slot_count, std::int64_t item_count);

  v1::Status load();
  // Recovery truncated the commit log at `commit_log_max`: records from there on are new and
  // must be indexed even if stale entries point at those offsets.
  void limit_to(std::int64_t commit_log_max);

  v1::Status build(const plugin::v1::DispatchRecord& record);
  IndexQuery query(std::string_view topic, std::string_view key, std::size_t max, std::int64_t begin,
                   std::int64_t end) const;

  // Deletes files (never the newest) whose entries all point below `commit_log_min`.
  v1::Result<int> delete_expired_files(std::int64_t commit_log_min);
  v1::Status flush();
  // End timestamp of the newest file (the checkpoint's indexMsgTimestamp).
  std::int64_t last_timestamp() const;
  std::size_t file_count() const;

 private:
  v1::Result<IndexFile*> writable_file();
  v1::Status put(std::string_view topic, std::string_view key, const plugin::v1::DispatchRecord& record);

  Env& env_;
  Logger log_;
  const std::string dir_;
  const std::int64_t slot_count_;
  const std::int64_t item_count_;
  mutable std::shared_mutex mutex_;
  std::vector<std::unique_ptr<IndexFile>> files_;
  // Records at or below this commit offset are already indexed (re-dispatch skips them).
  std::int64_t last_indexed_ = -1;
  std::string key_buffer_;  // guarded by mutex_ (exclusive): put()'s "topic#key", reused
};

class IndexDispatcher final : public plugin::v1::Dispatcher {
 public:
  explicit IndexDispatcher(IndexService& index) : index_(index) {}
  std::string_view name() const noexcept override { return "build_index"; }
  plugin::v1::Status dispatch(const plugin::v1::DispatchRecord& record) noexcept override {
    return index_.build(record);
  }

 private:
  IndexService& index_;
};

// "topic#key", the string RocketMQ hashes (into `out`, reusing its memory).
void index_key(std::string_view topic, std::string_view key, std::string& out);
std::string index_key(std::string_view topic, std::string_view key);

// Calls `visit` with each non-empty, space-separated entry of a KEYS property; stops early when
// `visit` returns false. Returns false when it stopped early.
template <typename Visit>
bool for_each_key(std::string_view keys, Visit&& visit) {
  while (!keys.empty()) {
    const auto space = keys.find(' ');
    const std::string_view key = keys.substr(0, space);
    if (!key.empty() && !visit(key)) return false;
    if (space == std::string_view::npos) break;
    keys.remove_prefix(space + 1);
  }
  return true;
}

}  // namespace mqkit::plugins::stores::commitlog
