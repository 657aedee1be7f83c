// Message ids the client assigns (UNIQ_KEY, RocketMQ's MessageClientIDSetter, rocketmq-facts
// §2.3): 16 bytes as 32 upper-case hex characters,
//
//   ip (4) | pid, low 16 bits (2) | per-process random, Java's class-loader hash (4)
//   | ms since the start of the current month, local time (4) | counter (2)
//
// The broker indexes it as a key, so the id finds the message again (query by unique key).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

// Characters of an id this generator makes (IPv4).
inline constexpr std::size_t kUniqueIdLength = 32;

// Thread-safe: many sending threads share one generator.
class UniqueIdGenerator {
 public:
  UniqueIdGenerator(const std::array<std::uint8_t, 4>& ip, std::uint16_t pid, std::uint32_t loader_hash);

  // The next id for the current time.
  std::string next();
  // The next id as if the wall clock read `now_ms` (ms since the epoch).
  std::string next_at(std::int64_t now_ms);
  // The next id for the current time, written into `out` (no allocation: one per sent message).
  void next_into(std::span<char, kUniqueIdLength> out);

  // The process-wide generator: local IPv4, this pid, a random loader hash.
  static UniqueIdGenerator& process_default();

 private:
  void start_month_of(std::int64_t now_ms);
  void write_at(std::int64_t now_ms, std::span<char, kUniqueIdLength> out);

  std::string prefix_;  // hex of ip | pid | loader hash
  std::atomic<std::uint32_t> counter_{0};
  std::mutex month_mutex_;
  std::atomic<std::int64_t> month_start_ms_{0};
  std::atomic<std::int64_t> next_month_start_ms_{0};
};

// process_default().next().
std::string new_unique_id();

struct UniqueIdInfo {
  std::string ip;              // dotted IPv4, or hex for an IPv6 id
  std::uint16_t pid = 0;
  std::int64_t time_ms = 0;    // when the id was made (RocketMQ's getNearlyTimeFromID)
};

// Reads a 32- (IPv4) or 56-character (IPv6) id back; `now_ms` decides which month it is from
// (ids are taken to be at most a month old). InvalidArgument when it is not such an id.
Result<UniqueIdInfo> parse_unique_id(std::string_view id, std::int64_t now_ms);
Result<UniqueIdInfo> parse_unique_id(std::string_view id);

}  // namespace mqkit::client
