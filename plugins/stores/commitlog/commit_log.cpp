#include "commit_log.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "big_endian.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {

using plugin::v1::kBlankHeaderSize;
using plugin::v1::kBlankMagic;
using plugin::v1::kMessageMagicV1;
using plugin::v1::MessageToAppend;

// Copies a finished record (or batch) so that its first 4 bytes, the size, land last: a process
// killed mid-copy leaves a zero size, which recovery reads as the end of the log, never a
// record with a whole header and a torn tail.
void copy_records(std::uint8_t* destination, std::span<const std::uint8_t> records) {
  std::memcpy(destination + 4, records.data() + 4, records.size() - 4);
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(destination, records.data(), 4);
}

// Disk blocks are reserved in fixed chunks ahead of the writer: 64 MiB for the default 1 GiB
// file (a sixteenth of smaller files, at least a page). A fallocate of a chunk takes tens of
// microseconds, once per 64 Ki records of 1 KiB.
MappedFile::Policy commit_log_policy(const CommitLogOptions& options) {
  const std::int64_t chunk = std::clamp<std::int64_t>(options.file_size / 16, kFlushPageSize, 64LL << 20);
  return {.min_step = chunk, .max_step = chunk, .zero_ahead = options.zero_ahead};
}

// Evictions go in steps of at least this much (one posix_fadvise and madvise per file and step).
constexpr std::int64_t kDropCacheStep = 4LL << 20;

}  // namespace

bool worth_writing_back(std::int64_t from, std::int64_t to, std::int64_t file_size, std::int64_t least_pages) noexcept {
  if (to <= from) return false;
  if (least_pages <= 0 || from / file_size != to / file_size) return true;
  return to / kFlushPageSize - from / kFlushPageSize >= least_pages;
}

bool takes_queue_offset(std::int32_t sys_flag) noexcept {
  const std::int32_t type = sys_flag & plugin::v1::sys_flag::kTransactionMask;
  return type != plugin::v1::sys_flag::kTransactionPrepared && type != plugin::v1::sys_flag::kTransactionRollback;
}

v1::Status validate_topic_name(std::string_view topic) {
  if (topic.empty()) return v1::Status::invalid_argument("topic is empty");
  if (topic == "." || topic == ".." || topic.find('/') != std::string_view::npos ||
      topic.find('\0') != std::string_view::npos) {
    return v1::Status::invalid_argument("topic '" + std::string(topic) +
                                        "' cannot name a consume queue directory ('/', NUL, '.' and '..' are refused)");
  }
  return v1::Status::ok();
}

CommitLog::CommitLog(Env& env, Logger log, CommitLogOptions options)
    : env_(env),
      log_(log),
      options_(std::move(options)),
      files_(env, log, options_.dir, options_.file_size, commit_log_policy(options_)),
      allocator_(env, log, options_.dir, options_.file_size, commit_log_policy(options_), options_.warm_ahead) {}

CommitLog::~CommitLog() { allocator_.stop(); }

v1::Status CommitLog::load() {
  MQKIT_RETURN_IF_ERROR(files_.load());
  if (options_.write_buffers > 0 && !pool_) {
    MQKIT_ASSIGN_OR_RETURN(pool_, TransientStorePool::create(options_.write_buffers, options_.file_size));
  }
  return v1::Status::ok();
}

void CommitLog::restore(std::int64_t max_offset, std::int64_t flushed_offset, std::int64_t last_store_timestamp,
                        QueueOffsetTable queue_offsets) {
  for (const auto& file : files_.snapshot()) {
    const std::int64_t wrote = std::clamp<std::int64_t>(max_offset - file->start_offset(), 0, file->size());
    file->set_wrote_position(wrote);
    file->set_flushed_position(std::clamp<std::int64_t>(flushed_offset - file->start_offset(), 0, wrote));
  }
  std::lock_guard put(put_mutex_);
  std::lock_guard publish(publish_mutex_);
  queue_offsets_ = std::move(queue_offsets);
  blanks_.clear();
  written_.store(max_offset, std::memory_order_release);
  written_timestamp_ = last_store_timestamp;
  committed_.store(max_offset, std::memory_order_release);
  flushed_.store(std::min(flushed_offset, max_offset), std::memory_order_release);
  last_store_timestamp_.store(last_store_timestamp, std::memory_order_release);
  flushed_store_timestamp_.store(last_store_timestamp, std::memory_order_release);
}

