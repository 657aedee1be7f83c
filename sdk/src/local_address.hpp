// The address this host is known by: RocketMQ's client id and UNIQ_KEY start with it.
// Any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace mqkit::client {

// The first non-loopback IPv4 address of an interface that is up, else 127.0.0.1. Computed once.
const std::string& local_ipv4();

// "10.0.0.5" → {10, 0, 0, 5}; anything that is not a dotted IPv4 address gives 127.0.0.1.
std::array<std::uint8_t, 4> ipv4_bytes(const std::string& text);

}  // namespace mqkit::client
