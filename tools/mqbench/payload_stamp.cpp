#include "payload_stamp.hpp"

#include <chrono>
#include <cstring>

namespace mqkit::bench {

namespace {

constexpr char kMagic[4] = {'M', 'Q', 'B', '1'};

template <typename T>
void put(char* out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

template <typename T>
T get(const char* in) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(static_cast<unsigned char>(in[i])) << (8 * i);
  return value;
}

}  // namespace

std::string make_payload(std::size_t size, const PayloadStamp& stamp) {
  std::string body(size < kStampSize ? kStampSize : size, 'x');
  restamp(body, stamp);
  return body;
}

void restamp(std::string& body, const PayloadStamp& stamp) {
  std::memcpy(body.data(), kMagic, sizeof(kMagic));
  put<std::uint32_t>(body.data() + 4, stamp.producer);
  put<std::uint64_t>(body.data() + 8, stamp.sequence);
  put<std::uint64_t>(body.data() + 16, stamp.send_time_ns);
}

std::optional<PayloadStamp> read_stamp(std::string_view body) {
  if (body.size() < kStampSize || std::memcmp(body.data(), kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  return PayloadStamp{get<std::uint32_t>(body.data() + 4), get<std::uint64_t>(body.data() + 8),
                      get<std::uint64_t>(body.data() + 16)};
}

std::uint64_t wall_clock_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

}  // namespace mqkit::bench
