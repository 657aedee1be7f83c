// Helpers for the codec tests: byte strings from text or hex, and frames built by hand.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "transports/remoting/codec/byte_order.hpp"

namespace mqkit::plugins::transports::remoting::testing {

using Bytes = std::vector<std::uint8_t>;

inline Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

// "00 0a ff" or "000aff": whitespace and '|' are ignored.
inline Bytes from_hex(std::string_view hex) {
  Bytes out;
  int high = -1;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '|') continue;
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    if (high < 0) {
      high = digit;
    } else {
      out.push_back(static_cast<std::uint8_t>(high * 16 + digit));
      high = -1;
    }
  }
  return out;
}

// [length][type << 24 | header size][header][body] with the given raw header.
inline Bytes make_frame(std::uint8_t type, const Bytes& header, const Bytes& body = {}) {
  Bytes out;
  put_u32(&out, static_cast<std::uint32_t>(4 + header.size() + body.size()));
  put_u32(&out, (std::uint32_t{type} << 24) | static_cast<std::uint32_t>(header.size()));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

inline Bytes json_frame(std::string_view header, std::string_view body = {}) {
  return make_frame(0, bytes_of(header), bytes_of(body));
}

}  // namespace mqkit::plugins::transports::remoting::testing
