// Runs the fuzz entry under any compiler: the seed corpus, every truncation of each seed, and a
// fixed number of deterministic pseudo-random mutations (the same sequence on every run).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "transports/remoting/fuzz/frame_fuzz_entry.hpp"

namespace mqkit::plugins::transports::remoting::testing {
namespace {

using Bytes = std::vector<std::uint8_t>;

class XorShift {
 public:
  explicit XorShift(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

constexpr std::array<std::uint32_t, 8> kInterestingWords = {0, 3, 4, 0x7fffffff, 0x80000000, 0xffffffff,
                                                           16 * 1024 * 1024 + 1, 0x01000000};
constexpr std::array<std::uint8_t, 12> kInterestingBytes = {0, 1, 0x7f, 0x80, 0xff, '{', '}', '[', '"', ':', ',', '\\'};

void mutate(Bytes& b, XorShift& rng) {
  switch (rng.below(6)) {
    case 0:
      if (!b.empty()) b[rng.below(b.size())] ^= static_cast<std::uint8_t>(1u << rng.below(8));
      break;
    case 1:
      if (!b.empty()) b[rng.below(b.size())] = kInterestingBytes[rng.below(kInterestingBytes.size())];
      break;
    case 2:
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size() + 1)),
               static_cast<std::uint8_t>(rng.next()));
      break;
    case 3:
      if (!b.empty()) {
        const std::size_t at = rng.below(b.size());
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                b.begin() + static_cast<std::ptrdiff_t>(std::min(b.size(), at + 1 + rng.below(8))));
      }
      break;
    case 4:
      if (b.size() >= 4) {
        const std::size_t at = rng.below(b.size() - 3);
        const std::uint32_t w = kInterestingWords[rng.below(kInterestingWords.size())];
        for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(w >> (24 - 8 * i));
      }
      break;
    default:
      b.resize(rng.below(b.size() + 1));
      break;
  }
}

TEST(FuzzCorpus, SeedsDecodeAndRoundTrip) {
  const auto seeds = fuzz_seed_inputs();
  ASSERT_GE(seeds.size(), 8u);
  for (const Bytes& seed : seeds) {
    ASSERT_FALSE(seed.empty());
    EXPECT_EQ(check_fuzz_input(seed), std::nullopt);
  }
}

TEST(FuzzCorpus, EveryTruncationOfEverySeed) {
  for (const Bytes& seed : fuzz_seed_inputs()) {
    for (std::size_t n = 0; n <= seed.size(); ++n) {
      const auto broken = check_fuzz_input({seed.data(), n});
      ASSERT_EQ(broken, std::nullopt) << "seed truncated to " << n << " bytes";
    }
  }
}

TEST(FuzzCorpus, DeterministicMutations) {
  constexpr int kIterations = 5000;
  const auto seeds = fuzz_seed_inputs();
  XorShift rng(0x9e3779b97f4a7c15ULL);
  for (int i = 0; i < kIterations; ++i) {
    Bytes input = seeds[rng.below(seeds.size())];
    const std::size_t mutations = 1 + rng.below(4);
    for (std::size_t m = 0; m < mutations; ++m) mutate(input, rng);
    const auto broken = check_fuzz_input(input);
    ASSERT_EQ(broken, std::nullopt) << "iteration " << i;
  }
}

}  // namespace
}  // namespace mqkit::plugins::transports::remoting::testing