void CommitLog::close() {
  {
    std::lock_guard lock(put_mutex_);
    closed_ = true;
  }
  allocator_.stop();
}

std::int64_t CommitLog::min_offset() const {
  const std::int64_t min = files_.min_offset();
  return min < 0 ? max_offset() : min;
}

std::int64_t CommitLog::scratch_bytes() const {
  std::lock_guard lock(put_mutex_);
  return static_cast<std::int64_t>(scratch_.capacity());
}

v1::Status CommitLog::validate(std::span<const MessageToAppend> batch, std::vector<std::int32_t>& sizes,
                               std::int64_t& total) const {
  if (batch.empty()) return v1::Status::invalid_argument("append of an empty batch");
  const auto& first = batch.front();
  MQKIT_RETURN_IF_ERROR(validate_topic_name(first.topic));
  if (first.queue_id < 0) return v1::Status::invalid_argument("queue id " + std::to_string(first.queue_id) + " is negative");
  total = 0;
  sizes.clear();
  for (const auto& message : batch) {
    if (message.topic != first.topic || message.queue_id != first.queue_id) {
      return v1::Status::invalid_argument("a batch must share one topic and queue: '" + std::string(first.topic) + "'/" +
                                          std::to_string(first.queue_id) + " and '" + std::string(message.topic) +
                                          "'/" + std::to_string(message.queue_id) + " were mixed");
    }
    if (static_cast<std::int64_t>(message.body.size()) > options_.max_message_size) {
      return v1::Status::invalid_argument("message body is " + std::to_string(message.body.size()) +
                                          " bytes, more than max_message_size (" +
                                          std::to_string(options_.max_message_size) + ")");
    }
    const std::int32_t size = plugin::v1::record_size(message);
    if (size > options_.max_message_size + kRecordSlack) {
      return v1::Status::invalid_argument("message record is " + std::to_string(size) +
                                          " bytes, more than max_message_size + 64 KiB (" +
                                          std::to_string(options_.max_message_size + kRecordSlack) + ")");
    }
    sizes.push_back(size);
    total += size;
  }
  if (total + kBlankHeaderSize > options_.file_size) {
    return v1::Status::invalid_argument("records of " + std::to_string(total) +
                                        " bytes do not fit in a commit log file of " +
                                        std::to_string(options_.file_size) + " bytes (mapped_file_size_commit_log)");
  }
  return v1::Status::ok();
}

v1::Result<std::shared_ptr<MappedFile>> CommitLog::next_file(std::int64_t start_offset) {
  MQKIT_ASSIGN_OR_RETURN(auto file, allocator_.take(start_offset));
  MQKIT_RETURN_IF_ERROR(files_.append_file(file));
  allocator_.request(start_offset + options_.file_size);
  warm_due_at_ = 0;  // the allocator learns of the new file with its first write
  return file;
}

v1::Result<std::shared_ptr<MappedFile>> CommitLog::current_file() {
  // The writer's position, not the file's: with a pool the file lags behind until committed.
  const std::int64_t written = written_offset();
  auto file = files_.last();
  if (!file) return next_file(written / options_.file_size * options_.file_size);
  if (written >= file->end_offset()) return next_file(file->end_offset());
  return file;
}

void CommitLog::publish(std::int64_t written, std::int64_t store_timestamp) {
  std::lock_guard lock(publish_mutex_);
  written_.store(written, std::memory_order_release);
  written_timestamp_ = store_timestamp;
  if (pool_) return;
  committed_.store(written, std::memory_order_release);
  last_store_timestamp_.store(store_timestamp, std::memory_order_release);
}

