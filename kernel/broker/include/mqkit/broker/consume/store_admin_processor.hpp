// StoreAdminProcessor: the operator requests that inspect or tidy the store, RocketMQ's
// AdminBrokerProcessor cases for them:
// - DELETE_EXPIRED_COMMITLOG (329): delete the commit log files past their reserved time now;
// - CLEAN_EXPIRED_CONSUMEQUEUE (306): drop consume queues none of whose messages is left;
// - CLEAN_UNUSED_TOPIC (316): drop the queues of topics the broker no longer has a config for;
// - QUERY_CONSUME_QUEUE (321): a queue's units (commit offset, size, tag hash) from an index.
// System topics are never dropped. The store does the work through its optional StoreAdmin
// extension (mqkit/plugin/v1/store_admin.hpp); a store without it gets a clear refusal.
//
// Threads: the transport's request threads; stateless beyond the context.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::plugin::v1 {
class StoreAdmin;
}

namespace mqkit::broker {

// The most units one QUERY_CONSUME_QUEUE may ask for.
inline constexpr std::int32_t kMaxQueryConsumeQueueCount = 10'000;

class StoreAdminProcessor final : public RequestProcessor {
 public:
  explicit StoreAdminProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  void delete_expired_commit_log(plugin::v1::StoreAdmin& admin, const Responder& responder);
  void clean_expired_consume_queues(plugin::v1::StoreAdmin& admin, const Responder& responder);
  void clean_unused_topics(plugin::v1::StoreAdmin& admin, const Responder& responder);
  void query_consume_queue(plugin::v1::StoreAdmin& admin, const RemotingCommand& request, const Responder& responder);

  BrokerContext& context_;
};

}  // namespace mqkit::broker
