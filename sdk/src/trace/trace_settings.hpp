// The message trace keys producers and push consumers share ([producer] and [consumer]):
// RocketMQ's enableMsgTrace and customizedTraceTopic (docs/sdk.md, "Message trace").
#pragma once

#include <string>

#include "mqkit/client/types.hpp"
#include "mqkit/plugin/v1/config.hpp"

namespace mqkit::client::trace {

inline constexpr plugin::v1::ConfigField kEnableMsgTraceField{
    .key = "enable_msg_trace", .type = plugin::v1::ValueType::kBool, .default_value = "false",
    .description = "record message traces (RocketMQ 4.x format) in the trace topic through an inner trace producer"};
inline constexpr plugin::v1::ConfigField kCustomizedTraceTopicField{
    .key = "customized_trace_topic", .type = plugin::v1::ValueType::kString, .default_value = "RMQ_SYS_TRACE_TOPIC",
    .description = "the trace topic enable_msg_trace writes to; empty = RMQ_SYS_TRACE_TOPIC"};

// InvalidArgument when `topic` is neither empty (the default topic) nor a valid topic name.
Status validate_trace_topic(const std::string& topic);

}  // namespace mqkit::client::trace
