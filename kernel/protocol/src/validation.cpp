#include "mqkit/protocol/validation.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace mqkit::protocol {

using plugin::v1::Status;

namespace {

Status validate_name(std::string_view what, std::string_view name, std::size_t max) {
  if (name.empty()) return Status::invalid_argument(std::string(what) + " is empty");
  if (name.size() > max) {
    return Status::invalid_argument(std::string(what) + " '" + std::string(name) + "' is longer than " +
                                    std::to_string(max) + " characters");
  }
  const auto bad = std::find_if(name.begin(), name.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '%' || c == '|' || c == '_' || c == '-');
  });
  if (bad != name.end()) {
    return Status::invalid_argument(std::string(what) + " '" + std::string(name) +
                                    "' contains illegal characters; allowed: letters, digits, %, |, _ and -");
  }
  return Status::ok();
}

}  // namespace

Status validate_topic(std::string_view topic) { return validate_name("topic", topic, kMaxTopicLength); }
Status validate_group(std::string_view group) { return validate_name("group", group, kMaxGroupLength); }

bool is_system_topic(std::string_view topic) {
  static constexpr std::string_view kSystem[] = {
      kDefaultTopic, kScheduleTopic, "BenchmarkTest", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
      "TRANS_CHECK_MAX_TIME_TOPIC", kSelfTestTopic, kOffsetMovedEvent};
  return std::find(std::begin(kSystem), std::end(kSystem), topic) != std::end(kSystem) || topic.starts_with("rmq_sys_");
}

}  // namespace mqkit::protocol
