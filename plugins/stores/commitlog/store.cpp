#include "store.hpp"

#include <algorithm>
#include <set>

#include "checkpoint.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "recovery.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {

using plugin::v1::Status;

bool has_key(std::string_view keys, std::string_view key) {
  return !for_each_key(keys, [&](std::string_view each) { return each != key; });
}

// Offsets a key query asks the index for beyond max_count, so that hash collisions filtered
// out afterwards rarely leave the answer short.
constexpr std::size_t kCollisionAllowance = 32;

}  // namespace

v1::Result<std::unique_ptr<CommitLogStore>> CommitLogStore::create(const v1::ConfigValues& config,
                                                                   plugin::v1::Host& host) {
  MQKIT_ASSIGN_OR_RETURN(StoreOptions options, options_from_config(config));
  return std::make_unique<CommitLogStore>(host, std::move(options), posix_env());
}

CommitLogStore::CommitLogStore(plugin::v1::Host& host, StoreOptions options, std::shared_ptr<Env> env)
    : log_(host),
      options_(std::move(options)),
      env_(std::move(env)),
      commit_log_(*env_, log_,
                  {options_.commit_log_dir(), options_.commit_log_file_size, options_.max_message_size,
                   options_.write_buffers(), options_.commit_log_page_cache_window,
                   options_.commit_log_zero_ahead(), options_.commit_log_warm_ahead_bytes()}),
      queues_(*env_, log_, options_.consume_queue_dir(), options_.consume_queue_file_size),
      index_(options_.message_index_enable
                 ? std::make_unique<IndexService>(*env_, log_, options_.index_dir(), options_.max_hash_slot_num,
                                                  options_.max_index_num)
                 : nullptr),
      queue_dispatcher_(queues_),
      index_dispatcher_(index_ ? std::make_unique<IndexDispatcher>(*index_) : nullptr),
      flusher_(commit_log_, log_,
               {options_.flush_mode, options_.flush_interval_commit_log, options_.flush_commit_log_least_pages,
                options_.flush_commit_log_thorough_interval, options_.sync_flush_timeout},
               [this](const Status&) { write_failed_.store(true, std::memory_order_release); }),
      committer_(commit_log_, log_,
                 {options_.commit_interval_commit_log, options_.commit_commit_log_least_pages,
                  options_.commit_commit_log_thorough_interval},
                 [this](std::int64_t committed) { flusher_.appended(committed); },
                 [this](const Status&) { write_failed_.store(true, std::memory_order_release); }),
      retention_(*env_, log_, options_, commit_log_, queues_, index_.get()),
      metadata_(*env_, log_, options_.config_dir()),
      reader_(commit_log_, queues_) {
  dispatchers_.push_back(&queue_dispatcher_);
  if (index_dispatcher_) dispatchers_.push_back(index_dispatcher_.get());
}

CommitLogStore::~CommitLogStore() { shutdown(); }

v1::Result<plugin::v1::RecoveryReport> CommitLogStore::open() {
  MQKIT_RETURN_IF_ERROR(env_->create_dirs(options_.store_path));
  MQKIT_ASSIGN_OR_RETURN(lock_file_, env_->open(options_.lock_path(), OpenMode::kCreateIfMissing));
  MQKIT_RETURN_IF_ERROR(lock_file_->try_lock());

  Recovery recovery(*env_, log_, options_, commit_log_, queues_, index_.get());
  MQKIT_ASSIGN_OR_RETURN(const RecoveryOutcome outcome, recovery.run());
  // From here until shutdown() completes, a restart means a crash.
  MQKIT_RETURN_IF_ERROR(write_small_file(*env_, options_.abort_path(), ""));
  MQKIT_RETURN_IF_ERROR(env_->sync_dir(options_.store_path));

  const auto& report = outcome.report;
  dispatched_.store(report.dispatch_from_offset, std::memory_order_release);
  queue_dispatcher_.set_last_store_timestamp(outcome.last_store_timestamp);
  {
    std::lock_guard lock(checkpoint_mutex_);
    checkpoint_.physic_msg_timestamp = outcome.last_store_timestamp;
    checkpoint_.physic_offset = commit_log_.flushed_offset();
    checkpoint_.logics_offset = checkpoint_.index_offset = report.dispatch_from_offset;
  }
  MQKIT_RETURN_IF_ERROR(checkpoint(false));
  retention_.check_disk();

  if (options_.transient_store_pool_enable && !options_.uses_transient_store_pool()) {
    log_.warn("transient_store_pool_enable is ignored with SYNC_FLUSH (as in RocketMQ); SYNC_FLUSH writes the "
              "commit log through one write buffer of its own");
  }
  if (const TransientStorePool* pool = commit_log_.pool()) {
    log_.info(std::string(options_.uses_transient_store_pool() ? "transient store pool" : "SYNC_FLUSH write buffer") +
              ": the commit log is written with pwrite through " + std::to_string(pool->size()) +
              " bytes of write buffers" +
              (pool->locked() ? " (locked in memory)" : " (not locked in memory: RLIMIT_MEMLOCK)"));
  }
  commit_log_.start_allocator();
  // SYNC_FLUSH commits on the group commit thread, right before each flush.
  if (options_.uses_transient_store_pool()) committer_.start();
  flusher_.start();
  housekeeping_.start("StoreHousekeep", [this] { housekeeping(); });
  return report;
}

