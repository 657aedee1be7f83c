// PayloadStamp: what mqbench writes at the start of every message body so the consumer side can
// tell who sent it, in which order and when: magic | producer id | sequence | send time. The
// rest of the body is filler up to the requested size. Little-endian on the wire.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mqkit::bench {

struct PayloadStamp {
  std::uint32_t producer = 0;
  std::uint64_t sequence = 0;   // 0, 1, 2 ... per producer
  std::uint64_t send_time_ns = 0;  // CLOCK_REALTIME, so processes on one host agree
};

inline constexpr std::size_t kStampSize = 24;  // 4 magic + 4 producer + 8 sequence + 8 time

// A body of `size` bytes (≥ kStampSize) carrying `stamp`.
std::string make_payload(std::size_t size, const PayloadStamp& stamp);
// Rewrites the stamp of a body made by make_payload (reusing its buffer).
void restamp(std::string& body, const PayloadStamp& stamp);
// nullopt when the body is too short or does not start with the magic.
std::optional<PayloadStamp> read_stamp(std::string_view body);

// Nanoseconds of CLOCK_REALTIME.
std::uint64_t wall_clock_ns();

}  // namespace mqkit::bench
