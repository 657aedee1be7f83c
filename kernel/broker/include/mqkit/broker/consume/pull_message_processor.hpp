// PullMessageProcessor: PULL_MESSAGE (11), RocketMQ's PullMessageProcessor over the store.
//
// Checks in RocketMQ's order (broker readable, group settings, topic, queue id, subscription),
// reads up to min(maxMsgNums, max_transfer_count) records and maps the store's ReadStatus to
// the pull codes (rocketmq-facts §1.9, §5.2). A pull that finds nothing and may be suspended is
// parked in the LongPollingService until a message arrives for its queue or its time is up;
// then it runs once more, without suspending, and is answered through the same Responder.
//
// Threads: process() runs on the transport's request threads; a parked pull is re-run on the
// dispatch thread (a message arrived) or the long-polling timer thread (deadline). The processor
// keeps no state of its own beyond the context, which must outlive LongPollingService::stop().
#pragma once

#include "mqkit/protocol/codes.hpp"

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

namespace pull_sys_flag = protocol::pull_sys_flag;

class PullMessageProcessor final : public RequestProcessor {
 public:
  explicit PullMessageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  BrokerContext& context_;
};

}  // namespace mqkit::broker
