// Message trace data: RocketMQ 4.x's client-side trace records (org.apache.rocketmq.client.trace,
// rocketmq-facts §5.11) and their text format, shared by the SDK's trace hooks (which write them)
// and mqadmin queryMsgTraceById (which reads them).
//
// A trace message's body is a run of records, each ended by char 2; a record's fields are
// separated by char 1, its first field naming its type:
//
//   Pub            type, timestamp, regionId, group, topic, msgId, tags, keys, storeHost, bodyLength,
//                  costTime, msgType (MessageType ordinal), offsetMsgId, success
//   SubBefore      type, timestamp, regionId, group, requestId, msgId, retryTimes, keys
//   SubAfter       type, requestId, msgId, costTime, success, keys, contextCode, timestamp, group
//   EndTransaction type, timestamp, regionId, group, topic, msgId, tags, keys, storeHost, msgType,
//                  transactionId, transactionState (COMMIT_MESSAGE / ROLLBACK_MESSAGE / UNKNOW),
//                  fromTransactionCheck
//
// Booleans are "true"/"false". As Java writes an absent tag or key as the text "null", so does the
// encoder (a Java reader needs SubBefore's last field to be non-empty), and the decoder reads "null"
// back as absent. The decoder also reads the older and newer layouts RocketMQ's does: Pub without
// offsetMsgId or with a trailing clientHost, SubAfter without contextCode or without timestamp and
// group. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/types.hpp"
#include "mqkit/protocol/message_trace.hpp"

namespace mqkit::client::trace {

inline constexpr char kContentSeparator = '\x01';  // TraceConstants.CONTENT_SPLITOR: between fields
inline constexpr char kFieldSeparator = '\x02';    // TraceConstants.FIELD_SPLITOR: after each record
inline constexpr std::string_view kDefaultTraceTopic = "RMQ_SYS_TRACE_TOPIC";
inline constexpr std::string_view kDefaultRegionId = protocol::kDefaultRegionId;
// Inner trace producers are named "<prefix>-<traced group>-<PRODUCE|CONSUME>-<n>".
inline constexpr std::string_view kTraceProducerGroupPrefix = "_INNER_TRACE_PRODUCER";
// Their client instance (TraceConstants.TRACE_INSTANCE_NAME, followed by "_<name servers>").
inline constexpr std::string_view kTraceInstanceName = "PID_CLIENT_INNER_TRACE_PRODUCER";

// TraceType; written by name.
enum class TraceType : std::uint8_t { kPub, kSubBefore, kSubAfter, kEndTransaction };
// "Pub", "SubBefore", "SubAfter", "EndTransaction".
std::string_view to_string(TraceType type) noexcept;

// RocketMQ's MessageType; written as its ordinal.
enum class TraceMessageType : std::uint8_t {
  kNormal = 0,             // Normal_Msg
  kTransactionHalf = 1,    // Trans_Msg_Half
  kTransactionCommit = 2,  // Trans_msg_Commit (every EndTransaction record)
  kDelay = 3,              // Delay_Msg
};

// ConsumeReturnType: how a listener call ended; SubAfter's contextCode is its ordinal.
enum class ConsumeReturnType : std::uint8_t { kSuccess, kTimeOut, kException, kReturnNull, kFailed };

// One message of a record (TraceBean).
struct TraceBean {
  std::string topic{};
  std::string msg_id{};
  std::string offset_msg_id{};
  std::string tags{};
  std::string keys{};  // space-separated, as the KEYS property
  std::string store_host{};
  std::string client_host{};  // read from Pub records that carry it; never written
  std::int32_t retry_times = 0;
  std::int32_t body_length = 0;
  TraceMessageType msg_type = TraceMessageType::kNormal;
  std::string transaction_id{};
  std::string transaction_state{};  // LocalTransactionState's RocketMQ name
  bool from_transaction_check = false;

  bool operator==(const TraceBean&) const = default;
};

// One trace record (TraceContext). Pub and EndTransaction have one bean; SubBefore and SubAfter one
// per consumed message (each bean is its own record in the text, sharing the context's fields).
struct TraceContext {
  TraceType type = TraceType::kPub;
  std::int64_t timestamp_ms = 0;
  std::string region_id{};
  std::string group{};
  std::int32_t cost_ms = 0;
  bool success = true;
  std::string request_id{};  // pairs a SubBefore with its SubAfter
  std::int32_t context_code = 0;  // SubAfter: ConsumeReturnType ordinal
  std::vector<TraceBean> beans{};

  bool operator==(const TraceContext&) const = default;
};

// What a context adds to a trace message: its text and the keys the message is indexed under
// (every bean's msgId and keys, without repeats), so that a query by message id on the trace topic
// finds it (TraceTransferBean).
struct TraceTransfer {
  std::string data{};
  std::vector<std::string> keys{};
};

TraceTransfer encode_trace_context(const TraceContext& context);
// Every record of a trace message body, one context (with one bean) per record; records of other
// types (a newer client's Recall, say) are skipped, as RocketMQ's decoder skips them.
// InvalidArgument naming the record when a record has too few fields or a malformed number.
Result<std::vector<TraceContext>> decode_trace_data(std::string_view data);

}  // namespace mqkit::client::trace
