// Small text helpers shared by the protocol's parsers and the broker's (ACL file values).
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>

namespace mqkit::protocol {

// `text` without leading and trailing blanks (spaces, tabs, line ends), as Java's trim() reads
// RocketMQ's tag expressions and ACL values.
inline std::string_view trim(std::string_view text) {
  constexpr std::string_view kBlanks = " \t\r\n";
  const auto first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

// 'text', for messages naming what they refuse. Appended rather than "'" + std::string(text):
// GCC 12 at -O3 warns falsely (-Wrestrict) on a literal plus a temporary string.
inline std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

// `bytes` in uppercase hexadecimal, as RocketMQ writes digests and signatures.
inline std::string hex_upper(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xF];
  }
  return hex;
}

// The bytes hexadecimal `hex` spells (either case); nullopt when it is empty, odd or not hex.
inline std::optional<std::string> bytes_of_hex(std::string_view hex) {
  if (hex.empty() || hex.size() % 2 != 0) return std::nullopt;
  std::string bytes(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    unsigned char byte = 0;
    const char* end = hex.data() + 2 * i + 2;
    if (const auto [ptr, ec] = std::from_chars(hex.data() + 2 * i, end, byte, 16); ec != std::errc() || ptr != end) {
      return std::nullopt;
    }
    bytes[i] = static_cast<char>(byte);
  }
  return bytes;
}

}  // namespace mqkit::protocol
