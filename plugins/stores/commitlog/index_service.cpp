#include "index_service.hpp"

#include <algorithm>
#include <mutex>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::plugins::stores::commitlog {

void index_key(std::string_view topic, std::string_view key, std::string& out) {
  out.clear();
  out += topic;
  out += '#';
  out += key;
}

std::string index_key(std::string_view topic, std::string_view key) {
  std::string out;
  index_key(topic, key, out);
  return out;
}

IndexService::IndexService(Env& env, Logger log, std::string dir, std::int64_t slot_count, std::int64_t item_count)
    : env_(env), log_(log), dir_(std::move(dir)), slot_count_(slot_count), item_count_(item_count) {}

v1::Status IndexService::load() {
  auto names = env_.list_dir(dir_);
  if (!names.is_ok()) return names.status().code() == v1::StatusCode::kNotFound ? v1::Status::ok() : names.status();
  std::sort(names->begin(), names->end());
  std::vector<std::unique_ptr<IndexFile>> files;
  for (const auto& name : *names) {
    if (name.size() != 17 || name.find_first_not_of("0123456789") != std::string::npos) {
      log_.warn("ignoring " + dir_ + "/" + name + ": not an index file name (yyyyMMddHHmmssSSS)");
      continue;
    }
    MQKIT_ASSIGN_OR_RETURN(auto file, IndexFile::open(env_, dir_ + "/" + name, slot_count_, item_count_));
    if (file->index_count() > item_count_) {
      log_.warn("index file " + file->path() + " is damaged: its header counts " +
                std::to_string(file->index_count()) + " items, more than the " + std::to_string(item_count_) +
                " it holds; it is read no further than that and takes no new keys");
    }
    files.push_back(std::move(file));
  }
  std::unique_lock lock(mutex_);
  files_ = std::move(files);
  last_indexed_ = files_.empty() || files_.back()->index_count() <= 1 ? -1 : files_.back()->end_phy_offset();
  return v1::Status::ok();
}

void IndexService::limit_to(std::int64_t commit_log_max) {
  std::unique_lock lock(mutex_);
  last_indexed_ = std::min(last_indexed_, commit_log_max - 1);
}

v1::Result<IndexFile*> IndexService::writable_file() {
  if (!files_.empty() && !files_.back()->is_full()) return files_.back().get();
  const std::int64_t end_phy = files_.empty() ? 0 : files_.back()->end_phy_offset();
  const std::int64_t end_time = files_.empty() ? 0 : files_.back()->end_timestamp();
  MQKIT_RETURN_IF_ERROR(env_.create_dirs(dir_));
  // Names are creation times; two files made within one millisecond get consecutive names.
  std::int64_t name_time = env_.now_ms();
  while (env_.exists(dir_ + "/" + index_file_name(name_time))) ++name_time;
  MQKIT_ASSIGN_OR_RETURN(auto file, IndexFile::create(env_, dir_ + "/" + index_file_name(name_time), slot_count_,
                                                      item_count_, end_phy, end_time));
  if (!files_.empty()) {
    log_.info("index file " + files_.back()->path() + " is full; continuing in " + file->path());
    // The full file is never written again: make it durable now.
    v1::Status flushed = files_.back()->flush();
    if (!flushed.is_ok()) log_.warn("flushing full index file: " + flushed.to_string());
  }
  files_.push_back(std::move(file));
  return files_.back().get();
}

v1::Status IndexService::put(std::string_view topic, std::string_view key, const plugin::v1::DispatchRecord& record) {
  index_key(topic, key, key_buffer_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    MQKIT_ASSIGN_OR_RETURN(IndexFile * file, writable_file());
    MQKIT_ASSIGN_OR_RETURN(const bool stored, file->put(key_buffer_, record.commit_offset, record.store_timestamp));
    if (stored) return v1::Status::ok();
  }
  return v1::Status::internal("a fresh index file refused an entry");
}

v1::Status IndexService::build(const plugin::v1::DispatchRecord& record) {
  const std::int32_t type = record.sys_flag & plugin::v1::sys_flag::kTransactionMask;
  if (type == plugin::v1::sys_flag::kTransactionRollback) return v1::Status::ok();
  std::unique_lock lock(mutex_);
  if (record.commit_offset <= last_indexed_) return v1::Status::ok();
  if (!record.unique_key.empty()) MQKIT_RETURN_IF_ERROR(put(record.topic, record.unique_key, record));
  v1::Status status;
  for_each_key(record.keys, [&](std::string_view key) {
    status = put(record.topic, key, record);
    return status.is_ok();
  });
  if (status.is_ok()) last_indexed_ = record.commit_offset;
  return status;
}

IndexQuery IndexService::query(std::string_view topic, std::string_view key, std::size_t max, std::int64_t begin,
                               std::int64_t end) const {
  IndexQuery out;
  const std::string indexed = index_key(topic, key);
  std::shared_lock lock(mutex_);
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    const IndexFile& file = **it;
    if (it == files_.rbegin()) {
      out.last_update_timestamp = file.end_timestamp();
      out.last_update_commit_offset = file.end_phy_offset();
    }
    if (file.time_matched(begin, end)) file.select(indexed, max, begin, end, out.commit_offsets);
    if (file.begin_timestamp() < begin || out.commit_offsets.size() >= max) break;
  }
  return out;
}

v1::Result<int> IndexService::delete_expired_files(std::int64_t commit_log_min) {
  std::vector<std::unique_ptr<IndexFile>> expired;
  {
    std::unique_lock lock(mutex_);
    while (files_.size() > 1 && files_.front()->end_phy_offset() < commit_log_min) {
      expired.push_back(std::move(files_.front()));
      files_.erase(files_.begin());
    }
  }
  for (auto& file : expired) {
    log_.info("retention: deleting index file " + file->path());
    MQKIT_RETURN_IF_ERROR(file->destroy(env_));
  }
  return static_cast<int>(expired.size());
}

v1::Status IndexService::flush() {
  std::shared_lock lock(mutex_);
  if (files_.empty()) return v1::Status::ok();
  return files_.back()->flush();
}

std::int64_t IndexService::last_timestamp() const {
  std::shared_lock lock(mutex_);
  return files_.empty() ? 0 : files_.back()->end_timestamp();
}

std::size_t IndexService::file_count() const {
  std::shared_lock lock(mutex_);
  return files_.size();
}

}  // namespace mqkit::plugins::stores::commitlog
