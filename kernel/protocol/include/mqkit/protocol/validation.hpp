// Names and limits RocketMQ enforces on both sides of the wire (rocketmq-facts §2.7).
#pragma once

#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

inline constexpr std::string_view kDefaultTopic = "TBW102";
inline constexpr std::string_view kScheduleTopic = "SCHEDULE_TOPIC_XXXX";
inline constexpr std::string_view kRetryGroupTopicPrefix = "%RETRY%";
inline constexpr std::string_view kDlqGroupTopicPrefix = "%DLQ%";
inline constexpr std::string_view kSelfTestTopic = "SELF_TEST_TOPIC";
inline constexpr std::string_view kOffsetMovedEvent = "OFFSET_MOVED_EVENT";
inline constexpr std::string_view kTraceTopic = "RMQ_SYS_TRACE_TOPIC";  // message traces
inline constexpr std::size_t kMaxTopicLength = 127;
inline constexpr std::size_t kMaxGroupLength = 255;

// Non-empty, at most 127 characters of [%|a-zA-Z0-9_-].
plugin::v1::Status validate_topic(std::string_view topic);
// Non-empty, at most 255 characters of [%|a-zA-Z0-9_-].
plugin::v1::Status validate_group(std::string_view group);
// RocketMQ's system topics (TopicValidator's system set: TBW102, BenchmarkTest, the schedule,
// transaction, trace, self-test, offset-moved and CHECKPOINT_TOPIC topics, and every rmq_sys_*
// topic). Brokers refuse to create or delete them through the admin requests; producing to most
// of them is fine.
bool is_system_topic(std::string_view topic);
// The system topics only the broker itself writes (the schedule, transaction half/op/check,
// self-test and offset-moved topics): producers are refused with NO_PERMISSION. TBW102,
// BenchmarkTest, the trace topic and rmq_sys_* accept messages, as in RocketMQ.
bool is_not_allowed_send_topic(std::string_view topic);
// RocketMQ's own consumer and producer groups: CID_RMQ_SYS_* and MixAll's predefined groups
// (DEFAULT_CONSUMER, TOOLS_CONSUMER, SCHEDULE_CONSUMER, ...). Tools leave them out of exports.
bool is_system_group(std::string_view group);

inline std::string retry_topic(std::string_view group) { return std::string(kRetryGroupTopicPrefix) + std::string(group); }
inline std::string dlq_topic(std::string_view group) { return std::string(kDlqGroupTopicPrefix) + std::string(group); }

}  // namespace mqkit::protocol
