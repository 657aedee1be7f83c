#include "mqkit/client/response_status.hpp"

#include <string>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::client {

namespace rc = protocol::response_code;

StatusCode status_code_of_response(std::int32_t code) noexcept {
  switch (code) {
    case rc::kTopicNotExist:
    case rc::kQueryNotFound:
    case rc::kConsumerNotOnline:
    case rc::kSubscriptionGroupNotExist:
      return StatusCode::kNotFound;
    case rc::kServiceNotAvailable:
    case rc::kSystemError:
    case rc::kNoBuyerId:
    case rc::kNotInCurrentUnit:
    case rc::kGoAway:
      return StatusCode::kUnavailable;
    case rc::kNoPermission:
      return StatusCode::kPermissionDenied;
    case rc::kSystemBusy:
    case rc::kFlowControl:
      return StatusCode::kResourceExhausted;
    case rc::kMessageIllegal:
    case rc::kSubscriptionParseFailed:
    case rc::kInvalidParameter:
      return StatusCode::kInvalidArgument;
    case rc::kRequestCodeNotSupported:
    case rc::kVersionNotSupported:
      return StatusCode::kNotSupported;
    case rc::kTopicExistAlready:
      return StatusCode::kAlreadyExists;
    default:
      return StatusCode::kInternal;
  }
}

Status response_error(const plugin::v1::RemotingCommand& response, std::string_view address) {
  std::string message = "CODE: " + std::to_string(response.code) + " DESC: " + response.remark.value_or("");
  if (!address.empty()) message += " (" + std::string(address) + ")";
  // mqkit's remark starts with the name; RocketMQ's with its class, org.apache.rocketmq.acl.common.AclException.
  const bool acl_refusal = response.code == rc::kSystemError &&
                           response.remark.value_or("").find("AclException") != std::string::npos;
  return {acl_refusal ? StatusCode::kPermissionDenied : status_code_of_response(response.code), std::move(message)};
}

bool is_retriable_send_failure(const Status& status) noexcept {
  switch (status.code()) {
    case StatusCode::kNotFound:
    case StatusCode::kUnavailable:
    case StatusCode::kPermissionDenied:
    case StatusCode::kResourceExhausted:
    case StatusCode::kTimeout:
    case StatusCode::kIoError:
      return true;
    default:
      return false;
  }
}

}  // namespace mqkit::client
