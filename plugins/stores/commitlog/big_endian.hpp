// Big-endian integer access to mapped bytes (consume queue units, index files, checkpoint).
// Byte-wise access keeps unaligned reads well-defined; compilers turn it into a load plus a bswap.
#pragma once

#include <cstdint>
#include <type_traits>

namespace mqkit::plugins::stores::commitlog {

template <typename T>
inline T load_be(const std::uint8_t* p) noexcept {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>((u << 8) | p[i]);
  return static_cast<T>(u);
}

template <typename T>
inline void store_be(std::uint8_t* p, T value) noexcept {
  using U = std::make_unsigned_t<T>;
  const U u = static_cast<U>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<std::uint8_t>(u >> (8 * (sizeof(T) - 1 - i)));
}

inline std::int32_t load_i32(const std::uint8_t* p) noexcept { return load_be<std::int32_t>(p); }
inline std::int64_t load_i64(const std::uint8_t* p) noexcept { return load_be<std::int64_t>(p); }
inline void store_i32(std::uint8_t* p, std::int32_t v) noexcept { store_be(p, v); }
inline void store_i64(std::uint8_t* p, std::int64_t v) noexcept { store_be(p, v); }

}  // namespace mqkit::plugins::stores::commitlog
