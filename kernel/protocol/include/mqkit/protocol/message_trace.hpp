// What a broker stamps into every message a producer sends, for message trace (RocketMQ's
// MessageConst.PROPERTY_MSG_REGION and PROPERTY_TRACE_SWITCH): its region and whether tracing is
// on, from its regionId and traceOn settings. Send answers carry both as ext fields too. A traced
// consumer records the message's region in its trace records and traces nothing of a message
// whose TRACE_ON is "false".
#pragma once

#include <string_view>

namespace mqkit::protocol::property {

inline constexpr std::string_view kMsgRegion = "MSG_REGION";
inline constexpr std::string_view kTraceSwitch = "TRACE_ON";

}  // namespace mqkit::protocol::property

namespace mqkit::protocol {

// RocketMQ's MixAll.DEFAULT_TRACE_REGION_ID, BrokerConfig's regionId default.
inline constexpr std::string_view kDefaultRegionId = "DefaultRegion";

}  // namespace mqkit::protocol
