// The `memory` store plugin: a MessageStore that keeps everything in RAM, with the commit log
// store's interface and semantics and nothing on disk. Records are encoded in RocketMQ's layout
// (reads return them "as on disk", ready to send), consume queues and the key index are built by
// the store's own dispatchers from the kernel's reput stage, and a memory budget bounds it all by
// dropping the oldest messages first. For tests, development brokers and benchmarks.
//
// Threads (docs/threading.md): append(), append_replicated() and delete_topic() serialize on the
// put lock; every read runs concurrently with them; the dispatchers and on_dispatched() run on the
// kernel's reput thread. append() calls its callback on the calling thread before returning.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "key_index.hpp"
#include "memory_log.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/plugin.hpp"
#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "mqkit/plugin/v1/store_admin.hpp"
#include "queue_table.hpp"

namespace mqkit::plugins::stores::memory {

namespace v1 = plugin::v1;
using v1::Result;
using v1::Status;

namespace {

constexpr std::string_view kPluginName = "memory";

// Budget charged per message for what the store keeps beside the record: its queue entry and an
// index item per key.
constexpr std::int64_t kQueueEntryCost = sizeof(QueueEntry);
constexpr std::int64_t kIndexKeyCost = KeyIndex::kBytesPerKey;

// Turns exceptions (allocation failures above all) into a Status: no exception may leave a plugin.
template <typename Fn>
auto guarded(std::string_view what, Fn&& fn) noexcept -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Status::resource_exhausted(std::string(what) + ": out of memory");
  } catch (const std::exception& e) {
    return Status::internal(std::string(what) + ": " + e.what());
  }
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Prepared and rolled-back transaction messages get no queue offset and no queue entry until a
// commit message is written (RocketMQ's CommitLog and CommitLogDispatcherBuildConsumeQueue).
bool takes_queue_offset(std::int32_t sys_flag) {
  const std::int32_t type = sys_flag & v1::sys_flag::kTransactionMask;
  return type != v1::sys_flag::kTransactionPrepared && type != v1::sys_flag::kTransactionRollback;
}

std::string_view property_or_empty(std::string_view properties, std::string_view name) {
  return v1::find_property(properties, name).value_or(std::string_view{});
}

std::int64_t metadata_cost(std::string_view properties) {
  std::int64_t cost = kQueueEntryCost;
  for_each_index_key(property_or_empty(properties, v1::property::kKeys),
                     property_or_empty(properties, v1::property::kUniqueKey),
                     [&](std::string_view) { cost += kIndexKeyCost; });
  return cost;
}

bool record_has_key(std::string_view properties, std::string_view key) {
  bool found = false;
  for_each_index_key(property_or_empty(properties, v1::property::kKeys),
                     property_or_empty(properties, v1::property::kUniqueKey),
                     [&](std::string_view candidate) { found = found || candidate == key; });
  return found;
}

// What append() checks before taking the put lock, so that nothing of a bad batch is stored.
Status validate_batch(std::span<const v1::MessageToAppend> batch) {
  if (batch.empty()) return Status::invalid_argument("append of an empty batch");
  const v1::MessageToAppend& first = batch.front();
  if (first.topic.empty() || first.topic.size() > v1::kMaxTopicLength) {
    return Status::invalid_argument("topic must be 1 to " + std::to_string(v1::kMaxTopicLength) +
                                    " bytes, got " + std::to_string(first.topic.size()));
  }
  if (first.queue_id < 0) {
    return Status::invalid_argument("queue id " + std::to_string(first.queue_id) + " is negative");
  }
  for (const v1::MessageToAppend& message : batch) {
    if (message.topic != first.topic || message.queue_id != first.queue_id) {
      return Status::invalid_argument("a batch must share one topic and queue; got " + std::string(first.topic) +
                                      ":" + std::to_string(first.queue_id) + " and " + std::string(message.topic) +
                                      ":" + std::to_string(message.queue_id));
    }
    if (message.properties.size() > v1::kMaxPropertiesLength) {
      return Status::invalid_argument("properties are " + std::to_string(message.properties.size()) +
                                      " bytes, the limit is " + std::to_string(v1::kMaxPropertiesLength));
    }
    // record_size() is an int32: keep the sum of the parts far from overflowing it.
    if (message.body.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() / 2)) {
      return Status::invalid_argument("body of " + std::to_string(message.body.size()) + " bytes is too large");
    }
  }
  return Status::ok();
}

