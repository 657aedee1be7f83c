// PullResult: the answer to one PULL_MESSAGE (RocketMQ's PullResult), and the PullSysFlag bits
// of the request.
#pragma once

#include "mqkit/protocol/codes.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "mqkit/client/message_ext.hpp"

namespace mqkit::client {

enum class PullStatus : std::uint8_t {
  kFound,           // 0 SUCCESS: messages
  kNoNewMsg,        // 19 PULL_NOT_FOUND: caught up (after long polling)
  kNoMatchedMsg,    // 20 PULL_RETRY_IMMEDIATELY: nothing passed the filter, pull again now
  kOffsetIllegal,   // 21 PULL_OFFSET_MOVED: continue from next_begin_offset
};

std::string_view to_string(PullStatus status) noexcept;
// nullopt for a response code that is a failure.
std::optional<PullStatus> pull_status_of_response(std::int32_t code) noexcept;

struct PullResult {
  PullStatus status = PullStatus::kNoNewMsg;
  std::int64_t next_begin_offset = 0;
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;
  std::int64_t suggest_which_broker_id = 0;
  // Decoded as stored (bodies inflated); not filtered by tag string, no MIN/MAX_OFFSET added.
  std::vector<MessageExt> messages{};
};

namespace pull_sys_flag = protocol::pull_sys_flag;

}  // namespace mqkit::client
