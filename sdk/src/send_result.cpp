#include "mqkit/client/send_result.hpp"

#include "mqkit/protocol/codes.hpp"

namespace mqkit::client {

namespace rc = protocol::response_code;

std::string_view to_string(SendStatus status) noexcept {
  switch (status) {
    case SendStatus::kSendOk: return "SEND_OK";
    case SendStatus::kFlushDiskTimeout: return "FLUSH_DISK_TIMEOUT";
    case SendStatus::kFlushSlaveTimeout: return "FLUSH_SLAVE_TIMEOUT";
    case SendStatus::kSlaveNotAvailable: return "SLAVE_NOT_AVAILABLE";
  }
  return "UNKNOWN";
}

std::optional<SendStatus> send_status_of_response(std::int32_t code) noexcept {
  switch (code) {
    case rc::kSuccess: return SendStatus::kSendOk;
    case rc::kFlushDiskTimeout: return SendStatus::kFlushDiskTimeout;
    case rc::kFlushSlaveTimeout: return SendStatus::kFlushSlaveTimeout;
    case rc::kSlaveNotAvailable: return SendStatus::kSlaveNotAvailable;
    default: return std::nullopt;
  }
}

}  // namespace mqkit::client
