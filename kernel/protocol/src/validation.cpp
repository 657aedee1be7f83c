#include "mqkit/protocol/validation.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "mqkit/protocol/transaction.hpp"

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

namespace {

constexpr std::string_view kScheduleTopicV2 = "SCHEDULE_TOPIC_XXXX_V2";
constexpr std::string_view kSystemTopicPrefix = "rmq_sys_";

// The broker's own topics: written by the schedule, transaction and offset-moved services only.
constexpr std::string_view kNotAllowedSend[] = {kScheduleTopic,
                                                kScheduleTopicV2,
                                                transaction::kHalfTopic,
                                                transaction::kOpTopic,
                                                transaction::kCheckMaxTimeTopic,
                                                kSelfTestTopic,
                                                kOffsetMovedEvent};
// System topics that still take messages from producers (CHECKPOINT_TOPIC: RocketMQ 5's RocksDB
// offset checkpoints).
constexpr std::string_view kSendableSystem[] = {kDefaultTopic, "BenchmarkTest", kTraceTopic, "CHECKPOINT_TOPIC"};

template <std::size_t N>
bool contains(const std::string_view (&set)[N], std::string_view topic) {
  return std::find(std::begin(set), std::end(set), topic) != std::end(set);
}

}  // namespace

bool is_not_allowed_send_topic(std::string_view topic) { return contains(kNotAllowedSend, topic); }

bool is_system_group(std::string_view group) {
  static constexpr std::string_view kPredefined[] = {
      "DEFAULT_CONSUMER",  "DEFAULT_PRODUCER",   "TOOLS_CONSUMER",        "SCHEDULE_CONSUMER",
      "FILTERSRV_CONSUMER", "__MONITOR_CONSUMER", "CLIENT_INNER_PRODUCER", "SELF_TEST_P_GROUP",
      "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER",
      "CID_ONSAPI_PULL",   "CID_RMQ_SYS_TRANS"};
  return group.starts_with("CID_RMQ_SYS_") || contains(kPredefined, group);
}

bool is_system_topic(std::string_view topic) {
  return is_not_allowed_send_topic(topic) || contains(kSendableSystem, topic) ||
         topic.starts_with(kSystemTopicPrefix);
}

}  // namespace mqkit::protocol
