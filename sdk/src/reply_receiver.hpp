// The client side of PUSH_REPLY_MESSAGE_TO_CLIENT (326): a broker pushes a reply to the client
// whose request it answers (RocketMQ's ClientRemotingProcessor.receiveReplyMessage). The reply
// becomes a MessageExt (body inflated when its sysFlag says COMPRESSED, ARRIVE_TIME added) and
// goes to the waiting request with its CORRELATION_ID; a reply no request waits for (it came too
// late) is logged and dropped. The broker is answered SUCCESS either way, SYSTEM_ERROR "process
// reply message fail" when the push cannot be read.
#pragma once

#include <memory>
#include <string>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/request_processor.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"
#include "pending_requests.hpp"

namespace mqkit::client {

// The pushed reply as the requester sees it; InvalidArgument when the header is incomplete.
Result<MessageExt> reply_from_push(const plugin::v1::RemotingCommand& push, std::int64_t arrived_ms);

// The processor of PUSH_REPLY_MESSAGE_TO_CLIENT for the client instance `client_id`, handing
// replies to `pending`.
RequestProcessor reply_receiver(std::shared_ptr<PendingRequests> pending, std::string client_id);

}  // namespace mqkit::client
