#include "request_message.hpp"

#include <array>
#include <cstdint>
#include <random>

#include "mqkit/protocol/request_reply.hpp"

namespace mqkit::client {

namespace property = protocol::reply::property;

std::string new_correlation_id() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::array<std::uint8_t, 16> bytes{};
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t word = random();
    for (std::size_t j = 0; j < 8; ++j) bytes[i + j] = static_cast<std::uint8_t>(word >> (8 * j));
  }
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3F) | 0x80);  // IETF variant
  constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
    id += kHex[bytes[i] >> 4];
    id += kHex[bytes[i] & 0x0F];
  }
  return id;
}

std::string tag_request(Message& message, std::string_view client_id, std::chrono::milliseconds timeout) {
  std::string id = new_correlation_id();
  message.set_property(std::string(property::kCorrelationId), id);
  message.set_property(std::string(property::kReplyToClient), std::string(client_id));
  message.set_property(std::string(property::kTtl), std::to_string(timeout.count()));
  return id;
}

}  // namespace mqkit::client
