// ClientManageProcessor: HEART_BEAT (34), UNREGISTER_CLIENT (35) and CHECK_CLIENT_CONFIG (46),
// RocketMQ's ClientManageProcessor.
//
// A heartbeat registers every consumer and producer group the client reports, on the channel it
// arrived on. Each consumer group gets its settings (created when auto creation is on) and, for
// CLUSTERING groups, its retry topic %RETRY%<group> — created here so it is registered with the
// name servers and its route exists before the first message is sent back. Subscriptions are
// stored with tag codes re-derived by the broker (normalize_subscription).
//
// CHECK_CLIENT_CONFIG: a RocketMQ consumer with a subscription that is not TAG asks every broker
// of its topic at start, and fails to start unless each answers SUCCESS: a TAG one always does;
// a SQL92 one only with enable_property_filter and an expression that compiles
// (SUBSCRIPTION_PARSE_FAILED with the parser's message otherwise), as RocketMQ answers.
//
// Threads: the transport's request threads; stateless beyond the context.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class ClientManageProcessor final : public RequestProcessor {
 public:
  explicit ClientManageProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  void heartbeat(const RemotingCommand& request, const Responder& responder);
  void unregister_client(const RemotingCommand& request, const Responder& responder);
  void check_client_config(const RemotingCommand& request, const Responder& responder);

  BrokerContext& context_;
};

}  // namespace mqkit::broker
