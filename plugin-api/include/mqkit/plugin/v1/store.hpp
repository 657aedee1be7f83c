// MessageStore: where a broker's messages live (RocketMQ's MessageStore). The broker appends
// messages to one commit log, reads them back by (topic, queue, offset), looks them up by commit
// log offset, time and key, and recovers after a crash.
//
// Dispatch: consume queues and indexes are built asynchronously from what the commit log has
// committed. The kernel owns that pipeline (one reput thread): it reads committed records with
// read_for_dispatch(), decodes each into a DispatchRecord and hands it to the store's own
// dispatchers() (consume-queue builder, index builder) and then to the kernel's (long-polling
// wake-up, delay scheduler, ...). A record is visible to read() once its dispatch is done.
//
// Threads: append() and every read may be called from many threads at once. Dispatchers are
// called only from the kernel's reput thread. Callbacks may run on the store's flush thread and
// must not block.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/buffer.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

// An IPv4 or IPv6 socket address as the record layout stores it.
struct HostAddress {
  std::array<std::uint8_t, 16> ip{};  // IPv4 uses the first 4 bytes
  bool is_v6 = false;
  std::int32_t port = 0;
};

// One message as the broker hands it to the store. The store assigns the queue offset, commit
// log offset, store timestamp and body CRC, and encodes the RocketMQ record.
struct MessageToAppend {
  std::string_view topic{};
  std::int32_t queue_id = 0;
  std::int32_t flag = 0;
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;
  HostAddress born_host{};
  HostAddress store_host{};
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
  std::span<const std::uint8_t> body{};
  std::string_view properties{};  // encoded "name\x01value\x02..." (rocketmq-facts §2.2)
};

struct AppendOptions {
  // false when the message says WAIT=false: acknowledge before the flush even in sync mode.
  bool wait_for_flush = true;
};

struct AppendResult {
  std::int64_t commit_offset = 0;     // physical offset of the first record
  std::int32_t bytes = 0;             // bytes of all records written
  std::int64_t queue_offset = 0;      // logical offset of the first record in its queue
  std::int32_t message_count = 0;
  std::int64_t store_timestamp = 0;   // ms
  // Stored, but the sync flush did not finish within the flush timeout (FLUSH_DISK_TIMEOUT).
  bool flush_timed_out = false;
};

// Called exactly once per append. A failed Status means nothing of the batch was stored.
using AppendCallback = std::function<void(Result<AppendResult>)>;

// RocketMQ's GetMessageStatus, which the broker maps to pull response codes.
enum class ReadStatus : std::uint8_t {
  kFound,
  kNoMatchedMessage,     // entries exist but none passed the tag filter
  kMessageWasRemoving,   // entries point into commit log files already deleted
  kOffsetFoundNull,
  kOffsetOverflowBadly,  // offset > max offset
  kOffsetOverflowOne,    // offset == max offset (caught up)
  kOffsetTooSmall,       // offset < min offset
  kNoMatchedLogicQueue,  // topic/queue unknown
  kNoMessageInQueue,     // queue exists but is empty
};

struct ReadRequest {
  std::string_view topic{};
  std::int32_t queue_id = 0;
  std::int64_t offset = 0;
  std::int32_t max_count = 32;
  std::int64_t max_bytes = 256 * 1024;
  // Tag hash codes accepted (Java String.hashCode of each tag); empty = every message.
  std::span<const std::int32_t> tag_codes{};
};

struct ReadResult {
  ReadStatus status = ReadStatus::kNoMatchedLogicQueue;
  std::int64_t next_begin_offset = 0;
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;
  std::vector<StoredSlice> records{};  // each a whole stored record, bytes as on disk
  std::int64_t total_bytes = 0;
  // Offsets of the returned records, parallel to `records`.
  std::vector<std::int64_t> queue_offsets{};
};

enum class TimeBoundary : std::uint8_t { kLower, kUpper };

struct QueryResult {
  std::vector<StoredSlice> records{};
  std::int64_t index_last_update_timestamp = 0;
  std::int64_t index_last_update_commit_offset = 0;
};

// What the kernel's reput stage reads: whole committed records starting at `from`, with end-of-
// file padding already skipped. `next_offset` is where the next read starts.
struct DispatchChunk {
  StoredSlice bytes{};
  std::int64_t start_offset = 0;
  std::int64_t next_offset = 0;
};

// One committed record, decoded once by the kernel and shown to every dispatcher.
struct DispatchRecord {
  std::string_view topic{};
  std::int32_t queue_id = 0;
  std::int64_t commit_offset = 0;
  std::int32_t size = 0;
  std::int64_t tags_code = 0;   // hash of TAGS; for delay topics the delivery time (ms)
  std::int64_t store_timestamp = 0;
  std::int64_t queue_offset = 0;
  std::int32_t sys_flag = 0;
  std::int64_t prepared_transaction_offset = 0;
  std::string_view keys{};        // KEYS property (space separated), may be empty
  std::string_view unique_key{};  // UNIQ_KEY property, may be empty
  std::string_view properties{};
  std::span<const std::uint8_t> record{};  // the whole stored record
};

