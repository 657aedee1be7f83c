// RocketMQ's names of the request and response codes mqkit knows (codes.hpp), lowercased, as
// RocketMQ's metrics label requests (RemotingHelper's getRequestCodeDesc / getResponseCodeDesc:
// the RequestCode / ResponseCode field name). Empty for a code not in codes.hpp, which
// RocketMQ would label with the number. And the name of a client's version number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mqkit::protocol {

std::string_view request_code_name(std::int32_t code) noexcept;
std::string_view response_code_name(std::int32_t code) noexcept;

// RocketMQ's MQVersion.getVersionDesc: the Version enum constant a client's version number (its
// ordinal) names, "V4_9_4" for 401; HIGHER_VERSION past the last one RocketMQ 5 knows (V5_9_9).
// Empty for a negative number.
std::string version_name(std::int32_t version);

}  // namespace mqkit::protocol