v1::Result<plugin::v1::RecoveryReport> CommitLogStore::start() noexcept {
  std::lock_guard lock(lifecycle_mutex_);
  if (state_.load() != State::kCreated) return Status::invalid_argument("the store was already started");
  auto report = open();
  if (!report.is_ok()) {
    lock_file_.reset();
    state_.store(State::kStopped);
    return report.status().with_context("opening store " + options_.store_path);
  }
  state_.store(State::kRunning, std::memory_order_release);
  return report;
}

void CommitLogStore::stop_services(bool orderly) {
  housekeeping_.stop();
  commit_log_.close();
  // What the pool still holds is committed by the flusher's last flush (orderly), or lost
  // with the process (a crash).
  committer_.stop();
  if (orderly) {
    flusher_.stop();
  } else {
    flusher_.abandon(Status::unavailable("the store stopped before the append was flushed"));
  }
  committer_.answer_remaining(Status::unavailable("the store stopped before the append was committed"));
}

void CommitLogStore::shutdown() noexcept {
  std::lock_guard lock(lifecycle_mutex_);
  if (state_.load() != State::kRunning) return;
  state_.store(State::kStopped, std::memory_order_release);
  stop_services(true);
  Status flushed = checkpoint(true);
  if (write_failed_.load() || commit_log_.commit_failed() || !flushed.is_ok()) {
    log_.error("shutdown could not flush everything (" + flushed.to_string() +
               "); leaving the abort marker so that the next start recovers as after a crash");
  } else {
    Status removed = env_->remove_file(options_.abort_path());
    if (removed.is_ok()) removed = env_->sync_dir(options_.store_path);
    if (!removed.is_ok()) log_.warn("removing the abort marker: " + removed.to_string());
    log_.info("store " + options_.store_path + " shut down cleanly at commit offset " +
              std::to_string(commit_log_.max_offset()));
  }
  lock_file_.reset();
}

void CommitLogStore::simulate_crash() noexcept {
  std::lock_guard lock(lifecycle_mutex_);
  if (state_.load() != State::kRunning) return;
  state_.store(State::kStopped, std::memory_order_release);
  stop_services(false);
  lock_file_.reset();
}

Status CommitLogStore::guard_readable() const {
  if (state_.load(std::memory_order_acquire) == State::kCreated) return Status::unavailable("the store is not started");
  return Status::ok();
}

void CommitLogStore::append(std::span<const plugin::v1::MessageToAppend> batch,
                            const plugin::v1::AppendOptions& options, plugin::v1::AppendCallback done) noexcept {
  if (state_.load(std::memory_order_acquire) != State::kRunning) {
    done(Status::unavailable("the store is not running"));
    return;
  }
  if (retention_.disk_full()) {
    done(Status::unavailable(retention_.disk_full_message()));
    return;
  }
  if (write_failed_.load(std::memory_order_acquire) || commit_log_.commit_failed()) {
    done(Status::unavailable("a commit log flush or commit failed earlier; the store refuses writes until it is restarted"));
    return;
  }
  auto outcome = commit_log_.append(batch);
  if (!outcome.is_ok()) {
    done(outcome.status());
    return;
  }
  // A queue is known (kNoMessageInQueue rather than kNoMatchedLogicQueue) once it took a message,
  // even before dispatch reaches it. The object holds no file until its first unit. Only a
  // queue's first message looks: later ones find it made by the first in this run, loaded at
  // start, or about to be made by the dispatch that start() resumes after a crash.
  if (outcome->result.queue_offset == 0 && takes_queue_offset(batch.front().sys_flag)) {
    (void)queues_.find_or_create(batch.front().topic, batch.front().queue_id);
  }
  if (options_.flush_mode == FlushMode::kSync && options.wait_for_flush) {
    flusher_.submit(outcome->end_offset, outcome->result, std::move(done));
    return;
  }
  if (options_.uses_transient_store_pool()) {
    if (options.wait_for_flush) {
      committer_.submit(outcome->end_offset, outcome->result, std::move(done));
      return;
    }
    committer_.appended(outcome->end_offset);
    done(outcome->result);
    return;
  }
  flusher_.appended(outcome->end_offset);
  done(outcome->result);
}

