// RocketMQ transactional messages on the wire and in the store (rocketmq-facts §1.9, §2.1, §5.6):
// the broker's system topics and group, the bookkeeping properties, and the headers of
// END_TRANSACTION (37, producer → broker) and CHECK_TRANSACTION_STATE (39, broker → producer).
// Shared by the broker and the SDK so that each is spelled and coded in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::protocol::transaction {

// Half messages wait here (queue 0) with their real topic and queue in REAL_TOPIC / REAL_QID.
inline constexpr std::string_view kHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC";
// One op record per ended half message (same queue id as the half queue), tag kOpTag, body the
// half queue offsets it ends as decimal text separated by kOpOffsetSeparator.
inline constexpr std::string_view kOpTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr std::string_view kOpTag = "d";
inline constexpr char kOpOffsetSeparator = ',';
// Half messages checked transactionCheckMax times without an answer end up here.
inline constexpr std::string_view kCheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC";
// The internal consumer group whose offsets on the half and op queues record the check progress.
inline constexpr std::string_view kCheckGroup = "CID_RMQ_SYS_TRANS";

// Properties (MessageConst) of half and committed messages.
namespace property {
// The half queue offset a message descends from: on a committed message, the half it came from;
// on a re-appended half message, the first half of its transaction.
inline constexpr std::string_view kPreparedQueueOffset = "TRAN_PREPARED_QUEUE_OFFSET";
inline constexpr std::string_view kCheckTimes = "TRANSACTION_CHECK_TIMES";
inline constexpr std::string_view kCheckImmunitySeconds = "CHECK_IMMUNITY_TIME_IN_SECONDS";
}  // namespace property

// END_TRANSACTION's commitOrRollback (the sysFlag transaction values).
enum class Resolution : std::int32_t { kUnknown = 0, kCommit = 8, kRollback = 12 };

// END_TRANSACTION request header fields (RocketMQ's names).
namespace end_header {
inline constexpr std::string_view kProducerGroup = "producerGroup";
inline constexpr std::string_view kTranStateTableOffset = "tranStateTableOffset";
inline constexpr std::string_view kCommitLogOffset = "commitLogOffset";
inline constexpr std::string_view kCommitOrRollback = "commitOrRollback";
inline constexpr std::string_view kFromTransactionCheck = "fromTransactionCheck";
inline constexpr std::string_view kMsgId = "msgId";
inline constexpr std::string_view kTransactionId = "transactionId";
}  // namespace end_header

// CHECK_TRANSACTION_STATE request header fields (the ones it shares with END_TRANSACTION, plus
// offsetMsgId).
namespace check_header {
using end_header::kCommitLogOffset;
using end_header::kMsgId;
using end_header::kTranStateTableOffset;
using end_header::kTransactionId;
inline constexpr std::string_view kOffsetMsgId = "offsetMsgId";
}  // namespace check_header

// END_TRANSACTION's header (producer → broker; sent one-way). `tranStateTableOffset` and
// `commitLogOffset` locate the half message, `msgId` is its UNIQ_KEY.
struct EndTransactionHeader {
  std::string producer_group;
  std::int64_t tran_state_table_offset = 0;
  std::int64_t commit_log_offset = 0;
  Resolution resolution = Resolution::kUnknown;
  bool from_transaction_check = false;
  std::string msg_id;
  std::string transaction_id;
};
// Every field into `fields`, under RocketMQ's names.
void write(const EndTransactionHeader& header, plugin::v1::ExtFields& fields);
// Required: producerGroup, tranStateTableOffset, commitLogOffset, commitOrRollback, msgId ("the
// custom field <name> is null" when absent; numbers must be numbers).
plugin::v1::Result<EndTransactionHeader> read_end_transaction_header(const plugin::v1::ExtFields& fields);

// CHECK_TRANSACTION_STATE's header (broker → producer; one-way). The body is the half message as
// a stored record, with its real topic and queue; the producer's END answers with these offsets.
struct CheckTransactionStateHeader {
  std::int64_t tran_state_table_offset = 0;
  std::int64_t commit_log_offset = 0;
  std::string msg_id;          // UNIQ_KEY
  std::string transaction_id;  // UNIQ_KEY too, as RocketMQ sends it
  std::string offset_msg_id;   // the half message's offset message id
};
void write(const CheckTransactionStateHeader& header, plugin::v1::ExtFields& fields);
// Required: tranStateTableOffset, commitLogOffset.
plugin::v1::Result<CheckTransactionStateHeader> read_check_transaction_state_header(
    const plugin::v1::ExtFields& fields);

}  // namespace mqkit::protocol::transaction
