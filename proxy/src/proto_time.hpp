// protobuf's Duration and Timestamp to and from milliseconds, the unit RocketMQ's remoting
// protocol counts in.
#pragma once

#include <google/protobuf/duration.pb.h>
#include <google/protobuf/timestamp.pb.h>

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

inline std::int64_t ms_of(const google::protobuf::Duration& d) { return d.seconds() * 1000 + d.nanos() / 1'000'000; }
inline std::int64_t ms_of(const google::protobuf::Timestamp& t) { return t.seconds() * 1000 + t.nanos() / 1'000'000; }

}  // namespace mqkit::proxy
