// CONSUMER_SEND_MSG_BACK (36): a consumer hands back a message it failed to consume. The broker
// copies the stored original to %RETRY%group, delayed by level delayLevel (0 = 3 + times already
// reconsumed), or to %DLQ%group once it was reconsumed the maximum number of times
// (rocketmq-facts §5.3).
#pragma once

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"
#include "append_messages.hpp"

namespace mqkit::broker {

// A copy of `original` for a retry or dead-letter topic: same body, flag, born host and time,
// properties and tags; one more reconsume; where it came from in RETRY_TOPIC and
// ORIGIN_MESSAGE_ID. Pop consumption moves messages to the DLQ with it too.
OutgoingMessage retry_copy(const StoredRecordAt& original, const std::string& retry_topic, std::int32_t queue_id);

// Answers SUCCESS once the copy is stored. Runs on a worker thread; the answer may come from
// the store's thread.
void consumer_send_back(BrokerContext& context, const RemotingCommand& request, const Responder& responder);

}  // namespace mqkit::broker
