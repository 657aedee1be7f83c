#include "trace_settings.hpp"

#include "mqkit/protocol/validation.hpp"

namespace mqkit::client::trace {

Status validate_trace_topic(const std::string& topic) {
  if (topic.empty()) return Status::ok();
  if (Status s = protocol::validate_topic(topic); !s) return s.with_context("customized_trace_topic");
  return Status::ok();
}

}  // namespace mqkit::client::trace
