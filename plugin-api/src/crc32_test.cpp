#include "crc32.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

namespace mqkit::plugin::v1 {
namespace {

TEST(Crc32Test, EqualsZlibForEveryLengthAlignmentAndStart) {
  std::mt19937 random(7);
  std::vector<std::uint8_t> bytes(1400);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
  int mismatches = 0;
  for (std::size_t offset = 0; offset < 16; ++offset) {
    for (std::size_t size = 0; size + offset <= bytes.size(); size += (size < 300 ? 1 : 37)) {
      for (const std::uint32_t start : {0u, 0x12345678u, 0xFFFFFFFFu}) {
        const auto expected = static_cast<std::uint32_t>(crc32_z(start, bytes.data() + offset, size));
        const std::uint32_t actual = crc32_ieee(start, {bytes.data() + offset, size});
        if (actual != expected && ++mismatches <= 5) {
          ADD_FAILURE() << "offset " << offset << " size " << size << " start " << start << ": " << actual
                        << " != " << expected;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Crc32Test, KnownValuesAndChaining) {
  const std::string text = "The quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps.";
  const std::span<const std::uint8_t> all(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  EXPECT_EQ(crc32_ieee(0, all.first(43)), 0x414FA339u);  // the classic check value of the first 43
  // Chained over two parts equals one pass, as zlib's crc32.
  EXPECT_EQ(crc32_ieee(crc32_ieee(0, all.first(40)), all.subspan(40)), crc32_ieee(0, all));
}

}  // namespace
}  // namespace mqkit::plugin::v1