Status CommitLogStore::append_replicated(std::int64_t commit_offset, std::span<const std::uint8_t> records) noexcept {
  if (state_.load(std::memory_order_acquire) != State::kRunning) return Status::unavailable("the store is not running");
  MQKIT_RETURN_IF_ERROR(commit_log_.append_replicated(commit_offset, records));
  flusher_.appended(commit_offset + static_cast<std::int64_t>(records.size()));
  return Status::ok();
}

v1::Result<plugin::v1::ReadResult> CommitLogStore::read(const plugin::v1::ReadRequest& request) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  return reader_.read(request);
}

std::int64_t CommitLogStore::min_offset(std::string_view topic, std::int32_t queue_id) noexcept {
  return reader_.min_offset(topic, queue_id);
}

std::int64_t CommitLogStore::max_offset(std::string_view topic, std::int32_t queue_id) noexcept {
  return reader_.max_offset(topic, queue_id);
}

v1::Result<std::int64_t> CommitLogStore::commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                                          std::int64_t queue_offset) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  return reader_.commit_offset_of(topic, queue_id, queue_offset);
}

v1::Result<plugin::v1::StoredSlice> CommitLogStore::read_at(std::int64_t commit_offset) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  return commit_log_.read_record(commit_offset);
}

v1::Result<std::int64_t> CommitLogStore::offset_by_time(std::string_view topic, std::int32_t queue_id,
                                                        std::int64_t timestamp_ms,
                                                        plugin::v1::TimeBoundary boundary) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  return reader_.offset_by_time(topic, queue_id, timestamp_ms, boundary);
}

v1::Result<std::int64_t> CommitLogStore::earliest_message_time(std::string_view topic,
                                                               std::int32_t queue_id) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  return reader_.earliest_message_time(topic, queue_id);
}

v1::Result<plugin::v1::QueryResult> CommitLogStore::query_by_key(std::string_view topic, std::string_view key,
                                                                 std::int32_t max_count, std::int64_t begin_ms,
                                                                 std::int64_t end_ms) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  if (!index_) return Status::not_supported("the key index is off (message_index_enable = false)");
  plugin::v1::QueryResult result;
  if (max_count <= 0) return result;
  const auto wanted = static_cast<std::size_t>(max_count);
  const IndexQuery found = index_->query(topic, key, wanted + kCollisionAllowance, begin_ms, end_ms);
  result.index_last_update_timestamp = found.last_update_timestamp;
  result.index_last_update_commit_offset = found.last_update_commit_offset;
  std::set<std::int64_t> seen;
  for (const std::int64_t offset : found.commit_offsets) {
    if (result.records.size() >= wanted) break;
    if (!seen.insert(offset).second) continue;
    // The index holds hashes: a collision (or an entry for a record recovery cut off) points at a
    // record with other keys, so each hit is checked against the record itself.
    auto slice = commit_log_.read_record(offset);
    if (!slice.is_ok()) continue;
    auto record = plugin::v1::decode_record(slice->bytes);
    if (!record.is_ok() || record->topic != topic || record->store_timestamp < begin_ms ||
        record->store_timestamp > end_ms) {
      continue;
    }
    const auto unique = plugin::v1::find_property(record->properties, plugin::v1::property::kUniqueKey);
    const auto keys = plugin::v1::find_property(record->properties, plugin::v1::property::kKeys);
    if ((unique && *unique == key) || (keys && has_key(*keys, key))) result.records.push_back(std::move(slice).value());
  }
  return result;
}

Status CommitLogStore::delete_topic(std::string_view topic) noexcept {
  MQKIT_RETURN_IF_ERROR(validate_topic_name(topic));
  MQKIT_RETURN_IF_ERROR(guard_readable());
  commit_log_.remove_topic(topic);
  MQKIT_RETURN_IF_ERROR(queues_.delete_topic(topic));
  log_.info("deleted the consume queues of topic " + std::string(topic));
  return Status::ok();
}

Status CommitLogStore::flush() noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  MQKIT_RETURN_IF_ERROR(commit_log_.flush().status());
  return checkpoint(true);
}

v1::Result<plugin::v1::DispatchChunk> CommitLogStore::read_for_dispatch(std::int64_t from_offset,
                                                                        std::int64_t max_bytes) noexcept {
  MQKIT_RETURN_IF_ERROR(guard_readable());
  return commit_log_.read_for_dispatch(from_offset, max_bytes);
}