void CommitLog::publish_committed(std::int64_t end, std::int64_t store_timestamp) {
  std::lock_guard lock(publish_mutex_);
  written_.store(end, std::memory_order_release);
  written_timestamp_ = store_timestamp;
  committed_.store(end, std::memory_order_release);
  last_store_timestamp_.store(store_timestamp, std::memory_order_release);
}

v1::Status CommitLog::make_room(std::int64_t end) {
  if (end - max_offset() <= pool_->size()) return v1::Status::ok();
  // The commit service fell behind: the writer commits itself (back-pressure, never overwrite).
  MQKIT_RETURN_IF_ERROR(commit(0).status());
  if (end - max_offset() > pool_->size()) {
    return v1::Status::internal("the transient store pool has no room for bytes up to commit offset " +
                                std::to_string(end) + " after a commit");
  }
  return v1::Status::ok();
}

void CommitLog::wrote_through_mapping(MappedFile& file, std::int64_t position) {
  if (options_.warm_ahead <= 0) return;
  const std::int64_t offset = file.start_offset() + position;
  if (offset < warm_due_at_) return;
  warm_due_at_ = offset + std::max<std::int64_t>(options_.warm_ahead / 4, kFlushPageSize);
  allocator_.warm_ahead_of(file.shared_from_this(), position);
}

v1::Status CommitLog::place_blank(MappedFile& file, std::int64_t position) {
  MQKIT_RETURN_IF_ERROR(file.reserve_through(position + kBlankHeaderSize));
  std::uint8_t blank[kBlankHeaderSize];
  store_i32(blank, static_cast<std::int32_t>(file.size() - position));
  store_i32(blank + 4, kBlankMagic);
  const std::int64_t offset = file.start_offset() + position;
  if (pool_) {
    MQKIT_RETURN_IF_ERROR(make_room(offset + kBlankHeaderSize));
    pool_->put(offset, blank);
    std::lock_guard lock(publish_mutex_);
    blanks_.push_back({offset + kBlankHeaderSize, file.end_offset()});
  } else {
    copy_records(file.data() + position, blank);
    file.set_wrote_position(file.size());
    wrote_through_mapping(file, file.size());
  }
  publish(file.end_offset(), written_timestamp_);
  return v1::Status::ok();
}

v1::Status CommitLog::place(MappedFile& file, std::int64_t position, std::span<const std::uint8_t> records,
                            std::int64_t store_timestamp) {
  const auto total = static_cast<std::int64_t>(records.size());
  MQKIT_RETURN_IF_ERROR(file.reserve_through(position + total));
  const std::int64_t offset = file.start_offset() + position;
  if (!pool_) {
    copy_records(file.data() + position, records);
    file.set_wrote_position(position + total);
    wrote_through_mapping(file, position + total);
  } else if (total <= pool_->size()) {
    MQKIT_RETURN_IF_ERROR(make_room(offset + total));
    pool_->put(offset, records);
  } else {
    // Larger than the whole pool: empty it, then write straight into the file.
    std::lock_guard commit(commit_mutex_);
    MQKIT_RETURN_IF_ERROR(commit_locked(0).status());
    MQKIT_RETURN_IF_ERROR(file.file().write_at(position, records));
    file.set_wrote_position(position + total);
    publish_committed(offset + total, store_timestamp);
    return v1::Status::ok();
  }
  publish(offset + total, store_timestamp);
  return v1::Status::ok();
}

v1::Result<bool> CommitLog::commit(std::int64_t least_pages) {
  if (!pool_) return false;
  std::lock_guard lock(commit_mutex_);
  return commit_locked(least_pages);
}

