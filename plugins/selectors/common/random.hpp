// A per-thread pseudo-random generator for selectors: spreading sends needs speed and a fresh
// seed per thread, not cryptographic quality, and a thread-local generator needs no lock on the
// send path.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

namespace mqkit::plugins::selectors {

// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit word of state, passes BigCrush, and every
// seed (including 0) is usable. Satisfies UniformRandomBitGenerator so that
// std::uniform_int_distribution can draw unbiased indexes from it.
class SplitMix64 {
 public:
  using result_type = std::uint64_t;

  explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }

  result_type operator()() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// A seed that differs between threads, between calls and between processes. Clocks and the thread
// id rather than std::random_device, which may throw and may block.
inline std::uint64_t fresh_seed() noexcept {
  static std::atomic<std::uint64_t> calls{0};
  const auto steady =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const auto wall =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  const std::uint64_t thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  SplitMix64 mix(steady ^ (wall << 1) ^ (thread << 17) ^
                 (calls.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ULL));
  return mix();
}

// This thread's generator.
inline SplitMix64& thread_rng() noexcept {
  thread_local SplitMix64 rng(fresh_seed());
  return rng;
}

}  // namespace mqkit::plugins::selectors
