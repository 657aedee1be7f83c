// QueryMessageProcessor: QUERY_MESSAGE (12, by key or unique key within a time range) and
// VIEW_MESSAGE_BY_ID (33, by commit log offset), RocketMQ's QueryMessageProcessor. Both answer
// with the stored records themselves (body_slices), the layout clients decode for pulls.
//
// Threads: the transport's request threads; stateless beyond the context.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class QueryMessageProcessor final : public RequestProcessor {
 public:
  explicit QueryMessageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  void query_by_key(const RemotingCommand& request, const Responder& responder);
  void view_by_offset(const RemotingCommand& request, const Responder& responder);

  BrokerContext& context_;
};

}  // namespace mqkit::broker
