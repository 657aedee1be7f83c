// PullMessageProcessor: PULL_MESSAGE (11), RocketMQ's PullMessageProcessor over the store.
//
// Checks in RocketMQ's order (broker readable, group settings, topic, queue id, subscription),
// reads up to min(maxMsgNums, max_transfer_count) records and maps the store's ReadStatus to
// the pull codes (rocketmq-facts §1.9, §5.2). A pull that finds nothing and may be suspended is
// parked in the LongPollingService until a message arrives for its queue or its time is up;
// then it runs once more, without suspending, and is answered through the same Responder.
//
// SQL92 subscriptions (with enable_property_filter) are compiled once per group and topic and
// evaluated on each record the store returns; the pull answers the matching records, or
// PULL_RETRY_IMMEDIATELY past the ones examined when none matched (RocketMQ's
// NO_MATCHED_MESSAGE), and SUBSCRIPTION_PARSE_FAILED for an expression that does not parse.
//
// suggestWhichBrokerId is 0 unless slave_read_enable: then the group's broker_id, or its
// which_broker_when_consume_slowly when the records read lie more than
// access_message_in_memory_max_ratio % of physical memory behind the commit log's end. A slave
// (broker_id > 0) never moves a consumer's offset: what would be PULL_OFFSET_MOVED is
// PULL_RETRY_IMMEDIATELY at the same offset, pointing at the group's broker_id (docs/slave-read.md).
//
// Threads: process() runs on the transport's request threads; a parked pull is re-run on the
// dispatch thread (a message arrived) or the long-polling timer thread (deadline). The context
// must outlive LongPollingService::stop(); the filter cache is shared with parked pulls.
#pragma once

#include "mqkit/protocol/codes.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/filter/sql_filter_cache.hpp"

namespace mqkit::broker {

namespace pull_sys_flag = protocol::pull_sys_flag;

class PullMessageProcessor final : public RequestProcessor {
 public:
  explicit PullMessageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  BrokerContext& context_;
  std::shared_ptr<filter::SqlFilterCache> sql_filters_ = std::make_shared<filter::SqlFilterCache>();
};

}  // namespace mqkit::broker
