// ConsumerManageProcessor: GET_CONSUMER_LIST_BY_GROUP (38), QUERY_CONSUMER_OFFSET (14) and
// UPDATE_CONSUMER_OFFSET (15), RocketMQ's ConsumerManageProcessor.
//
// QUERY_CONSUMER_OFFSET keeps RocketMQ's quirk (rocketmq-facts §4.7): a group with no committed
// offset on a queue whose min offset is still 0 gets SUCCESS with offset 0, not QUERY_NOT_FOUND,
// so a new group on a young topic starts from the beginning (5.x clients can turn it off with
// setZeroIfNotFound=false). UPDATE_CONSUMER_OFFSET ignores negative offsets (see
// commit_client_offset) and answers unless the request is one-way.
//
// Threads: the transport's request threads; stateless beyond the context.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class ConsumerManageProcessor final : public RequestProcessor {
 public:
  explicit ConsumerManageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  void consumer_list(const RemotingCommand& request, const Responder& responder);
  void query_offset(const RemotingCommand& request, const Responder& responder);
  void update_offset(const RemotingCommand& request, const Responder& responder);

  BrokerContext& context_;
};

}  // namespace mqkit::broker