v1::Result<bool> CommitLog::commit_locked(std::int64_t least_pages) {
  std::int64_t target = 0;
  std::int64_t timestamp = 0;
  std::vector<Blank> blanks;
  {
    std::lock_guard lock(publish_mutex_);
    target = written_.load(std::memory_order_acquire);
    timestamp = written_timestamp_;
    blanks.assign(blanks_.begin(), blanks_.end());
  }
  std::int64_t at = max_offset();
  if (!worth_writing_back(at, target, options_.file_size, least_pages)) return false;
  auto blank = blanks.begin();
  while (at < target) {
    auto file = files_.find(at);
    if (!file) {
      // Retention may delete every file but the last, committed or not: nothing to write there.
      auto first = files_.first();
      if (!first || at >= first->start_offset()) {
        return v1::Status::internal("commit log has no file for written offset " + std::to_string(at));
      }
      at = std::min(target, first->start_offset());
      continue;
    }
    std::int64_t end = std::min(target, file->end_offset());
    while (blank != blanks.end() && blank->file_end <= file->start_offset()) ++blank;
    if (blank != blanks.end() && blank->file_end == file->end_offset()) {
      if (at >= blank->data_end) {
        // The rest of the file after its blank stays zero: nothing goes there.
        file->set_wrote_position(file->size());
        at = std::min(target, file->end_offset());
        continue;
      }
      end = std::min(end, blank->data_end);
    }
    const auto bytes = pool_->view(at, end - at);
    if (auto written = file->file().write_at(at - file->start_offset(), bytes); !written.is_ok()) {
      commit_failed_.store(true, std::memory_order_release);
      return written;
    }
    at += static_cast<std::int64_t>(bytes.size());
    file->set_wrote_position(at - file->start_offset());
  }
  std::lock_guard lock(publish_mutex_);
  committed_.store(target, std::memory_order_release);
  last_store_timestamp_.store(timestamp, std::memory_order_release);
  while (!blanks_.empty() && blanks_.front().file_end <= target) blanks_.pop_front();
  return true;
}

v1::Result<AppendOutcome> CommitLog::append(std::span<const MessageToAppend> batch) {
  std::lock_guard lock(put_mutex_);
  const std::int64_t store_timestamp = env_.now_ms();
  const plugin::v1::PutLockClock::Held held(put_lock_clock_, store_timestamp);
  if (closed_) return v1::Status::unavailable("the store is shutting down");
  std::vector<std::int32_t>& sizes = sizes_;
  std::int64_t total = 0;
  MQKIT_RETURN_IF_ERROR(validate(batch, sizes, total));
  const MessageToAppend& first = batch.front();

  MQKIT_ASSIGN_OR_RETURN(auto file, current_file());
  std::int64_t position = written_offset() - file->start_offset();
  const bool roll = total + kBlankHeaderSize > file->size() - position;
  const std::int64_t commit_offset = roll ? file->end_offset() : file->start_offset() + position;
  const std::int64_t first_queue_offset = queue_offsets_.next(first.topic, first.queue_id);

  // Encode first: a message the codec refuses changes nothing, not even the end-of-file blank.
  scratch_.resize(static_cast<std::size_t>(total));
  std::int64_t queue_offset = first_queue_offset;
  std::int64_t within = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const bool counted = takes_queue_offset(batch[i].sys_flag);
    const plugin::v1::RecordPlacement placement{counted ? queue_offset : 0, commit_offset + within, store_timestamp};
    MQKIT_RETURN_IF_ERROR(plugin::v1::encode_record(
        batch[i], placement,
        std::span<std::uint8_t>(scratch_).subspan(static_cast<std::size_t>(within), static_cast<std::size_t>(sizes[i]))));
    if (counted) ++queue_offset;
    within += sizes[i];
  }

  if (roll) {
    MQKIT_RETURN_IF_ERROR(place_blank(*file, position));
    MQKIT_ASSIGN_OR_RETURN(file, next_file(file->end_offset()));
    position = 0;
  }

  MQKIT_RETURN_IF_ERROR(place(*file, position, scratch_, store_timestamp));
  if (queue_offset != first_queue_offset) queue_offsets_.set(first.topic, first.queue_id, queue_offset);

  AppendOutcome outcome;
  outcome.result.commit_offset = commit_offset;
  outcome.result.bytes = static_cast<std::int32_t>(total);
  outcome.result.queue_offset = takes_queue_offset(first.sys_flag) ? first_queue_offset : 0;
  outcome.result.message_count = static_cast<std::int32_t>(batch.size());
  outcome.result.store_timestamp = store_timestamp;
  outcome.end_offset = commit_offset + total;
  return outcome;
}

