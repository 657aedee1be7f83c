// HeaderReader: reads a request's custom header (extFields) field by field and keeps the first
// problem — a required field missing ("the custom field <topic> is null", as RocketMQ's
// @CFNotNull check says) or a number that is not one — so a processor reads the whole header and
// checks once. Values arrive as strings whatever the client sent (ali-ons sends JSON numbers and
// booleans; the transport hands them over as text).
//
// A short-lived object on the processing thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::broker {

class HeaderReader {
 public:
  explicit HeaderReader(const plugin::v1::ExtFields& fields) : fields_(fields) {}

  std::string required(std::string_view name);
  std::int64_t required_int(std::string_view name);
  std::int32_t required_int32(std::string_view name) { return static_cast<std::int32_t>(required_int(name)); }
  std::string optional(std::string_view name, std::string fallback = {}) const;
  std::int64_t optional_int(std::string_view name, std::int64_t fallback);
  bool optional_bool(std::string_view name, bool fallback) const { return fields_.get_bool(name, fallback); }
  bool has(std::string_view name) const { return fields_.get(name).has_value(); }

  bool ok() const noexcept { return status_.is_ok(); }
  // The first problem found (empty while ok()).
  const std::string& error() const noexcept { return status_.message(); }

 private:
  void note(const plugin::v1::Status& status);

  const plugin::v1::ExtFields& fields_;
  plugin::v1::Status status_;
};

// The queue most queue-level requests name: required `topic` and `queueId`.
struct QueueRef {
  std::string topic;
  std::int32_t queue_id = 0;
};
QueueRef read_queue(HeaderReader& fields);

}  // namespace mqkit::broker
