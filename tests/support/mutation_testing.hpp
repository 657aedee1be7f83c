// Deterministic mutation testing for decoders of untrusted bytes (network frames and bodies,
// files read back from disk). A check feeds one input to a decoder and says what went wrong, or
// nullopt when the decoder behaved: it returned a value (that round-trips, where the check can
// tell) or an error whose message says what is wrong. Crashes and out-of-bounds reads are left to
// the process and to the asan preset, which runs the same tests under ASan and UBSan.
//
// Each suite runs the seeds (valid inputs), every truncation of every seed, and a fixed number
// of pseudo-random mutations of them: the same sequence on every run and under any compiler, so
// a failure reproduces and the failing input is printed for a regression test beside the decoder.
// Header-only and free of gtest and of the kernel, so plugin tests and libFuzzer targets use it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::testing {

using Bytes = std::vector<std::uint8_t>;
// nullopt when the decoder behaved on the input; otherwise what it did wrong.
using MutationCheck = std::function<std::optional<std::string>(std::span<const std::uint8_t>)>;

inline Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }
inline std::string_view text_of(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

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

// Length fields near their limits and the byte values that delimit JSON, property strings and
// SQL text: where decoders go wrong first.
inline constexpr std::array<std::uint32_t, 8> kInterestingWords = {0, 3, 4, 0x7fffffff, 0x80000000, 0xffffffff,
                                                                   16 * 1024 * 1024 + 1, 0x01000000};
inline constexpr std::array<std::uint8_t, 12> kInterestingBytes = {0,   1,   0x7f, 0x80, 0xff, '{',
                                                                   '}', '[', '"',  ':',  ',',  '\\'};

// One mutation of `b`: flip a bit, set an interesting byte, insert or erase bytes, write an
// interesting big-endian word, truncate, or (with a dictionary) splice in one of its tokens.
inline void mutate(Bytes& b, XorShift& rng, std::span<const std::string_view> dictionary = {}) {
  switch (rng.below(dictionary.empty() ? 6 : 7)) {
    case 0:
      if (!b.empty()) b[rng.below(b.size())] ^= static_cast<std::uint8_t>(1u << rng.below(8));
      break;
    case 1:
      if (!b.empty()) b[rng.below(b.size())] = kInterestingBytes[rng.below(kInterestingBytes.size())];
      break;
    case 2:
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size() + 1)), static_cast<std::uint8_t>(rng.next()));
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
    case 5:
      b.resize(rng.below(b.size() + 1));
      break;
    default: {
      const std::string_view token = dictionary[rng.below(dictionary.size())];
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size() + 1)), token.begin(), token.end());
      break;
    }
  }
}

// The input, printable, for a failure message: text as C-escaped text, at most 512 bytes.
inline std::string describe_input(std::span<const std::uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = std::to_string(bytes.size()) + " bytes \"";
  for (const std::uint8_t c : bytes.first(std::min<std::size_t>(bytes.size(), 512))) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out + (bytes.size() > 512 ? "\"..." : "\"");
}

// What a check says about a decoder's result: fine when it holds a value; an error must say what
// is wrong.
template <typename Result>
std::optional<std::string> value_or_explained_error(const Result& result, std::string_view decoder) {
  if (result.is_ok()) return std::nullopt;
  if (result.status().message().empty()) return std::string(decoder) + " failed without saying why";
  return std::nullopt;
}

struct MutationOptions {
  std::size_t iterations = 5000;
  std::size_t max_mutations_per_input = 4;
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
  // Tokens the decoder's grammar knows (keywords, field names, separators), spliced in whole.
  std::span<const std::string_view> dictionary{};
};

// Seeds must be non-empty and pass the check.
inline std::optional<std::string> check_seeds(const std::vector<Bytes>& seeds, const MutationCheck& check) {
  if (seeds.empty()) return "no seeds";
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    if (seeds[i].empty()) return "seed " + std::to_string(i) + " is empty";
    if (auto broken = check(seeds[i])) return "seed " + std::to_string(i) + " (" + describe_input(seeds[i]) + "): " + *broken;
  }
  return std::nullopt;
}

inline std::optional<std::string> check_truncations(const std::vector<Bytes>& seeds, const MutationCheck& check) {
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    for (std::size_t n = 0; n < seeds[i].size(); ++n) {
      const std::span<const std::uint8_t> cut(seeds[i].data(), n);
      if (auto broken = check(cut)) {
        return "seed " + std::to_string(i) + " truncated to " + std::to_string(n) + " bytes (" + describe_input(cut) +
               "): " + *broken;
      }
    }
  }
  return std::nullopt;
}

// A longer search than the suite's, when asked for: MQKIT_MUTATION_SCALE multiplies every
// suite's iterations and MQKIT_MUTATION_SEED replaces its seed (same numbers, same inputs).
inline MutationOptions scaled_by_environment(MutationOptions options) {
  if (const char* scale = std::getenv("MQKIT_MUTATION_SCALE"); scale != nullptr) {
    options.iterations *= std::max<std::size_t>(1, std::strtoull(scale, nullptr, 10));
  }
  if (const char* seed = std::getenv("MQKIT_MUTATION_SEED"); seed != nullptr) {
    options.seed = std::strtoull(seed, nullptr, 0) | 1;  // XorShift needs a non-zero state
  }
  return options;
}

inline std::optional<std::string> check_mutations(const std::vector<Bytes>& seeds, const MutationCheck& check,
                                                  const MutationOptions& requested = {}) {
  if (seeds.empty()) return "no seeds";
  const MutationOptions options = scaled_by_environment(requested);
  XorShift rng(options.seed);
  for (std::size_t i = 0; i < options.iterations; ++i) {
    Bytes input = seeds[rng.below(seeds.size())];
    const std::size_t mutations = 1 + rng.below(options.max_mutations_per_input);
    for (std::size_t m = 0; m < mutations; ++m) mutate(input, rng, options.dictionary);
    if (auto broken = check(input)) {
      return "mutation " + std::to_string(i) + " of seed " + std::to_string(options.seed) + " (" +
             describe_input(input) + "): " + *broken;
    }
  }
  return std::nullopt;
}

// All three, stopping at the first problem.
inline std::optional<std::string> check_seeds_truncations_and_mutations(const std::vector<Bytes>& seeds,
                                                                        const MutationCheck& check,
                                                                        const MutationOptions& options = {}) {
  if (auto broken = check_seeds(seeds, check)) return broken;
  if (auto broken = check_truncations(seeds, check)) return broken;
  return check_mutations(seeds, check, options);
}

}  // namespace mqkit::testing
