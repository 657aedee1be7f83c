// The answer to a send once the store is done with it (RocketMQ's handlePutMessageResult).
#pragma once

#include <cstdint>
#include <string>

#include "append_messages.hpp"
#include "mqkit/broker/broker_config.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::broker {

// Stored: SUCCESS, or FLUSH_DISK_TIMEOUT when the sync flush was late (the message is stored
// all the same), with msgId (offset message ids, comma-joined for a batch), queueId (the queue
// the producer chose), queueOffset (of the first message), MSG_REGION and TRACE_ON (the broker's
// region_id and trace_on).
// Not stored: SERVICE_NOT_AVAILABLE (store unavailable, e.g. disk full), MESSAGE_ILLEGAL (the
// store refused the message) or SYSTEM_ERROR, with the store's explanation.
plugin::v1::RemotingCommand send_response(const plugin::v1::Result<AppendedMessages>& appended,
                                          const plugin::v1::HostAddress& store_host, std::int32_t queue_id,
                                          const BrokerConfig& config);

// The fields of SendMessageResponseHeader every answer to a send carries: msgId, queueId,
// queueOffset, MSG_REGION and TRACE_ON.
void set_send_result_fields(plugin::v1::RemotingCommand& response, std::string msg_id, std::int32_t queue_id,
                            std::int64_t queue_offset, const BrokerConfig& config);

}  // namespace mqkit::broker
