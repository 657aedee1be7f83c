#include "mqkit/protocol/transaction.hpp"

#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::protocol::transaction {

using plugin::v1::ExtFields;
using plugin::v1::Result;

namespace {
// RocketMQ's field names (CustomCommandHeader field = extFields key).
constexpr const char* kProducerGroup = "producerGroup";
constexpr const char* kTranStateTableOffset = "tranStateTableOffset";
constexpr const char* kCommitLogOffset = "commitLogOffset";
constexpr const char* kCommitOrRollback = "commitOrRollback";
constexpr const char* kFromTransactionCheck = "fromTransactionCheck";
constexpr const char* kMsgId = "msgId";
constexpr const char* kTransactionId = "transactionId";
constexpr const char* kOffsetMsgId = "offsetMsgId";

std::string optional_text(const ExtFields& fields, std::string_view name) {
  return std::string(fields.get(name).value_or(""));
}
}  // namespace

void write(const EndTransactionHeader& header, ExtFields& fields) {
  fields.set(kProducerGroup, header.producer_group);
  fields.set(kTranStateTableOffset, header.tran_state_table_offset);
  fields.set(kCommitLogOffset, header.commit_log_offset);
  fields.set(kCommitOrRollback, static_cast<std::int64_t>(header.resolution));
  fields.set(kFromTransactionCheck, header.from_transaction_check);
  fields.set(kMsgId, header.msg_id);
  fields.set(kTransactionId, header.transaction_id);
}

Result<EndTransactionHeader> read_end_transaction_header(const ExtFields& fields) {
  EndTransactionHeader header;
  MQKIT_ASSIGN_OR_RETURN(header.producer_group, require(fields, kProducerGroup));
  MQKIT_ASSIGN_OR_RETURN(header.tran_state_table_offset, require_int(fields, kTranStateTableOffset));
  MQKIT_ASSIGN_OR_RETURN(header.commit_log_offset, require_int(fields, kCommitLogOffset));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t resolution, require_int(fields, kCommitOrRollback));
  header.resolution = static_cast<Resolution>(resolution);
  header.from_transaction_check = fields.get_bool(kFromTransactionCheck, false);
  MQKIT_ASSIGN_OR_RETURN(header.msg_id, require(fields, kMsgId));
  header.transaction_id = optional_text(fields, kTransactionId);
  return header;
}

void write(const CheckTransactionStateHeader& header, ExtFields& fields) {
  fields.set(kTranStateTableOffset, header.tran_state_table_offset);
  fields.set(kCommitLogOffset, header.commit_log_offset);
  fields.set(kMsgId, header.msg_id);
  fields.set(kTransactionId, header.transaction_id);
  fields.set(kOffsetMsgId, header.offset_msg_id);
}

Result<CheckTransactionStateHeader> read_check_transaction_state_header(const ExtFields& fields) {
  CheckTransactionStateHeader header;
  MQKIT_ASSIGN_OR_RETURN(header.tran_state_table_offset, require_int(fields, kTranStateTableOffset));
  MQKIT_ASSIGN_OR_RETURN(header.commit_log_offset, require_int(fields, kCommitLogOffset));
  header.msg_id = optional_text(fields, kMsgId);
  header.transaction_id = optional_text(fields, kTransactionId);
  header.offset_msg_id = optional_text(fields, kOffsetMsgId);
  return header;
}

}  // namespace mqkit::protocol::transaction