class MemoryStore;

// Builds the consume queues (RocketMQ's CommitLogDispatcherBuildConsumeQueue).
class QueueBuilder final : public v1::Dispatcher {
 public:
  explicit QueueBuilder(QueueTable& queues) : queues_(queues) {}
  std::string_view name() const noexcept override { return "memory.consume_queue"; }
  Status dispatch(const v1::DispatchRecord& record) noexcept override {
    return guarded("building the consume queue", [&] {
      const auto queue = queues_.queue_for_dispatch(record.topic, record.queue_id, record.commit_offset);
      if (queue != nullptr && takes_queue_offset(record.sys_flag)) {
        queue->add(record.queue_offset,
                   {record.commit_offset, record.tags_code, record.store_timestamp, record.size});
      }
      return Status::ok();
    });
  }

 private:
  QueueTable& queues_;
};

// Builds the key index (RocketMQ's CommitLogDispatcherBuildIndex).
class IndexBuilder final : public v1::Dispatcher {
 public:
  explicit IndexBuilder(KeyIndex& index) : index_(index) {}
  std::string_view name() const noexcept override { return "memory.index"; }
  Status dispatch(const v1::DispatchRecord& record) noexcept override {
    return guarded("building the key index", [&] {
      const bool rolled_back =
          (record.sys_flag & v1::sys_flag::kTransactionMask) == v1::sys_flag::kTransactionRollback;
      if (!rolled_back) {
        index_.add(record.topic, record.keys, record.unique_key, {record.commit_offset, record.store_timestamp});
      }
      return Status::ok();
    });
  }

 private:
  KeyIndex& index_;
};

class MemoryStore final : public v1::MessageStore, public v1::StoreAdmin {
 public:
  static Result<std::unique_ptr<MemoryStore>> create(const v1::ConfigValues& config, v1::Host& host) {
    return std::make_unique<MemoryStore>(config.get_size("memory_budget"), config.get_size("chunk_size"), host);
  }

  MemoryStore(std::int64_t budget_bytes, std::int64_t chunk_size, v1::Host& host)
      : host_(host), log_(budget_bytes, chunk_size) {}

  Result<v1::RecoveryReport> start() noexcept override {
    return guarded("starting the memory store", [&]() -> Result<v1::RecoveryReport> {
      std::lock_guard lock(put_mutex_);
      running_.store(true, std::memory_order_release);
      log(v1::LogLevel::kInfo, "started; memory_budget " + std::to_string(log_.budget_bytes()) +
                                   " bytes, nothing is kept on disk");
      v1::RecoveryReport report;
      report.commit_log_min_offset = log_.min_offset();
      report.commit_log_max_offset = log_.max_offset();
      report.dispatch_from_offset = dispatched_offset_.load(std::memory_order_acquire);
      return report;
    });
  }

  void shutdown() noexcept override {
    std::lock_guard lock(put_mutex_);
    running_.store(false, std::memory_order_release);
  }

  void append(std::span<const v1::MessageToAppend> batch, const v1::AppendOptions& /*options*/,
              v1::AppendCallback done) noexcept override {
    // Nothing to flush: a message is as durable as it will ever be once it is in memory.
    auto result = guarded("append", [&] { return append_batch(batch); });
    if (done) done(std::move(result));
  }

  Status append_replicated(std::int64_t commit_offset, std::span<const std::uint8_t> records) noexcept override {
    return guarded("replicated append", [&] { return append_copied(commit_offset, records); });
  }

  Result<v1::ReadResult> read(const v1::ReadRequest& request) noexcept override {
    return guarded("read", [&]() -> Result<v1::ReadResult> {
      if (request.max_count <= 0) {
        return Status::invalid_argument("max_count must be positive, got " + std::to_string(request.max_count));
      }
      v1::ReadResult out;
      const auto queue = queues_.find(request.topic, request.queue_id);
      if (queue == nullptr) {
        out.status = v1::ReadStatus::kNoMatchedLogicQueue;
        return out;
      }
      QueueSelection selection = queue->select(request, log_.min_offset());
      out.status = selection.status;
      out.min_offset = selection.min_offset;
      out.max_offset = selection.max_offset;
      out.next_begin_offset = selection.next_begin_offset;
      if (selection.status != v1::ReadStatus::kFound) return out;
      out.records.reserve(selection.entries.size());
      out.queue_offsets.reserve(selection.entries.size());
      const auto view = log_.view();
      for (std::size_t i = 0; i < selection.entries.size(); ++i) {
        const QueueEntry& entry = selection.entries[i];
        auto slice = view.slice(entry.commit_offset, entry.size);
        if (!slice) continue;  // evicted since the entry was selected
        out.records.push_back(std::move(*slice));
        out.queue_offsets.push_back(selection.queue_offsets[i]);
        out.total_bytes += entry.size;
      }
      if (out.records.empty()) out.status = v1::ReadStatus::kMessageWasRemoving;
      return out;
    });
  }

