// PullResult: the answer to one PULL_MESSAGE (RocketMQ's PullResult), and the PullSysFlag bits
// of the request.
#pragma once

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

// PullSysFlag (rocketmq-facts §2.4).
namespace pull_sys_flag {
inline constexpr std::int32_t kCommitOffset = 0x1;
inline constexpr std::int32_t kSuspend = 0x2;
inline constexpr std::int32_t kSubscription = 0x4;
inline constexpr std::int32_t kClassFilter = 0x8;
inline constexpr std::int32_t kLitePull = 0x10;

constexpr std::int32_t build(bool commit_offset, bool suspend, bool subscription, bool class_filter) {
  return (commit_offset ? kCommitOffset : 0) | (suspend ? kSuspend : 0) | (subscription ? kSubscription : 0) |
         (class_filter ? kClassFilter : 0);
}
}  // namespace pull_sys_flag

}  // namespace mqkit::client
