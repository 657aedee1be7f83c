// Checkpoint: the store's `checkpoint` file, one 4 KiB page (RocketMQ's StoreCheckpoint).
//
//   @0  physicMsgTimestamp i64  store time of the last record flushed to the commit log
//   @8  logicsMsgTimestamp i64  store time of the last record whose consume queue unit is flushed
//   @16 indexMsgTimestamp  i64  store time of the last record whose index entries are flushed
//   @24 masterFlushedOffset i64, @32 confirmPhyOffset i64: RocketMQ 5.x fields, written as 0
//   @40 magic i32 "MQKC" (0x4D514B43) and @44 version i32 (1) mark mqkit's fields:
//   @48 physic offset i64   commit log offset below which the log is flushed
//   @56 logics offset i64   commit log offset below which every record's unit is flushed
//   @64 index offset i64    commit log offset below which every record's index entries are flushed
//   @72 crc i32             CRC32 of bytes [0, 72)
//
// The offsets give recovery an exact record boundary to resume from; RocketMQ's timestamps are
// kept for tools and for opening a store RocketMQ wrote (no magic: recovery falls back to
// RocketMQ's timestamp rule). Written with pwrite + fdatasync; the fields sit in one sector.
//
// Threads: none of its own; the store writes it from the housekeeping thread and at shutdown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "env.hpp"

namespace mqkit::plugins::stores::commitlog {

struct CheckpointData {
  std::int64_t physic_msg_timestamp = 0;
  std::int64_t logics_msg_timestamp = 0;
  std::int64_t index_msg_timestamp = 0;
  bool has_offsets = false;  // mqkit's fields were present and intact
  std::int64_t physic_offset = 0;
  std::int64_t logics_offset = 0;
  std::int64_t index_offset = 0;
};

inline constexpr std::int64_t kCheckpointSize = 4096;

// nullopt when the file does not exist; Corruption when it is too short or its CRC is wrong.
v1::Result<std::optional<CheckpointData>> read_checkpoint(Env& env, const std::string& path);
v1::Status write_checkpoint(Env& env, const std::string& path, const CheckpointData& data);

}  // namespace mqkit::plugins::stores::commitlog
