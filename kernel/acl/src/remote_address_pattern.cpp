#include "mqkit/acl/remote_address_pattern.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <optional>

#include "mqkit/protocol/text.hpp"

namespace mqkit::acl {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// An IPv4 or IPv6 address, parsed by inet_pton (dotted decimal without leading zeros). An
// IPv4-mapped IPv6 address (a dual-stack listener's view of an IPv4 client) is its IPv4 address.
std::optional<std::pair<std::array<std::uint8_t, 16>, bool>> parse_address(std::string_view text) {
  const std::string host(protocol::trim(text));
  std::array<std::uint8_t, 16> address{};
  if (inet_pton(AF_INET, host.c_str(), address.data()) == 1) return std::pair{address, false};
  if (inet_pton(AF_INET6, host.c_str(), address.data()) != 1) return std::nullopt;
  constexpr std::uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(address.data(), kMappedPrefix, sizeof kMappedPrefix) != 0) return std::pair{address, true};
  std::array<std::uint8_t, 16> ipv4{};
  std::memcpy(ipv4.data(), address.data() + 12, 4);
  return std::pair{ipv4, false};
}

std::optional<int> octet(std::string_view text) {
  int value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0 || value > 255) return std::nullopt;
  if (text.size() > 1 && text.front() == '0') return std::nullopt;
  return value;
}

Status invalid(std::string_view text, std::string_view why) {
  return Status::invalid_argument("white address '" + std::string(text) + "': " + std::string(why));
}

}  // namespace

std::string_view host_of(std::string_view remote_address) {
  if (!remote_address.empty() && remote_address.front() == '[') {
    const auto close = remote_address.find(']');
    return close == std::string_view::npos ? remote_address.substr(1) : remote_address.substr(1, close - 1);
  }
  const auto colon = remote_address.rfind(':');
  // "::1" alone has colons but no port: only one colon means "host:port".
  if (colon == std::string_view::npos || remote_address.find(':') != colon) return remote_address;
  return remote_address.substr(0, colon);
}

Result<RemoteAddressPattern> RemoteAddressPattern::parse(std::string_view text) {
  RemoteAddressPattern pattern;
  pattern.text_ = std::string(protocol::trim(text));
  const std::string_view p = pattern.text_;
  if (p.empty()) return pattern;
  if (p == "*" || p == "*.*.*.*" || p == "*:*:*:*:*:*:*:*") {
    pattern.kind_ = Kind::kEverybody;
    return pattern;
  }
  const auto add_addresses = [&](const std::vector<std::string>& items) -> Status {
    for (const auto& item : items) {
      auto address = parse_address(item);
      if (!address) return invalid(p, "'" + item + "' is not an IPv4 or IPv6 address");
      pattern.addresses_.push_back(*address);
    }
    pattern.kind_ = Kind::kAddresses;
    return Status::ok();
  };
  if (p.find('{') != std::string_view::npos || p.find('}') != std::string_view::npos) {
    const auto open = p.rfind('{');
    const auto last_dot = p.rfind('.');
    if (p.back() != '}' || open == std::string_view::npos || last_dot == std::string_view::npos ||
        open != last_dot + 1 || p.find('{') != open) {
      return invalid(p, "a {a,b,c} list must be the last part of an IPv4 address (192.168.1.{1,2,3})");
    }
    std::vector<std::string> items;
    for (const auto last : split(p.substr(open + 1, p.size() - open - 2), ',')) {
      items.push_back(std::string(p.substr(0, open)) + std::string(protocol::trim(last)));
    }
    MQKIT_RETURN_IF_ERROR(add_addresses(items));
    return pattern;
  }
  if (p.find(',') != std::string_view::npos) {
    std::vector<std::string> items;
    for (const auto item : split(p, ',')) items.emplace_back(protocol::trim(item));
    MQKIT_RETURN_IF_ERROR(add_addresses(items));
    return pattern;
  }
  if (p.find('*') == std::string_view::npos && p.find('-') == std::string_view::npos) {
    MQKIT_RETURN_IF_ERROR(add_addresses({std::string(p)}));
    return pattern;
  }
  if (p.find(':') != std::string_view::npos) return invalid(p, "IPv6 ranges are not supported");
  const auto parts = split(p, '.');
  if (parts.size() != 4) return invalid(p, "an IPv4 range has four parts (192.168.0.*, 10.0.1-100.*)");
  std::size_t range = 0;
  while (range < 4 && parts[range] != "*" && parts[range].find('-') == std::string_view::npos) {
    const auto value = octet(parts[range]);
    if (!value) return invalid(p, "'" + std::string(parts[range]) + "' is not a number from 0 to 255");
    pattern.head_[range] = static_cast<std::uint8_t>(*value);
    ++range;
  }
  if (range == 0) return invalid(p, "the first part must be a number (only '*' alone means everybody)");
  if (range == 4) return invalid(p, "no part is '*' or a range low-high");
  if (parts[range] != "*") {
    const auto dash = parts[range].find('-');
    const auto low = octet(parts[range].substr(0, dash));
    const auto high = octet(parts[range].substr(dash + 1));
    if (!low || !high || *low > *high) {
      return invalid(p, protocol::quoted(parts[range]) + " is not a range low-high of numbers from 0 to 255");
    }
    pattern.low_ = *low;
    pattern.high_ = *high;
  }
  for (std::size_t i = range + 1; i < 4; ++i) {
    if (parts[i] != "*") return invalid(p, "only '*' may follow a range (192.168.1-5.*)");
  }
  pattern.range_part_ = range;
  pattern.kind_ = Kind::kRange;
  return pattern;
}

bool RemoteAddressPattern::matches(std::string_view host) const {
  switch (kind_) {
    case Kind::kNobody:
      return false;
    case Kind::kEverybody:
      return true;
    case Kind::kAddresses: {
      const auto address = parse_address(host);
      if (!address) return false;
      for (const auto& candidate : addresses_) {
        if (candidate == *address) return true;
      }
      return false;
    }
    case Kind::kRange: {
      const auto address = parse_address(host);
      if (!address || address->second) return false;
      const auto& bytes = address->first;
      if (std::memcmp(bytes.data(), head_.data(), range_part_) != 0) return false;
      return bytes[range_part_] >= low_ && bytes[range_part_] <= high_;
    }
  }
  return false;
}

}  // namespace mqkit::acl
