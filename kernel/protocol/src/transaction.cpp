#include "mqkit/protocol/transaction.hpp"

#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::protocol::transaction {

using plugin::v1::ExtFields;
using plugin::v1::Result;

namespace {

std::string optional_text(const ExtFields& fields, std::string_view name) {
  return std::string(fields.get(name).value_or(""));
}

}  // namespace

void write(const EndTransactionHeader& header, ExtFields& fields) {
  fields.set(std::string(end_header::kProducerGroup), header.producer_group);
  fields.set(std::string(end_header::kTranStateTableOffset), header.tran_state_table_offset);
  fields.set(std::string(end_header::kCommitLogOffset), header.commit_log_offset);
  fields.set(std::string(end_header::kCommitOrRollback), static_cast<std::int64_t>(header.resolution));
  fields.set(std::string(end_header::kFromTransactionCheck), header.from_transaction_check);
  fields.set(std::string(end_header::kMsgId), header.msg_id);
  fields.set(std::string(end_header::kTransactionId), header.transaction_id);
}

Result<EndTransactionHeader> read_end_transaction_header(const ExtFields& fields) {
  EndTransactionHeader header;
  MQKIT_ASSIGN_OR_RETURN(header.producer_group, require(fields, end_header::kProducerGroup));
  MQKIT_ASSIGN_OR_RETURN(header.tran_state_table_offset, require_int(fields, end_header::kTranStateTableOffset));
  MQKIT_ASSIGN_OR_RETURN(header.commit_log_offset, require_int(fields, end_header::kCommitLogOffset));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t resolution, require_int(fields, end_header::kCommitOrRollback));
  header.resolution = static_cast<Resolution>(resolution);
  header.from_transaction_check = fields.get_bool(end_header::kFromTransactionCheck, false);
  MQKIT_ASSIGN_OR_RETURN(header.msg_id, require(fields, end_header::kMsgId));
  header.transaction_id = optional_text(fields, end_header::kTransactionId);
  return header;
}

void write(const CheckTransactionStateHeader& header, ExtFields& fields) {
  fields.set(std::string(check_header::kTranStateTableOffset), header.tran_state_table_offset);
  fields.set(std::string(check_header::kCommitLogOffset), header.commit_log_offset);
  fields.set(std::string(check_header::kMsgId), header.msg_id);
  fields.set(std::string(check_header::kTransactionId), header.transaction_id);
  fields.set(std::string(check_header::kOffsetMsgId), header.offset_msg_id);
}

Result<CheckTransactionStateHeader> read_check_transaction_state_header(const ExtFields& fields) {
  CheckTransactionStateHeader header;
  MQKIT_ASSIGN_OR_RETURN(header.tran_state_table_offset, require_int(fields, check_header::kTranStateTableOffset));
  MQKIT_ASSIGN_OR_RETURN(header.commit_log_offset, require_int(fields, check_header::kCommitLogOffset));
  header.msg_id = optional_text(fields, check_header::kMsgId);
  header.transaction_id = optional_text(fields, check_header::kTransactionId);
  header.offset_msg_id = optional_text(fields, check_header::kOffsetMsgId);
  return header;
}

}  // namespace mqkit::protocol::transaction
