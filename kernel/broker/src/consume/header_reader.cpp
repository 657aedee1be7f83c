#include "header_reader.hpp"

#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {

void HeaderReader::note(const plugin::v1::Status& status) {
  if (status_.is_ok() && !status.is_ok()) status_ = status;
}

std::string HeaderReader::required(std::string_view name) {
  auto value = protocol::require(fields_, name);
  note(value.status());
  return value ? std::move(value).value() : std::string();
}

std::int64_t HeaderReader::required_int(std::string_view name) {
  auto value = protocol::require_int(fields_, name);
  note(value.status());
  return value ? *value : 0;
}

std::string HeaderReader::optional(std::string_view name, std::string fallback) const {
  const auto value = fields_.get(name);
  return value ? std::string(*value) : std::move(fallback);
}

std::int64_t HeaderReader::optional_int(std::string_view name, std::int64_t fallback) {
  auto value = protocol::optional_int(fields_, name, fallback);
  note(value.status());
  return value ? *value : fallback;
}

QueueRef read_queue(HeaderReader& fields) {
  QueueRef queue;
  queue.topic = fields.required("topic");
  queue.queue_id = fields.required_int32("queueId");
  return queue;
}

}  // namespace mqkit::broker
