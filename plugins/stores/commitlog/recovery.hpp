// Recovery: brings the commit log, the consume queues and the index back to a consistent state
// when the store opens (RocketMQ's recoverNormally / recoverAbnormally, with exact offsets).
//
//  1. Open every file. Read the checkpoint; the abort marker tells a crash from a clean stop.
//  2. Pick a safe point: the smallest of the checkpoint's flushed commit log, consume queue and
//     index offsets (record boundaries). Without mqkit's offsets (a RocketMQ checkpoint) use
//     RocketMQ's rules; without any checkpoint, or without a consumequeue directory although
//     records were dispatched, start from the first file (a full rebuild).
//  3. Scan forward from the safe point, checking every record (magic, lengths, commit offset,
//     body CRC when check_crc_on_recover), and stop at the first bad one. Everything from there
//     on is cut off: the tail is zeroed, later files are deleted, and one log line names the
//     file, the offset and the reason.
//  4. Drop consume queue units that point past the new end; note queues whose files were
//     damaged or lag behind records the scan saw, so re-dispatch starts early enough.
//  5. Rebuild the queue offset table from the consume queues and the scanned records.
//  6. Report where the kernel's reput stage must start (dispatchers are idempotent, so records
//     dispatched twice change nothing).
//
// Threads: runs alone, inside MessageStore::start(), before any other thread touches the store.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "checkpoint.hpp"
#include "commit_log.hpp"
#include "consume_queue_set.hpp"
#include "env.hpp"
#include "index_service.hpp"
#include "logger.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "options.hpp"

namespace mqkit::plugins::stores::commitlog {

// What the recovery scan finds at `position`, given the bytes from there to the end of its file
// (a pure function of those bytes, so that corrupt files can be tested without a store).
struct ScanStep {
  enum class Kind : std::uint8_t {
    kRecord,   // a whole, valid record that says it is at `position`; `length` is its size
    kBlank,    // the end-of-file blank; `length` is the rest of the file
    kEnd,      // never written (size and magic still 0): the end of the log
    kProblem,  // anything else: the log is cut here, `problem` says why
  };
  Kind kind = Kind::kEnd;
  std::int64_t length = 0;
  std::string problem;
  plugin::v1::RecordView record{};  // kRecord; views into the scanned bytes
};
ScanStep inspect_scan_position(std::span<const std::uint8_t> rest_of_file, std::int64_t position,
                               plugin::v1::CrcCheck crc);

struct RecoveryOutcome {
  plugin::v1::RecoveryReport report{};
  std::int64_t last_store_timestamp = 0;
};

class Recovery {
 public:
  Recovery(Env& env, Logger log, const StoreOptions& options, CommitLog& commit_log, ConsumeQueueSet& queues,
           IndexService* index)
      : env_(env), log_(log), options_(options), commit_log_(commit_log), queues_(queues), index_(index) {}

  v1::Result<RecoveryOutcome> run();

 private:
  struct SafePoint {
    std::int64_t scan_from = 0;
    std::int64_t dispatch_from = 0;
    std::string why;
  };
  struct Scan {
    std::int64_t end = 0;
    std::string problem;  // empty when the scan ended at unwritten bytes
    std::int64_t records = 0;
    std::int64_t last_store_timestamp = 0;
    QueueOffsetTable next_offsets;  // past the records seen
    std::map<std::pair<std::string, std::int32_t>, std::int64_t> first_offsets;  // first queue offset seen
  };
  SafePoint choose_safe_point(bool clean, const std::optional<CheckpointData>& checkpoint, bool queues_lost) const;
  std::int64_t rocketmq_abnormal_start(std::int64_t timestamp_limit) const;
  std::int64_t aligned_scan_start(std::int64_t offset) const;
  Scan scan(std::int64_t from) const;

  Env& env_;
  Logger log_;
  const StoreOptions& options_;
  CommitLog& commit_log_;
  ConsumeQueueSet& queues_;
  IndexService* index_;
};

}  // namespace mqkit::plugins::stores::commitlog
