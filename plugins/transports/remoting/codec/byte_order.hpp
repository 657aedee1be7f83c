// Big-endian reads and writes: every integer of the remoting protocol is in network order.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace mqkit::plugins::transports::remoting {

inline void put_u32(std::vector<std::uint8_t>* out, std::uint32_t v) {
  out->push_back(static_cast<std::uint8_t>(v >> 24));
  out->push_back(static_cast<std::uint8_t>(v >> 16));
  out->push_back(static_cast<std::uint8_t>(v >> 8));
  out->push_back(static_cast<std::uint8_t>(v));
}

inline void store_u32(std::uint8_t* at, std::uint32_t v) {
  at[0] = static_cast<std::uint8_t>(v >> 24);
  at[1] = static_cast<std::uint8_t>(v >> 16);
  at[2] = static_cast<std::uint8_t>(v >> 8);
  at[3] = static_cast<std::uint8_t>(v);
}

// Writes network-order integers and bytes into space the caller has already sized.
class ByteWriter {
 public:
  explicit ByteWriter(std::uint8_t* at) : at_(at) {}
  void u8(std::uint8_t v) { *at_++ = v; }
  void u16(std::uint16_t v) {
    at_[0] = static_cast<std::uint8_t>(v >> 8);
    at_[1] = static_cast<std::uint8_t>(v);
    at_ += 2;
  }
  void u32(std::uint32_t v) {
    store_u32(at_, v);
    at_ += 4;
  }
  void bytes(std::string_view v) {
    if (!v.empty()) std::memcpy(at_, v.data(), v.size());
    at_ += v.size();
  }

 private:
  std::uint8_t* at_;
};

inline std::uint16_t load_u16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>((at[0] << 8) | at[1]);
}

inline std::uint32_t load_u32(const std::uint8_t* at) {
  return (std::uint32_t{at[0]} << 24) | (std::uint32_t{at[1]} << 16) | (std::uint32_t{at[2]} << 8) |
         std::uint32_t{at[3]};
}

// Two's-complement reinterpretation (well defined since C++20).
inline std::int16_t load_i16(const std::uint8_t* at) { return static_cast<std::int16_t>(load_u16(at)); }
inline std::int32_t load_i32(const std::uint8_t* at) { return static_cast<std::int32_t>(load_u32(at)); }

}  // namespace mqkit::plugins::transports::remoting
