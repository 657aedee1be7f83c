// SendResult: what a broker said about a stored message (RocketMQ's SendResult). A failed send
// is a non-OK Status instead; every SendStatus below means the message *is* stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

enum class SendStatus : std::uint8_t {
  kSendOk,             // 0
  kFlushDiskTimeout,   // 10: stored, the sync flush did not finish in time
  kFlushSlaveTimeout,  // 12: stored, the slave did not acknowledge in time
  kSlaveNotAvailable,  // 11: stored, no slave to replicate to
};

// "SEND_OK", "FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE".
std::string_view to_string(SendStatus status) noexcept;
// The SendStatus of a send response code; nullopt for any other code (a failure).
std::optional<SendStatus> send_status_of_response(std::int32_t code) noexcept;

struct SendResult {
  SendStatus status = SendStatus::kSendOk;
  std::string msg_id{};         // UNIQ_KEY; a batch: every message's, comma-joined
  std::string offset_msg_id{};  // the broker's offset id(s), comma-joined for a batch
  MessageQueue message_queue{};
  std::int64_t queue_offset = -1;  // of the first message of a batch
  std::string transaction_id{};
  // A timer message the broker holds (RocketMQ 5.3 brokers and mqkit): what Producer::recall_message
  // takes to cancel it before its delivery. Empty otherwise.
  std::string recall_handle{};
  std::string region_id{};
  bool trace_on = true;
};

}  // namespace mqkit::client
