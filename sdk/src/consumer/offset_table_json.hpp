// Queue offsets as JSON: {"offsetTable":[{"topic":"T","brokerName":"b","queueId":0,"offset":42}, ...]}.
// The same shape serves the broadcasting offsets file and the body brokers send C++ clients with
// RESET_CONSUMER_CLIENT_OFFSET (RocketMQ's ResetOffsetBodyForC). Pure functions; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

// Corruption naming what is wrong.
Result<std::map<MessageQueue, std::int64_t>> decode_offset_table(const std::string& json);
std::string encode_offset_table(const std::map<MessageQueue, std::int64_t>& offsets);

}  // namespace mqkit::client
