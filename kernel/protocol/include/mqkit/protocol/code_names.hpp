// RocketMQ's names of the request and response codes mqkit knows (codes.hpp), lowercased, as
// RocketMQ's metrics label requests (RemotingHelper's getRequestCodeDesc / getResponseCodeDesc:
// the RequestCode / ResponseCode field name). Empty for a code not in codes.hpp, which
// RocketMQ would label with the number.
#pragma once

#include <cstdint>
#include <string_view>

namespace mqkit::protocol {

std::string_view request_code_name(std::int32_t code) noexcept;
std::string_view response_code_name(std::int32_t code) noexcept;

}  // namespace mqkit::protocol
