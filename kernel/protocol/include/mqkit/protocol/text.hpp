// Small text helpers shared by the protocol's parsers and the broker's (ACL file values).
#pragma once

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

}  // namespace mqkit::protocol