class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  virtual std::string_view name() const noexcept = 0;
  // Builds this dispatcher's structure for one record. A failure stops the pipeline with a
  // logged error (the store will rebuild on next recovery) rather than skip the record.
  virtual Status dispatch(const DispatchRecord& record) noexcept = 0;
};

struct RecoveryReport {
  bool clean_shutdown = true;       // false when the abort marker was found
  std::int64_t commit_log_min_offset = 0;
  std::int64_t commit_log_max_offset = 0;
  std::int64_t truncated_bytes = 0;  // torn or corrupt tail removed
  std::int64_t dispatch_from_offset = 0;  // where the reput stage must start
};

struct StoreStats {
  std::int64_t commit_log_min_offset = 0;
  std::int64_t commit_log_max_offset = 0;   // next write position
  std::int64_t flushed_offset = 0;
  std::int64_t dispatched_offset = 0;
  double disk_used_ratio = 0.0;
  bool writable = true;                     // false when disk full or shutting down
  std::int64_t memory_bytes = 0;            // store-owned anonymous memory (estimate)
};

class MessageStore {
 public:
  virtual ~MessageStore() = default;

  // Opens the store and recovers it (checkpoint, abort marker, CRC scan, torn tail).
  virtual Result<RecoveryReport> start() noexcept = 0;
  // Flushes everything, writes the checkpoint and removes the abort marker.
  virtual void shutdown() noexcept = 0;

  // Appends one message, or a batch whose messages share topic and queue (consecutive queue
  // offsets). `done` is called exactly once, possibly on another thread.
  virtual void append(std::span<const MessageToAppend> batch, const AppendOptions& options,
                      AppendCallback done) noexcept = 0;
  // Appends records already encoded by another store at exactly commit_offset == max offset
  // (replication: a slave copies its master's commit log byte for byte).
  virtual Status append_replicated(std::int64_t commit_offset,
                                   std::span<const std::uint8_t> records) noexcept = 0;

  virtual Result<ReadResult> read(const ReadRequest& request) noexcept = 0;
  virtual std::int64_t min_offset(std::string_view topic, std::int32_t queue_id) noexcept = 0;
  // Next offset to be written (== number of entries ever dispatched to that queue).
  virtual std::int64_t max_offset(std::string_view topic, std::int32_t queue_id) noexcept = 0;
  // Commit log offset of the entry at `queue_offset`, for the broker's lag statistics.
  virtual Result<std::int64_t> commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                                std::int64_t queue_offset) noexcept = 0;
  // The whole record at a commit log offset (VIEW_MESSAGE_BY_ID, retry, transactions).
  virtual Result<StoredSlice> read_at(std::int64_t commit_offset) noexcept = 0;
  virtual Result<std::int64_t> offset_by_time(std::string_view topic, std::int32_t queue_id,
                                              std::int64_t timestamp_ms,
                                              TimeBoundary boundary) noexcept = 0;
  virtual Result<std::int64_t> earliest_message_time(std::string_view topic,
                                                     std::int32_t queue_id) noexcept = 0;
  // Messages whose KEYS or UNIQ_KEY contain `key`, newest first, stored within [begin, end] ms.
  virtual Result<QueryResult> query_by_key(std::string_view topic, std::string_view key,
                                           std::int32_t max_count, std::int64_t begin_ms,
                                           std::int64_t end_ms) noexcept = 0;

  // Drops every queue of a topic (deleteTopic). Commit log bytes age out with retention.
  virtual Status delete_topic(std::string_view topic) noexcept = 0;

  // Flushes all dirty data now, whatever the flush mode.
  virtual Status flush() noexcept = 0;

  // Dispatch support (see the header comment).
  virtual Result<DispatchChunk> read_for_dispatch(std::int64_t from_offset,
                                                  std::int64_t max_bytes) noexcept = 0;
  virtual std::span<Dispatcher* const> dispatchers() noexcept = 0;
  // Tells the store how far dispatch has gone (it checkpoints this for recovery).
  virtual void on_dispatched(std::int64_t next_offset) noexcept = 0;

  // Small metadata documents (topics.json, consumerOffset.json, ...) kept with the store and
  // written atomically. load returns nullopt when the document was never saved.
  virtual Status save_metadata(std::string_view name, std::string_view content) noexcept = 0;
  virtual Result<std::optional<std::string>> load_metadata(std::string_view name) noexcept = 0;

  virtual StoreStats stats() noexcept = 0;

  virtual void* extension(std::string_view /*id*/) noexcept { return nullptr; }
};

}  // namespace mqkit::plugin::v1
