#include "mqkit/client/message_id.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <vector>

#include "local_address.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::client {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";
// Java tolerates a clock stepping back this far (NTP) by using 0.
constexpr std::int64_t kClockStepTolerance = 1'000'000;

// Writes 2 × `bytes` hex characters at `out`; returns the end.
char* write_hex(char* out, std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    const auto byte = static_cast<std::uint8_t>(value >> (8 * i));
    *out++ = kHex[byte >> 4];
    *out++ = kHex[byte & 0xF];
  }
  return out;
}

void append_hex(std::string& out, std::uint64_t value, int bytes) {
  char text[16];
  out.append(text, write_hex(text, value, bytes));
}


// Start of the local-time month containing `ms`, shifted by `month_delta` months.
std::int64_t month_start(std::int64_t ms, int month_delta) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm t{};
  ::localtime_r(&seconds, &t);
  t.tm_mday = 1;
  t.tm_hour = 0;
  t.tm_min = 0;
  t.tm_sec = 0;
  t.tm_mon += month_delta;
  t.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&t)) * 1000;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

UniqueIdGenerator::UniqueIdGenerator(const std::array<std::uint8_t, 4>& ip, std::uint16_t pid,
                                     std::uint32_t loader_hash) {
  for (const std::uint8_t b : ip) append_hex(prefix_, b, 1);
  append_hex(prefix_, pid, 2);
  append_hex(prefix_, loader_hash, 4);
}

UniqueIdGenerator& UniqueIdGenerator::process_default() {
  static UniqueIdGenerator generator(ipv4_bytes(local_ipv4()), static_cast<std::uint16_t>(::getpid()),
                                     static_cast<std::uint32_t>(std::random_device{}()));
  return generator;
}

void UniqueIdGenerator::start_month_of(std::int64_t now) {
  std::lock_guard lock(month_mutex_);
  if (now < next_month_start_ms_.load(std::memory_order_acquire)) return;  // another thread did it
  // Start before next: a thread that sees the new next also sees the new start.
  month_start_ms_.store(month_start(now, 0), std::memory_order_release);
  next_month_start_ms_.store(month_start(now, 1), std::memory_order_release);
}

std::string UniqueIdGenerator::next() { return next_at(kernel::wall_clock_ms()); }

std::string UniqueIdGenerator::next_at(std::int64_t now) {
  std::string id(kUniqueIdLength, '\0');
  write_at(now, std::span<char, kUniqueIdLength>(id.data(), kUniqueIdLength));
  return id;
}

void UniqueIdGenerator::next_into(std::span<char, kUniqueIdLength> out) { write_at(kernel::wall_clock_ms(), out); }

void UniqueIdGenerator::write_at(std::int64_t now, std::span<char, kUniqueIdLength> out) {
  if (now >= next_month_start_ms_.load(std::memory_order_acquire)) start_month_of(now);
  std::int64_t diff = now - month_start_ms_.load(std::memory_order_acquire);
  if (diff < 0 && diff > -kClockStepTolerance) diff = 0;
  const std::uint32_t count = counter_.fetch_add(1, std::memory_order_relaxed);
  char* cursor = std::copy(prefix_.begin(), prefix_.end(), out.data());
  cursor = write_hex(cursor, static_cast<std::uint32_t>(diff), 4);
  write_hex(cursor, count & 0xFFFF, 2);
}

std::string new_unique_id() { return UniqueIdGenerator::process_default().next(); }

Result<UniqueIdInfo> parse_unique_id(std::string_view id, std::int64_t now) {
  if (id.size() != 32 && id.size() != 56) {
    return Status::invalid_argument("'" + std::string(id) + "' is not a unique message id (32 or 56 hex characters)");
  }
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i < id.size(); i += 2) {
    const int high = hex_value(id[i]);
    const int low = hex_value(id[i + 1]);
    if (high < 0 || low < 0) return Status::invalid_argument("'" + std::string(id) + "' is not hexadecimal");
    bytes.push_back(static_cast<std::uint8_t>(high * 16 + low));
  }
  const std::size_t ip_length = bytes.size() == 28 ? 16 : 4;
  UniqueIdInfo info;
  if (ip_length == 4) {
    info.ip = std::to_string(bytes[0]) + "." + std::to_string(bytes[1]) + "." + std::to_string(bytes[2]) + "." +
              std::to_string(bytes[3]);
  } else {
    info.ip = std::string(id.substr(0, 32));
  }
  info.pid = static_cast<std::uint16_t>(bytes[ip_length] << 8 | bytes[ip_length + 1]);
  std::int64_t span = 0;
  for (std::size_t i = ip_length + 6; i < ip_length + 10; ++i) span = span << 8 | bytes[i];
  // As Java: the id is from this month unless that would put it in the future.
  std::int64_t start = month_start(now, 0);
  if (start + span >= now) start = month_start(now, -1);
  info.time_ms = start + span;
  return info;
}

Result<UniqueIdInfo> parse_unique_id(std::string_view id) { return parse_unique_id(id, kernel::wall_clock_ms()); }

}  // namespace mqkit::client
