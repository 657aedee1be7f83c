#include "mqkit/broker/send/end_transaction_processor.hpp"

#include <string>

#include "../consume/header_reader.hpp"
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
  HeaderReader fields(request.ext_fields);
  EndTransactionRequest end;
  end.producer_group = fields.required(tx::end_header::kProducerGroup);
  end.tran_state_table_offset = fields.required_int(tx::end_header::kTranStateTableOffset);
  end.commit_log_offset = fields.required_int(tx::end_header::kCommitLogOffset);
  end.resolution = static_cast<tx::Resolution>(fields.required_int32(tx::end_header::kCommitOrRollback));
  end.from_transaction_check = fields.optional_bool(tx::end_header::kFromTransactionCheck, false);
  end.msg_id = fields.required(tx::end_header::kMsgId);
  end.transaction_id = fields.optional(tx::end_header::kTransactionId);
  const auto log = kernel::logger("broker");
  if (!fields.ok()) {
    log->warn("END_TRANSACTION from {} refused: {}", responder.channel()->remote_address(), fields.error());
    return responder.fail(rc::kSystemError, fields.error());
  }
  if (context_.config->broker_id != 0) {
    return responder.fail(rc::kSlaveNotAvailable, "the broker is a slave: end transaction is forbidden");
  }
  if (end.resolution == tx::Resolution::kUnknown) {
    // The producer does not know yet: the check service will ask again later.
    log->info("producer {} of group {} left transaction {} unknown{}{}", responder.channel()->remote_address(),
              end.producer_group, end.msg_id, request.remark ? ": " : "", request.remark.value_or(""));
  }
  if (auto ended = context_.transactions->end(end); !ended) {
    log->warn("END_TRANSACTION {} of transaction {} (producer group {}, commit log offset {}) from {} refused: {}",
              static_cast<std::int32_t>(end.resolution), end.msg_id, end.producer_group, end.commit_log_offset,
              responder.channel()->remote_address(), ended.to_string());
    return responder.fail(rc::kSystemError, ended.message());
  }
  RemotingCommand response;
  response.code = rc::kSuccess;
  responder.respond(std::move(response));
}

}  // namespace mqkit::broker
