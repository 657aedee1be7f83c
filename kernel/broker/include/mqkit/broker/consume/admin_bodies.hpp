// Which shape of an admin body a peer gets (the bodies themselves are coded in
// protocol/bodies.hpp, subscription group settings in protocol/subscription_group.hpp,
// connection lists in protocol/connection.hpp).
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::broker {

// ResetOffsetBody (RESET_CONSUMER_CLIENT_OFFSET, INVOKE_BROKER_TO_RESET_OFFSET): a peer whose
// language is CPP gets ResetOffsetBodyForC ({"offsetTable":[{"brokerName",...,"offset"}]}),
// every other peer fastjson's map keyed by MessageQueue objects, as RocketMQ sends them
// (rocketmq-facts §1.11).
std::string encode_reset_offset_body(const std::map<plugin::v1::MessageQueue, std::int64_t>& offsets,
                                     plugin::v1::LanguageCode language);

}  // namespace mqkit::broker
