#include "local_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstring>

namespace mqkit::client {

namespace {

std::string detect_ipv4() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "127.0.0.1";
  std::string found = "127.0.0.1";
  for (const ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    if ((it->ifa_flags & IFF_UP) == 0 || (it->ifa_flags & IFF_LOOPBACK) != 0) continue;
    sockaddr_in address{};
    std::memcpy(&address, it->ifa_addr, sizeof(address));
    char text[INET_ADDRSTRLEN] = {};
    if (::inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text)) != nullptr) {
      found = text;
      break;
    }
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace

const std::string& local_ipv4() {
  static const std::string address = detect_ipv4();
  return address;
}

std::array<std::uint8_t, 4> ipv4_bytes(const std::string& text) {
  in_addr parsed{};
  if (::inet_pton(AF_INET, text.c_str(), &parsed) != 1) return {127, 0, 0, 1};
  std::array<std::uint8_t, 4> bytes{};
  std::memcpy(bytes.data(), &parsed.s_addr, bytes.size());  // already network (big-endian) order
  return bytes;
}

}  // namespace mqkit::client
