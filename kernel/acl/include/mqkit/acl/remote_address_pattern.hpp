// White remote addresses of RocketMQ 4.x plain ACL (RemoteAddressStrategyFactory): which client
// addresses are let in without a signature.
//
//   ""                     nobody (an account without a white address)
//   "*", "*.*.*.*"         everybody (also "*:*:*:*:*:*:*:*")
//   "192.168.0.1"          one address (IPv4 or IPv6)
//   "192.168.0.1,10.0.0.2" any of a list of addresses
//   "192.168.1.{1,2,3}"    any of the listed last parts
//   "192.168.0.*"          a range in one part: '*' (0-255) or "1-100", the first part exact,
//   "192.168.1-5.*"        the parts after the range '*'
//
// IPv6 ranges are not supported (refused with an error); RocketMQ's quirks are closed: parts
// after a range must be '*' instead of being ignored, and octets must be 0-255 without leading
// zeros.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::acl {

class RemoteAddressPattern {
 public:
  RemoteAddressPattern() = default;  // matches nobody
  // InvalidArgument naming what is wrong with `text`.
  static plugin::v1::Result<RemoteAddressPattern> parse(std::string_view text);

  // `host` is an IP address without a port ("10.0.0.1", "::1").
  bool matches(std::string_view host) const;
  const std::string& text() const noexcept { return text_; }

 private:
  enum class Kind : std::uint8_t { kNobody, kEverybody, kAddresses, kRange };
  using Address = std::array<std::uint8_t, 16>;  // IPv4 in the first 4 bytes

  Kind kind_ = Kind::kNobody;
  std::string text_;
  std::vector<std::pair<Address, bool>> addresses_;  // (address, is IPv6)
  // kRange (IPv4): the first `range_part` octets equal `head_`, octet `range_part` in [low, high].
  Address head_{};
  std::size_t range_part_ = 0;
  int low_ = 0;
  int high_ = 255;
};

// The host of "ip:port" or "[ip6]:port" as a transport names a peer.
std::string_view host_of(std::string_view remote_address);

}  // namespace mqkit::acl