v1::Status CommitLog::append_replicated(std::int64_t commit_offset, std::span<const std::uint8_t> records) {
  std::lock_guard lock(put_mutex_);
  const plugin::v1::PutLockClock::Held held(put_lock_clock_, env_.now_ms());
  if (closed_) return v1::Status::unavailable("the store is shutting down");
  // An empty log starts wherever its master's transfer starts, as long as that is where one of
  // its files would start: a master starts an empty slave at the beginning of its last file.
  const bool starts_empty_log = files_.empty() && written_offset() == 0 && commit_offset > 0;
  if (starts_empty_log && commit_offset % options_.file_size != 0) {
    return v1::Status::invalid_argument("replicated records start an empty commit log at offset " +
                                        std::to_string(commit_offset) + ", which is not a multiple of this store's " +
                                        std::to_string(options_.file_size) +
                                        "-byte files (master and slave need the same mapped_file_size_commit_log)");
  }
  if (commit_offset != written_offset() && !starts_empty_log) {
    return v1::Status::invalid_argument("replicated records start at commit offset " + std::to_string(commit_offset) +
                                        " but the commit log ends at " + std::to_string(written_offset()));
  }
  // Check everything before writing anything: whole records and blanks that end their file.
  struct Piece {
    std::int64_t offset;
    std::int64_t length;
  };
  std::vector<Piece> pieces;
  QueueOffsetTable raised;
  std::int64_t last_timestamp = written_timestamp_;
  std::int64_t offset = commit_offset;
  for (std::size_t at = 0; at < records.size();) {
    const std::int64_t room = options_.file_size - offset % options_.file_size;
    const auto rest = records.subspan(at);
    if (rest.size() >= 8 && load_i32(rest.data() + 4) == kBlankMagic) {
      if (load_i32(rest.data()) != room || static_cast<std::int64_t>(rest.size()) < room) {
        return v1::Status::corruption("replicated end-of-file blank at commit offset " + std::to_string(offset) +
                                      " does not fill its file (" + std::to_string(room) + " bytes left)");
      }
      pieces.push_back({offset, room});
      at += static_cast<std::size_t>(room);
      offset += room;
      continue;
    }
    auto record = plugin::v1::decode_record(rest, plugin::v1::CrcCheck::kVerify);
    if (!record.is_ok()) return record.status().with_context("replicated record at commit offset " + std::to_string(offset));
    if (record->commit_offset != offset || record->total_size + kBlankHeaderSize > room) {
      return v1::Status::corruption("replicated record at commit offset " + std::to_string(offset) + " says offset " +
                                    std::to_string(record->commit_offset) + " or does not fit its file");
    }
    // Queue offsets carry over, so this store continues them if it ever takes writes itself.
    if (takes_queue_offset(record->sys_flag)) raised.raise(record->topic, record->queue_id, record->queue_offset + 1);
    pieces.push_back({offset, record->total_size});
    last_timestamp = record->store_timestamp;
    at += static_cast<std::size_t>(record->total_size);
    offset += record->total_size;
  }
  // Replicated records bypass the pool: empty it, then write through the mapping.
  std::unique_lock commit_lock(commit_mutex_);
  if (pool_) MQKIT_RETURN_IF_ERROR(commit_locked(0).status());
  std::size_t at = 0;
  for (const auto& piece : pieces) {
    auto file = files_.last();
    if (!file || file->is_full()) {
      MQKIT_ASSIGN_OR_RETURN(file, file ? next_file(file->end_offset())
                                        : next_file(piece.offset / options_.file_size * options_.file_size));
    }
    const std::int64_t position = piece.offset - file->start_offset();
    MQKIT_RETURN_IF_ERROR(file->reserve_through(position + piece.length));
    copy_records(file->data() + position, records.subspan(at, static_cast<std::size_t>(piece.length)));
    file->set_wrote_position(position + piece.length);
    wrote_through_mapping(*file, position + piece.length);
    at += static_cast<std::size_t>(piece.length);
  }
  queue_offsets_.raise_all(raised);
  publish_committed(offset, last_timestamp);
  return v1::Status::ok();
}

