// How a RocketMQ error response becomes a Status, decided once for the whole SDK.
//
// The message reads "CODE: <n> DESC: <remark> (<address>)", as RocketMQ's MQBrokerException
// prints, so users can search for it. The StatusCode groups response codes by what a caller
// can do about them:
//
//   17 TOPIC_NOT_EXIST, 22 QUERY_NOT_FOUND, 206 CONSUMER_NOT_ONLINE     → kNotFound
//   14 SERVICE_NOT_AVAILABLE, 1 SYSTEM_ERROR, 204 NO_BUYER_ID,
//   205 NOT_IN_CURRENT_UNIT, 1500 GO_AWAY                                → kUnavailable
//   16 NO_PERMISSION                                                      → kPermissionDenied
//   2 SYSTEM_BUSY, 215 FLOW_CONTROL                                       → kResourceExhausted
//   13 MESSAGE_ILLEGAL, 23 SUBSCRIPTION_PARSE_FAILED, 29 INVALID_PARAMETER → kInvalidArgument
//   3 REQUEST_CODE_NOT_SUPPORTED, 15 VERSION_NOT_SUPPORTED                → kNotSupported
//   18 TOPIC_EXIST_ALREADY                                                → kAlreadyExists
//   any other code                                                        → kInternal
//
// A broker refuses a request its ACL denies with 1 SYSTEM_ERROR and a remark naming RocketMQ's
// AclException (docs/acl.md): that is kPermissionDenied, not a passing failure.
//
// Transport failures keep their own codes (kTimeout, kUnavailable, ...).
#pragma once

#include <cstdint>
#include <string_view>

#include "mqkit/client/types.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::client {

StatusCode status_code_of_response(std::int32_t response_code) noexcept;

// The Status of a response whose code the caller does not accept.
Status response_error(const plugin::v1::RemotingCommand& response, std::string_view address);

// Whether a failed send attempt is worth another attempt on another queue: the response codes
// RocketMQ's producer retries (17, 14, 1, 16, 204, 205, 2 — rocketmq-facts §4.2) and transport
// failures (timeouts, unreachable or closed connections, full send queues).
bool is_retriable_send_failure(const Status& status) noexcept;

}  // namespace mqkit::client
