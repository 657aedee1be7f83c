// protobuf's Duration and Timestamp to and from milliseconds, the unit RocketMQ's remoting
// protocol counts in.
#pragma once

#include <google/protobuf/duration.pb.h>
#include <google/protobuf/timestamp.pb.h>

#include <algorithm>
#include <cstdint>

namespace mqkit::proxy {

inline google::protobuf::Duration duration_of(std::int64_t ms) {
  google::protobuf::Duration d;
  d.set_seconds(ms / 1000);
  d.set_nanos(static_cast<std::int32_t>((ms % 1000) * 1'000'000));
  return d;
}

inline google::protobuf::Timestamp timestamp_of(std::int64_t ms) {
  google::protobuf::Timestamp t;
  t.set_seconds(ms / 1000);
  t.set_nanos(static_cast<std::int32_t>((ms % 1000) * 1'000'000));
  return t;
}

// A client may send any number of seconds: beyond ±10^12 s (31,700 years) they count as that much,
// so the milliseconds and sums of a few of them stay far from int64's limits.
inline std::int64_t ms_of_seconds(std::int64_t seconds, std::int32_t nanos) {
  constexpr std::int64_t kLimit = 1'000'000'000'000;
  return std::clamp(seconds, -kLimit, kLimit) * 1000 + nanos / 1'000'000;
}
inline std::int64_t ms_of(const google::protobuf::Duration& d) { return ms_of_seconds(d.seconds(), d.nanos()); }
inline std::int64_t ms_of(const google::protobuf::Timestamp& t) { return ms_of_seconds(t.seconds(), t.nanos()); }

}  // namespace mqkit::proxy
