#include <openssl/evp.h>

#include <algorithm>
#include <vector>

#include "mqkit/protocol/timer.hpp"

namespace mqkit::protocol::timer {

namespace {
constexpr std::string_view kVersion1 = "v1";
plugin::v1::Status invalid() { return plugin::v1::Status::invalid_argument("recall handle is invalid"); }
}  // namespace

std::string encode(const RecallHandle& handle) {
  std::string raw(kVersion1);
  for (const std::string* part : {&handle.topic, &handle.broker_name, &handle.timestamp, &handle.message_id}) {
    raw.append(1, ' ').append(*part);
  }
  std::string encoded(4 * ((raw.size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                      reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  encoded.resize(static_cast<std::size_t>(written));
  std::ranges::replace(encoded, '+', '-');
  std::ranges::replace(encoded, '/', '_');
  return encoded;
}

plugin::v1::Result<RecallHandle> decode_recall_handle(std::string_view text) {
  if (text.empty() || text.size() > 4096) return invalid();
  std::string standard(text);
  if (standard.find_first_of("+/") != std::string::npos) return invalid();
  std::ranges::replace(standard, '-', '+');
  std::ranges::replace(standard, '_', '/');
  while (standard.size() % 4 != 0) standard.push_back('=');
  std::vector<unsigned char> raw(standard.size() / 4 * 3);
  const int written = EVP_DecodeBlock(raw.data(), reinterpret_cast<const unsigned char*>(standard.data()),
                                      static_cast<int>(standard.size()));
  if (written < 0) return invalid();
  // EVP_DecodeBlock counts the bytes the padding stands for.
  std::size_t size = static_cast<std::size_t>(written);
  for (auto it = standard.rbegin(); it != standard.rend() && *it == '=' && size > 0; ++it) --size;
  const std::string decoded(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(size));
  std::vector<std::string> items;
  for (std::size_t from = 0;;) {
    const std::size_t space = decoded.find(' ', from);
    items.push_back(decoded.substr(from, space == std::string::npos ? std::string::npos : space - from));
    if (space == std::string::npos) break;
    from = space + 1;
  }
  if (items.size() < 5 || items[0] != kVersion1) return invalid();
  return RecallHandle{items[1], items[2], items[3], items[4]};
}

}  // namespace mqkit::protocol::timer