v1::Result<std::int64_t> CommitLog::flush() {
  std::lock_guard lock(flush_mutex_);
  MQKIT_RETURN_IF_ERROR(commit(0).status());
  std::int64_t target = 0;
  std::int64_t timestamp = 0;
  {
    std::lock_guard publish(publish_mutex_);
    target = committed_.load(std::memory_order_acquire);
    timestamp = last_store_timestamp_.load(std::memory_order_acquire);
  }
  if (target <= flushed_offset()) return flushed_offset();
  MQKIT_RETURN_IF_ERROR(files_.flush_to(target));
  flushed_.store(target, std::memory_order_release);
  flushed_store_timestamp_.store(timestamp, std::memory_order_release);
  drop_cache_behind(target);
  return target;
}

std::int64_t CommitLog::settled_offset(std::int64_t offset) const noexcept {
  const std::int64_t file_start = offset / options_.file_size * options_.file_size;
  return file_start + (offset - file_start) / kWriteBackBlock * kWriteBackBlock;
}

v1::Result<std::int64_t> CommitLog::flush_settled() {
  std::lock_guard lock(flush_mutex_);
  const std::int64_t target = settled_offset(max_offset());
  if (target <= flushed_offset()) return flushed_offset();
  MQKIT_RETURN_IF_ERROR(files_.flush_to(target));
  flushed_.store(target, std::memory_order_release);
  // The checkpoint's timestamp stays at the last full flush: it must not claim a record above
  // `target`, and an older one only makes a crash recovery scan further back.
  drop_cache_behind(target);
  return target;
}

void CommitLog::drop_cache_behind(std::int64_t flushed) noexcept {
  if (options_.page_cache_window <= 0) return;
  const std::int64_t below = flushed - options_.page_cache_window;
  if (dropped_below_ < 0) {
    // What an earlier run left in the page cache is the kernel's to manage.
    dropped_below_ = std::max<std::int64_t>(below, 0);
    return;
  }
  if (below - dropped_below_ < kDropCacheStep) return;
  std::int64_t at = dropped_below_;
  while (at < below) {
    auto file = files_.find(at);
    if (!file) {
      auto first = files_.first();
      if (!first || at >= first->start_offset()) break;
      at = first->start_offset();
      continue;
    }
    const std::int64_t end = std::min(below, file->end_offset());
    file->drop_cached(at - file->start_offset(), end - file->start_offset());
    at = end;
  }
  dropped_below_ = below;
}

v1::Result<plugin::v1::StoredSlice> CommitLog::read(std::int64_t commit_offset, std::int32_t size) const {
  const std::int64_t committed = max_offset();
  if (size <= 0 || commit_offset < 0 || commit_offset + size > committed) {
    return v1::Status::not_found("commit offset " + std::to_string(commit_offset) + " (+" + std::to_string(size) +
                                 ") is outside the commit log, which ends at " + std::to_string(committed));
  }
  auto file = files_.find(commit_offset);
  if (!file || commit_offset - file->start_offset() + size > file->size()) {
    return v1::Status::not_found("commit offset " + std::to_string(commit_offset) + " is no longer stored");
  }
  return file->slice(commit_offset - file->start_offset(), size);
}

