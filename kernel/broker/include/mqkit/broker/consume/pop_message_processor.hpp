// PopMessageProcessor: RocketMQ 5's pop consumption over remoting (docs/proxy.md "Pop
// consumption"): POP_MESSAGE (200050) hands a group invisible messages, long-polling up to
// pollTime when there are none; ACK_MESSAGE (200051) ends a delivery; CHANGE_MESSAGE_INVISIBLETIME
// (200053) moves its invisible time. Headers and answers are RocketMQ's (PopMessageRequestHeader,
// PopMessageResponseHeader's startOffsetInfo / msgOffsetInfo, ExtraInfoUtil's extraInfo), so a
// client builds each message's receipt handle ("extraInfo") as RocketMQ's clients do. What the
// broker keeps for it is the broker's PopService's (BrokerContext::pops), which survives restarts.
// Pops filter by TAG or, with enable_property_filter, by a SQL92 expression (expType SQL92),
// compiled once per group and topic as pulls' are.
//
// Threads: the transport's request threads; a held pop answers from the long-polling service's
// threads.
#pragma once

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/filter/sql_filter_cache.hpp"

namespace mqkit::broker {

class PopMessageProcessor final : public RequestProcessor {
 public:
  explicit PopMessageProcessor(BrokerContext& context);

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  void pop(const RemotingCommand& request, const Responder& responder);
  void ack(const RemotingCommand& request, const Responder& responder);
  void change_invisible_time(const RemotingCommand& request, const Responder& responder);

  BrokerContext& context_;
  filter::SqlFilterCache sql_filters_;
};

}  // namespace mqkit::broker
