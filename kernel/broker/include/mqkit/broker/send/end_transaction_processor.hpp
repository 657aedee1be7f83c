// EndTransactionProcessor: END_TRANSACTION (37), how a producer commits or rolls back the half
// message of a transaction (RocketMQ's EndTransactionProcessor, rocketmq-facts §1.9, §5.6).
// Producers send it one-way, after their local transaction or in answer to a
// CHECK_TRANSACTION_STATE; a request that is not one-way gets an answer. The work is the
// TransactionService's; a refusal is logged (a one-way sender never sees it).
//
// Threads: process() runs on transport worker threads and waits for the service's appends.
#pragma once

#include <cstdint>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class EndTransactionProcessor final : public RequestProcessor {
 public:
  // `context` (and its transaction service) must outlive the processor.
  explicit EndTransactionProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  BrokerContext& context_;
};

}  // namespace mqkit::broker