v1::Result<plugin::v1::StoredSlice> CommitLog::read_uncommitted(std::int64_t commit_offset, bool* committed) const {
  // While no commit runs, the committed offset stands still, so the writer cannot reuse pool
  // bytes at or above it: the copy below never races with the writer.
  std::lock_guard lock(commit_mutex_);
  *committed = max_offset() > commit_offset;
  if (*committed) return v1::Status::not_found("committed meanwhile");
  const std::int64_t written = written_offset();
  const auto not_found = [&](const std::string& why) {
    return v1::Status::not_found("no record starts at commit offset " + std::to_string(commit_offset) + " (" + why + ")");
  };
  if (commit_offset + kBlankHeaderSize > written) return not_found("past the end of the commit log");
  std::uint8_t header[kBlankHeaderSize];
  pool_->copy_out(commit_offset, header);
  const std::int64_t size = load_i32(header);
  if (load_i32(header + 4) != kMessageMagicV1 || size < kBlankHeaderSize || commit_offset + size > written) {
    return not_found("not a record");
  }
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(size));
  pool_->copy_out(commit_offset, *bytes);
  auto record = plugin::v1::decode_record(*bytes);
  if (!record.is_ok() || record->commit_offset != commit_offset) return not_found("not a record");
  return plugin::v1::StoredSlice{{bytes->data(), bytes->size()}, bytes};
}

v1::Result<plugin::v1::StoredSlice> CommitLog::read_record(std::int64_t commit_offset) const {
  if (pool_ && commit_offset >= max_offset()) {
    // Still in the pool (transactions and retries look records up right after the append).
    bool committed = false;
    auto copy = read_uncommitted(commit_offset, &committed);
    if (!committed) return copy;
  }
  const std::int64_t committed = max_offset();
  auto file = commit_offset < committed ? files_.find(commit_offset) : nullptr;
  if (!file) {
    return v1::Status::not_found("no record at commit offset " + std::to_string(commit_offset) +
                                 ": the commit log holds [" + std::to_string(min_offset()) + ", " +
                                 std::to_string(committed) + ")");
  }
  const std::int64_t position = commit_offset - file->start_offset();
  const std::int64_t available = std::min(committed - file->start_offset(), file->size()) - position;
  auto record = plugin::v1::decode_record({file->data() + position, static_cast<std::size_t>(available)});
  if (!record.is_ok() || record->commit_offset != commit_offset) {
    return v1::Status::not_found("no record starts at commit offset " + std::to_string(commit_offset) +
                                 (record.is_ok() ? std::string() : " (" + record.status().message() + ")"));
  }
  return file->slice(position, record->total_size);
}

v1::Result<std::int64_t> CommitLog::store_timestamp_at(std::int64_t commit_offset) const {
  MQKIT_ASSIGN_OR_RETURN(const auto slice, read_record(commit_offset));
  MQKIT_ASSIGN_OR_RETURN(const auto record, plugin::v1::decode_record(slice.bytes));
  return record.store_timestamp;
}

std::shared_ptr<std::vector<std::uint8_t>> CommitLog::dispatch_buffer(std::size_t size) const {
  std::lock_guard lock(dispatch_buffers_mutex_);
  // A buffer is free again once no chunk reads it (the reput thread's at once, an HA transfer's
  // after its write). Kept rather than freed, so reads reuse memory that is already faulted in.
  std::shared_ptr<std::vector<std::uint8_t>> buffer;
  for (const auto& kept : dispatch_buffers_) {
    if (kept.use_count() == 1) {
      buffer = kept;
      break;
    }
  }
  if (!buffer) {
    buffer = std::make_shared<std::vector<std::uint8_t>>();
    if (dispatch_buffers_.size() < kKeptDispatchBuffers) dispatch_buffers_.push_back(buffer);
  }
  if (buffer->size() < size) buffer->resize(size);
  return buffer;
}

