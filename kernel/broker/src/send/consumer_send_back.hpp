// CONSUMER_SEND_MSG_BACK (36): a consumer hands back a message it failed to consume. The broker
// copies the stored original to %RETRY%group, delayed by level delayLevel (0 = 3 + times already
// reconsumed), or to %DLQ%group once it was reconsumed the maximum number of times
// (rocketmq-facts §5.3).
#pragma once

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

// Answers SUCCESS once the copy is stored. Runs on a worker thread; the answer may come from
// the store's thread.
void consumer_send_back(BrokerContext& context, const RemotingCommand& request, const Responder& responder);

}  // namespace mqkit::broker
