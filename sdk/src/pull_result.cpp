#include "mqkit/client/pull_result.hpp"

#include "mqkit/protocol/codes.hpp"

namespace mqkit::client {

namespace rc = protocol::response_code;

std::string_view to_string(PullStatus status) noexcept {
  switch (status) {
    case PullStatus::kFound: return "FOUND";
    case PullStatus::kNoNewMsg: return "NO_NEW_MSG";
    case PullStatus::kNoMatchedMsg: return "NO_MATCHED_MSG";
    case PullStatus::kOffsetIllegal: return "OFFSET_ILLEGAL";
  }
  return "UNKNOWN";
}

std::optional<PullStatus> pull_status_of_response(std::int32_t code) noexcept {
  switch (code) {
    case rc::kSuccess: return PullStatus::kFound;
    case rc::kPullNotFound: return PullStatus::kNoNewMsg;
    case rc::kPullRetryImmediately: return PullStatus::kNoMatchedMsg;
    case rc::kPullOffsetMoved: return PullStatus::kOffsetIllegal;
    default: return std::nullopt;
  }
}

}  // namespace mqkit::client