v1::Result<plugin::v1::DispatchChunk> CommitLog::read_for_dispatch(std::int64_t from, std::int64_t max_bytes) const {
  const std::int64_t committed = max_offset();
  std::int64_t start = std::max(from, min_offset());
  while (start < committed) {
    auto file = files_.find(start);
    if (!file) {
      return v1::Status::internal("commit log has no file for committed offset " + std::to_string(start));
    }
    const std::int64_t position = start - file->start_offset();
    const std::int64_t file_end = std::min(committed - file->start_offset(), file->size());
    if (position + kBlankHeaderSize > file_end) {
      start = file->end_offset();
      continue;
    }
    // Read with pread, not through the mapping: on virtual machines with shadow page tables the
    // first touch of each freshly written page through a mapping costs a fault several times the
    // copy, and the copy is what every dispatcher reads anyway.
    std::int64_t want = std::min(file_end - position, std::max<std::int64_t>(max_bytes, kBlankHeaderSize));
    std::shared_ptr<std::vector<std::uint8_t>> buffer;
    for (bool whole_first_record = false;;) {
      buffer = dispatch_buffer(static_cast<std::size_t>(want));
      auto read = file->file().read_at(position, std::span(buffer->data(), static_cast<std::size_t>(want)));
      if (!read) return read.status().with_context("reading committed records at offset " + std::to_string(start));
      const std::size_t got = *read;
      if (static_cast<std::int64_t>(got) < want) {
        return v1::Status::io_error("commit log " + file->path() + " is shorter than its committed data: read " +
                                    std::to_string(got) + " of " + std::to_string(want) + " bytes at position " +
                                    std::to_string(position));
      }
      // A chunk holds at least one record, however large (an end-of-file blank is not one).
      const std::int64_t first_size = load_i32(buffer->data());
      const bool blank = load_i32(buffer->data() + 4) == kBlankMagic;
      if (whole_first_record || blank || first_size <= want || first_size > file_end - position) break;
      want = first_size;
      whole_first_record = true;
    }
    const std::uint8_t* data = buffer->data();
    if (load_i32(data + 4) == kBlankMagic) {
      start = file->end_offset();
      continue;
    }
    const std::int64_t read_end = want;
    std::int64_t end = 0;
    bool blank_follows = false;
    while (end + kBlankHeaderSize <= read_end) {
      const std::int32_t size = load_i32(data + end);
      const std::int32_t magic = load_i32(data + end + 4);
      if (magic == kBlankMagic) {
        blank_follows = true;
        break;
      }
      if (magic != kMessageMagicV1 || size < kBlankHeaderSize || position + end + size > file_end) {
        return v1::Status::corruption("commit log: no valid record at committed offset " +
                                      std::to_string(start + end) + " in " + file->path());
      }
      if (end + size > read_end) break;
      end += size;
    }
    plugin::v1::DispatchChunk chunk;
    chunk.bytes = {std::span<const std::uint8_t>(data, static_cast<std::size_t>(end)), buffer};
    chunk.start_offset = start;
    chunk.next_offset = blank_follows ? file->end_offset() : start + end;
    return chunk;
  }
  plugin::v1::DispatchChunk empty;
  empty.start_offset = empty.next_offset = std::max(from, std::min(start, committed));
  return empty;
}

void CommitLog::remove_topic(std::string_view topic) {
  std::lock_guard lock(put_mutex_);
  queue_offsets_.remove_topic(topic);
}

bool CommitLog::remove_queue_if(std::string_view topic, std::int32_t queue_id,
                                const std::function<bool(std::int64_t next_queue_offset)>& remove) {
  std::lock_guard lock(put_mutex_);
  if (!remove(queue_offsets_.next(topic, queue_id))) return false;
  queue_offsets_.remove(topic, queue_id);
  return true;
}

}  // namespace mqkit::plugins::stores::commitlog
