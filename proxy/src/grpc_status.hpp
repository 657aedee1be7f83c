// The Status every proxy response carries (RocketMQ 5's apache.rocketmq.v2.Status): its code
// from what went wrong, in the words of RocketMQ's proxy where it has them.
#pragma once

#include <string>

#include "apache/rocketmq/v2/definition.pb.h"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

v2::Status make_status(v2::Code code, std::string message);
inline v2::Status ok_status() { return make_status(v2::OK, "OK"); }

// A failed call to a broker or name server as a gRPC client should see it: NotFound becomes
// `not_found` (TOPIC_NOT_FOUND for routes and sends), a permission refusal FORBIDDEN, a full
// broker TOO_MANY_REQUESTS (clients back off and retry), a timeout PROXY_TIMEOUT, a malformed
// request BAD_REQUEST, anything else INTERNAL_SERVER_ERROR.
v2::Status status_of_failure(const plugin::v1::Status& failure, v2::Code not_found);

}  // namespace mqkit::proxy