void CommitLogStore::on_dispatched(std::int64_t next_offset) noexcept {
  dispatched_.store(next_offset, std::memory_order_release);
}

Status CommitLogStore::save_metadata(std::string_view name, std::string_view content) noexcept {
  return metadata_.save(name, content);
}

v1::Result<std::optional<std::string>> CommitLogStore::load_metadata(std::string_view name) noexcept {
  return metadata_.load(name);
}

plugin::v1::StoreStats CommitLogStore::stats() noexcept {
  plugin::v1::StoreStats stats;
  stats.commit_log_min_offset = commit_log_.min_offset();
  // The next write position: with the pool, bytes not yet committed (readable) are included.
  stats.commit_log_max_offset = commit_log_.written_offset();
  stats.flushed_offset = commit_log_.flushed_offset();
  stats.dispatched_offset = dispatched_.load(std::memory_order_acquire);
  stats.disk_used_ratio = retention_.disk_used_ratio();
  stats.writable = state_.load() == State::kRunning && !retention_.disk_full() && !write_failed_.load() &&
                   !commit_log_.commit_failed();
  // Anonymous memory the store owns: the encode buffer, the pool and, roughly, one small object
  // per queue.
  stats.memory_bytes = commit_log_.scratch_bytes() + (commit_log_.pool() ? commit_log_.pool()->size() : 0) +
                       static_cast<std::int64_t>(queues_.size()) * 512;
  return stats;
}

void* CommitLogStore::extension(std::string_view id) noexcept {
  if (id == kTestHooksId) return static_cast<TestHooks*>(this);
  if (id == plugin::v1::kStoreAdminId) return static_cast<plugin::v1::StoreAdmin*>(this);
  if (id == plugin::v1::kPutLockClockId) return &commit_log_.put_lock_clock();
  // The size of its commit log files, as a `const std::int64_t*` valid while the store lives: a
  // master starts an empty slave at the beginning of its last file (docs/storage-format.md).
  if (id == "mqkit.store.commit-log-file-size") return const_cast<std::int64_t*>(&options_.commit_log_file_size);
  return nullptr;
}

Status CommitLogStore::checkpoint(bool thorough) {
  std::lock_guard lock(checkpoint_mutex_);
  // What was dispatched before the flush is what the flush covers.
  const std::int64_t dispatched = dispatched_.load(std::memory_order_acquire);
  const std::int64_t logics_timestamp = queue_dispatcher_.last_store_timestamp();
  Status status = queues_.flush(thorough ? 0 : options_.flush_consume_queue_least_pages);
  if (status.is_ok() && thorough && index_) status = index_->flush();
  if (!status.is_ok()) return status;
  if (thorough) {
    checkpoint_.logics_offset = checkpoint_.index_offset = dispatched;
    checkpoint_.logics_msg_timestamp = logics_timestamp;
    checkpoint_.index_msg_timestamp = index_ ? index_->last_timestamp() : logics_timestamp;
  }
  checkpoint_.physic_offset = commit_log_.flushed_offset();
  checkpoint_.physic_msg_timestamp = commit_log_.flushed_store_timestamp();
  return write_checkpoint(*env_, options_.checkpoint_path(), checkpoint_);
}

void CommitLogStore::housekeeping() {
  auto last_thorough = std::chrono::steady_clock::now();
  auto last_clean = last_thorough;
  std::string last_error;
  while (!housekeeping_.stopping()) {
    housekeeping_.wait_for(options_.flush_interval_consume_queue);
    if (housekeeping_.stopping()) break;
    const auto now = std::chrono::steady_clock::now();
    const bool thorough = now - last_thorough >= options_.flush_consume_queue_thorough_interval;
    if (thorough) last_thorough = now;
    Status status = checkpoint(thorough);
    if (!status.is_ok() && status.message() != last_error) {
      log_.error("flushing consume queues / writing the checkpoint: " + status.to_string());
    }
    last_error = status.is_ok() ? std::string() : status.message();
    if (now - last_clean >= options_.clean_resource_interval) {
      last_clean = now;
      retention_.run(false, [this](std::chrono::milliseconds pause) {
        housekeeping_.wait_for(pause);
        return !housekeeping_.stopping();
      });
    }
  }
}

RetentionCounts CommitLogStore::run_retention(bool manual) noexcept {
  const RetentionPass pass = retention_.run(manual);
  return {pass.commit_log_files, pass.consume_queue_files, pass.index_files};
}

Status CommitLogStore::write_checkpoint_now() noexcept {
  MQKIT_RETURN_IF_ERROR(commit_log_.flush().status());
  return checkpoint(true);
}

}  // namespace mqkit::plugins::stores::commitlog