  std::int64_t min_offset(std::string_view topic, std::int32_t queue_id) noexcept override {
    const auto queue = queues_.find(topic, queue_id);
    return queue == nullptr ? 0 : queue->min_offset(log_.min_offset());
  }

  std::int64_t max_offset(std::string_view topic, std::int32_t queue_id) noexcept override {
    const auto queue = queues_.find(topic, queue_id);
    return queue == nullptr ? 0 : queue->max_offset();
  }

  Result<std::int64_t> commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                        std::int64_t queue_offset) noexcept override {
    return guarded("commit_offset_of", [&]() -> Result<std::int64_t> {
      MQKIT_ASSIGN_OR_RETURN(const auto queue, existing_queue(topic, queue_id));
      MQKIT_ASSIGN_OR_RETURN(const QueueEntry entry, queue->entry_at(queue_offset, log_.min_offset()));
      return entry.commit_offset;
    });
  }

  Result<v1::StoredSlice> read_at(std::int64_t commit_offset) noexcept override {
    return guarded("read_at", [&] { return log_.view().record_at(commit_offset); });
  }

  Result<std::int64_t> offset_by_time(std::string_view topic, std::int32_t queue_id, std::int64_t timestamp_ms,
                                      v1::TimeBoundary boundary) noexcept override {
    // RocketMQ answers 0 for a queue it does not know.
    const auto queue = queues_.find(topic, queue_id);
    return queue == nullptr ? 0 : queue->offset_by_time(timestamp_ms, boundary, log_.min_offset());
  }

  Result<std::int64_t> earliest_message_time(std::string_view topic, std::int32_t queue_id) noexcept override {
    return guarded("earliest_message_time", [&]() -> Result<std::int64_t> {
      MQKIT_ASSIGN_OR_RETURN(const auto queue, existing_queue(topic, queue_id));
      MQKIT_ASSIGN_OR_RETURN(const QueueEntry entry, queue->first_entry(log_.min_offset()));
      return entry.store_timestamp;
    });
  }

  Result<v1::QueryResult> query_by_key(std::string_view topic, std::string_view key, std::int32_t max_count,
                                       std::int64_t begin_ms, std::int64_t end_ms) noexcept override {
    return guarded("query_by_key", [&]() -> Result<v1::QueryResult> {
      v1::QueryResult out;
      if (max_count > 0) {
        const auto view = log_.view();
        index_.visit(topic, key, begin_ms, end_ms, [&](const KeyIndex::Hit& hit) {
          auto record = view.record_at(hit.commit_offset);
          if (!record) return true;  // evicted, not yet pruned from the index
          // The index keeps key hashes: confirm the record really carries the key, and that its
          // topic was not deleted since (the index forgets nothing until eviction).
          const auto decoded = v1::decode_record(record->bytes);
          if (decoded && decoded->topic == topic && record_has_key(decoded->properties, key) &&
              !queues_.deleted_before(topic, hit.commit_offset)) {
            out.records.push_back(std::move(record).value());
          }
          return out.records.size() < static_cast<std::size_t>(max_count);
        });
      }
      const KeyIndex::Hit last = index_.last_update();
      out.index_last_update_timestamp = last.store_timestamp;
      out.index_last_update_commit_offset = last.commit_offset;
      return out;
    });
  }

  Status delete_topic(std::string_view topic) noexcept override {
    return guarded("delete_topic", [&] {
      std::lock_guard lock(put_mutex_);
      queues_.erase_topic(topic, log_.max_offset());
      log(v1::LogLevel::kInfo, "deleted topic " + std::string(topic));
      return Status::ok();
    });
  }

  Status flush() noexcept override { return Status::ok(); }

  Result<v1::DispatchChunk> read_for_dispatch(std::int64_t from_offset, std::int64_t max_bytes) noexcept override {
    return guarded("read_for_dispatch", [&] { return log_.read_for_dispatch(from_offset, max_bytes); });
  }

  std::span<v1::Dispatcher* const> dispatchers() noexcept override { return dispatchers_; }

  void on_dispatched(std::int64_t next_offset) noexcept override {
    dispatched_offset_.store(next_offset, std::memory_order_release);
    // Reclaims queue entries and index keys of evicted records here, on the reput thread that
    // owns those structures, instead of making appends wait for it.
    const std::int64_t log_min = log_.min_offset();
    if (log_min <= pruned_below_) return;
    const Status pruned = guarded("pruning evicted entries", [&] {
      queues_.for_each([&](ConsumeQueue& queue) { queue.prune(log_min); });
      index_.prune(log_min);
      return Status::ok();
    });
    if (pruned.is_ok()) {
      pruned_below_ = log_min;
    } else {
      log(v1::LogLevel::kWarn, pruned.to_string());
    }
  }

  Status save_metadata(std::string_view name, std::string_view content) noexcept override {
    return guarded("save_metadata", [&] {
      if (name.empty()) return Status::invalid_argument("metadata name is empty");
      std::lock_guard lock(metadata_mutex_);
      metadata_.insert_or_assign(std::string(name), std::string(content));
      return Status::ok();
    });
  }

  Result<std::optional<std::string>> load_metadata(std::string_view name) noexcept override {
    return guarded("load_metadata", [&]() -> Result<std::optional<std::string>> {
      std::lock_guard lock(metadata_mutex_);
      const auto it = metadata_.find(name);
      if (it == metadata_.end()) return std::optional<std::string>{};
      return std::optional<std::string>{it->second};
    });
  }

  void* extension(std::string_view id) noexcept override {
    if (id == v1::kPutLockClockId) return &put_lock_clock_;
    if (id == v1::kStoreAdminId) return static_cast<v1::StoreAdmin*>(this);
    return nullptr;
  }

  // StoreAdmin
  Result<int> delete_expired_files() noexcept override {
    return Status::not_supported(
        "the memory store keeps no files: it drops its oldest messages when it reaches memory_budget");
  }

  Result<std::vector<v1::QueueRef>> queues() noexcept override {
    return guarded("listing queues", [&]() -> Result<std::vector<v1::QueueRef>> { return queues_.refs(); });
  }

  Result<v1::QueueUnits> queue_units(std::string_view topic, std::int32_t queue_id, std::int64_t from,
                                     std::int32_t count) noexcept override {
    return guarded("queue_units", [&]() -> Result<v1::QueueUnits> {
      const auto queue = queues_.find(topic, queue_id);
      if (queue == nullptr) return Status::not_found(std::to_string(queue_id) + "@" + std::string(topic) + " is not exist!");
      return queue->units(from, count, log_.min_offset());
    });
  }

  Result<bool> drop_expired_queue(std::string_view topic, std::int32_t queue_id) noexcept override {
    return guarded("drop_expired_queue", [&]() -> Result<bool> {
      std::lock_guard lock(put_mutex_);
      const auto queue = queues_.find(topic, queue_id);
      if (queue == nullptr) return false;
      const std::int64_t max = queue->max_offset();
      // Appended but not yet dispatched messages are on their way into the queue.
      if (max == 0 || queue->next_append_offset() != max || queue->min_offset(log_.min_offset()) != max) return false;
      queues_.erase_queue(topic, queue_id, queue);
      log(v1::LogLevel::kInfo, "dropped queue " + std::string(topic) + "/" + std::to_string(queue_id) +
                                   ": every message it held was evicted");
      return true;
    });
  }

  v1::StoreStats stats() noexcept override {
    v1::StoreStats stats;
    stats.commit_log_min_offset = log_.min_offset();
    stats.commit_log_max_offset = log_.max_offset();
    stats.flushed_offset = stats.commit_log_max_offset;
    stats.dispatched_offset = dispatched_offset_.load(std::memory_order_acquire);
    stats.writable = running_.load(std::memory_order_acquire);
    stats.memory_bytes = log_.accounted_bytes();
    return stats;
  }

 private:
  Result<std::shared_ptr<ConsumeQueue>> existing_queue(std::string_view topic, std::int32_t queue_id) const {
    auto queue = queues_.find(topic, queue_id);
    if (queue == nullptr) {
      return Status::not_found("no queue " + std::string(topic) + ":" + std::to_string(queue_id));
    }
    return queue;
  }

  Result<v1::AppendResult> append_batch(std::span<const v1::MessageToAppend> batch) {
    MQKIT_RETURN_IF_ERROR(validate_batch(batch));
    std::int64_t bytes = 0;
    std::int64_t metadata = 0;
    for (const v1::MessageToAppend& message : batch) {
      bytes += v1::record_size(message);
      metadata += metadata_cost(message.properties);
    }
    const v1::MessageToAppend& first = batch.front();

    std::lock_guard lock(put_mutex_);
    const std::int64_t now = now_ms();
    const v1::PutLockClock::Held held(put_lock_clock_, now);
    MQKIT_RETURN_IF_ERROR(check_writable());
    const auto queue = queues_.find_or_create(first.topic, first.queue_id);
    MQKIT_ASSIGN_OR_RETURN(const MemoryLog::Reservation reservation, reserve(bytes, metadata));
    // Store timestamps never go backwards, so searches by time can bisect a queue.
    last_store_timestamp_ = std::max(now, last_store_timestamp_);

    v1::AppendResult result;
    result.commit_offset = reservation.offset;
    result.bytes = static_cast<std::int32_t>(bytes);
    result.message_count = static_cast<std::int32_t>(batch.size());
    result.store_timestamp = last_store_timestamp_;
    result.queue_offset = takes_queue_offset(first.sys_flag) ? queue->next_append_offset() : 0;
    std::int64_t queue_offset = queue->next_append_offset();
    std::size_t position = 0;
    for (const v1::MessageToAppend& message : batch) {
      const bool in_queue = takes_queue_offset(message.sys_flag);
      const auto size = static_cast<std::size_t>(v1::record_size(message));
      const v1::RecordPlacement placement{in_queue ? queue_offset : 0,
                                          reservation.offset + static_cast<std::int64_t>(position),
                                          last_store_timestamp_};
      MQKIT_RETURN_IF_ERROR(v1::encode_record(message, placement, reservation.bytes.subspan(position, size)));
      position += size;
      if (in_queue) ++queue_offset;
    }
    log_.commit(reservation);
    queue->advance_append_offset(queue_offset - queue->next_append_offset());
    return result;
  }

  Status append_copied(std::int64_t commit_offset, std::span<const std::uint8_t> records) {
    std::lock_guard lock(put_mutex_);
    const v1::PutLockClock::Held held(put_lock_clock_, now_ms());
    MQKIT_RETURN_IF_ERROR(check_writable());
    // A log that never held anything starts where its master's transfer starts (a master starts
    // an empty slave at the beginning of its last commit log file; this store has no files).
    const bool starts_empty_log = log_.never_written() && commit_offset > 0;
    if (commit_offset != log_.max_offset() && !starts_empty_log) {
      return Status::invalid_argument("replicated records start at commit offset " + std::to_string(commit_offset) +
                                      ", the log ends at " + std::to_string(log_.max_offset()));
    }
    // Everything is checked before anything is stored, so a bad transfer leaves the log as it was.
    struct Copied {
      std::span<const std::uint8_t> bytes;
      std::optional<v1::RecordView> record;  // nullopt for an end-of-file blank
    };
    std::vector<Copied> copied;
    for (std::size_t position = 0; position < records.size();) {
      const std::int64_t offset = commit_offset + static_cast<std::int64_t>(position);
      const auto rest = records.subspan(position);
      MQKIT_ASSIGN_OR_RETURN(const RecordHead head, read_record_head(rest, offset));
      if (static_cast<std::size_t>(head.size) > rest.size()) {
        return Status::corruption("replicated record at commit offset " + std::to_string(offset) + " claims " +
                                  std::to_string(head.size) + " bytes, " + std::to_string(rest.size()) + " were sent");
      }
      const auto bytes = rest.first(static_cast<std::size_t>(head.size));
      position += bytes.size();
      if (head.blank) {
        copied.push_back({bytes, std::nullopt});
        continue;
      }
      MQKIT_ASSIGN_OR_RETURN(v1::RecordView record, v1::decode_record(bytes, v1::CrcCheck::kVerify));
      if (record.commit_offset != offset) {
        return Status::corruption("replicated record at commit offset " + std::to_string(offset) +
                                  " says it belongs at " + std::to_string(record.commit_offset));
      }
      copied.push_back({bytes, record});
    }
    if (starts_empty_log && !copied.empty()) log_.start_at(commit_offset);
    for (const Copied& item : copied) {
      if (!item.record) {
        MQKIT_RETURN_IF_ERROR(log_.append_blank(static_cast<std::int32_t>(item.bytes.size())));
        continue;
      }
      const v1::RecordView& record = *item.record;
      const auto queue = queues_.find_or_create(record.topic, record.queue_id);
      MQKIT_ASSIGN_OR_RETURN(const MemoryLog::Reservation reservation,
                             reserve(static_cast<std::int64_t>(item.bytes.size()), metadata_cost(record.properties)));
      std::memcpy(reservation.bytes.data(), item.bytes.data(), item.bytes.size());
      log_.commit(reservation);
      if (takes_queue_offset(record.sys_flag)) queue->note_replicated_offset(record.queue_offset);
      last_store_timestamp_ = std::max(last_store_timestamp_, record.store_timestamp);
    }
    return Status::ok();
  }

  Status check_writable() const {
    if (!running_.load(std::memory_order_acquire)) {
      return Status::unavailable("the memory store is not running (not started or shut down)");
    }
    return Status::ok();
  }

  // Put lock held. Reserves log space and says once when the budget starts dropping messages.
  Result<MemoryLog::Reservation> reserve(std::int64_t bytes, std::int64_t metadata) {
    const std::int64_t min_before = log_.min_offset();
    auto reservation = log_.reserve(bytes, metadata);
    if (log_.min_offset() != min_before) {
      log(evicted_before_ ? v1::LogLevel::kDebug : v1::LogLevel::kWarn,
          "memory_budget of " + std::to_string(log_.budget_bytes()) + " bytes reached: dropped commit log [" +
              std::to_string(min_before) + ", " + std::to_string(log_.min_offset()) + ")");
      evicted_before_ = true;
    }
    return reservation;
  }

  void log(v1::LogLevel level, std::string_view message) const noexcept { host_.log(level, kPluginName, message); }

  v1::Host& host_;
  MemoryLog log_;
  QueueTable queues_;
  KeyIndex index_;
  QueueBuilder queue_builder_{queues_};
  IndexBuilder index_builder_{index_};
  const std::array<v1::Dispatcher*, 2> dispatchers_{&queue_builder_, &index_builder_};

  std::mutex put_mutex_;
  v1::PutLockClock put_lock_clock_;
  std::int64_t last_store_timestamp_ = 0;  // put lock
  bool evicted_before_ = false;            // put lock
  std::atomic<bool> running_{false};

  std::atomic<std::int64_t> dispatched_offset_{0};
  std::int64_t pruned_below_ = 0;  // reput thread

  std::mutex metadata_mutex_;
  std::map<std::string, std::string, std::less<>> metadata_;
};

constexpr const char* kAliases[] = {"MemoryMessageStore", "in_memory", nullptr};
constexpr v1::ConfigField kSchema[] = {
    {.key = "memory_budget",
     .type = v1::ValueType::kSize,
     .default_value = "1GiB",
     .description = "Upper bound on the memory holding messages and their queue and index entries; when "
                    "an append would pass it, the oldest messages are dropped (queue min offsets move up)",
     .min = 64.0 * 1024},
    {.key = "chunk_size",
     .type = v1::ValueType::kSize,
     .default_value = "4MiB",
     .description = "Size of the blocks messages are written into, and so the unit of eviction; capped at "
                    "a quarter of memory_budget (a larger batch gets a block of its own size)",
     .min = 4.0 * 1024,
     .max = 1024.0 * 1024 * 1024},
};

}  // namespace
}  // namespace mqkit::plugins::stores::memory

MQKIT_PLUGIN(MessageStore, mqkit::plugins::stores::memory::MemoryStore, "memory",
             mqkit::plugins::stores::memory::kAliases, "1.0.0",
             "Keeps messages in RAM within a memory budget, oldest dropped first; same semantics as "
             "the commit log store, nothing on disk",
             mqkit::plugins::stores::memory::kSchema)
