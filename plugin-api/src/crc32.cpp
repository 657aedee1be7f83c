#include "crc32.hpp"

#include <zlib.h>

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MQKIT_CRC32_FOLDING 1
#endif

namespace mqkit::plugin::v1 {

namespace {

std::uint32_t zlib_crc32(std::uint32_t crc, const std::uint8_t* bytes, std::size_t size) {
  return static_cast<std::uint32_t>(crc32_z(crc, bytes, size));
}

#ifdef MQKIT_CRC32_FOLDING

// Folding (Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ"): a 128-bit
// block followed by `d` more bits is congruent, modulo the CRC polynomial, to its two 64-bit
// halves carry-less multiplied by x^(d+64) and x^d (mod P, bit-reflected) and XORed onto the
// block `d` bits ahead. So the message shrinks to 16 bytes without changing its remainder, and
// zlib finishes those and the tail of under 16 bytes.
constexpr long long kFold128Low = 0x1751997d0;   // x^(128+32) mod P, reflected and shifted
constexpr long long kFold128High = 0x0ccaa009e;  // x^(128-32) mod P, likewise
constexpr long long kFold512Low = 0x154442bd4;   // x^(512+32) mod P
constexpr long long kFold512High = 0x1c6e41596;  // x^(512-32) mod P

__attribute__((target("pclmul,sse2"))) inline __m128i load(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// `block` folded over `distance` bits onto `ahead`.
__attribute__((target("pclmul,sse2"))) inline __m128i fold(__m128i block, __m128i constants, __m128i ahead) {
  const __m128i low = _mm_clmulepi64_si128(block, constants, 0x00);
  const __m128i high = _mm_clmulepi64_si128(block, constants, 0x11);
  return _mm_xor_si128(_mm_xor_si128(low, high), ahead);
}

__attribute__((target("pclmul,sse2"))) std::uint32_t folding_crc32(std::uint32_t crc, const std::uint8_t* p,
                                                                   std::size_t size) {
  const __m128i by128 = _mm_set_epi64x(kFold128High, kFold128Low);
  const __m128i by512 = _mm_set_epi64x(kFold512High, kFold512Low);
  // zlib's crc starts from the complement of the value before; XORing it into the first four
  // bytes is the same as starting the register with it.
  __m128i x = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(~crc)));
  p += 16;
  size -= 16;
  if (size >= 112) {  // four lanes 64 bytes apart, for the multiplier's throughput
    __m128i x1 = x;
    __m128i x2 = load(p);
    __m128i x3 = load(p + 16);
    __m128i x4 = load(p + 32);
    p += 48;
    size -= 48;
    for (; size >= 64; p += 64, size -= 64) {
      x1 = fold(x1, by512, load(p));
      x2 = fold(x2, by512, load(p + 16));
      x3 = fold(x3, by512, load(p + 32));
      x4 = fold(x4, by512, load(p + 48));
    }
    x = fold(fold(fold(x1, by128, x2), by128, x3), by128, x4);
  }
  for (; size >= 16; p += 16, size -= 16) x = fold(x, by128, load(p));
  std::uint8_t folded[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(folded), x);
  // crc32(~0, folded) is the CRC of the folded block from a zero register: the crc so far.
  return zlib_crc32(zlib_crc32(0xFFFFFFFFu, folded, sizeof folded), p, size);
}

bool has_pclmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
  return has;
}

#endif

}  // namespace

std::uint32_t crc32_ieee(std::uint32_t crc, std::span<const std::uint8_t> bytes) {
#ifdef MQKIT_CRC32_FOLDING
  // Below two blocks, zlib's loop is as quick.
  if (bytes.size() >= 32 && has_pclmul()) return folding_crc32(crc, bytes.data(), bytes.size());
#endif
  return zlib_crc32(crc, bytes.data(), bytes.size());
}

}  // namespace mqkit::plugin::v1
