#include "mqkit/broker/send/end_transaction_processor.hpp"

#include <string>

#include "mqkit/broker/send/transaction_service.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {

namespace rc = protocol::response_code;
namespace tx = protocol::transaction;

std::vector<std::int32_t> EndTransactionProcessor::codes() const {
  return {protocol::request_code::kEndTransaction};
}

void EndTransactionProcessor::process(RemotingCommand request, Responder responder) {
  auto header = tx::read_end_transaction_header(request.ext_fields);
  const auto log = kernel::logger("broker");
  if (!header) {
    log->warn("END_TRANSACTION from {} refused: {}", responder.channel()->remote_address(), header.status().message());
    return responder.fail(rc::kSystemError, header.status().message());
  }
  const tx::EndTransactionHeader& end = *header;
  if (context_.config->broker_id != 0) {
    return responder.fail(rc::kSlaveNotAvailable, "the broker is a slave: end transaction is forbidden");
  }
  if (end.resolution == tx::Resolution::kUnknown) {
    // The producer does not know yet: the check service will ask again later.
    log->info("producer {} of group {} left transaction {} unknown{}{}", responder.channel()->remote_address(),
              end.producer_group, end.msg_id, request.remark ? ": " : "", request.remark.value_or(""));
  }
  if (auto ended = context_.transactions->end(end); !ended) {
    log->warn("END_TRANSACTION {} of transaction {} (producer group {}, commit log offset {}) from {}{} refused: {}",
              static_cast<std::int32_t>(end.resolution), end.msg_id, end.producer_group, end.commit_log_offset,
              responder.channel()->remote_address(), end.from_transaction_check ? " answering a check" : "",
              ended.to_string());
    return responder.fail(rc::kSystemError, ended.message());
  }
  RemotingCommand response;
  response.code = rc::kSuccess;
  responder.respond(std::move(response));
}

}  // namespace mqkit::broker
