#include "send_response.hpp"

#include <string>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/message_trace.hpp"

namespace mqkit::broker {

namespace rc = protocol::response_code;
using plugin::v1::RemotingCommand;
using plugin::v1::StatusCode;

namespace {

RemotingCommand failure(const plugin::v1::Status& status) {
  RemotingCommand response;
  switch (status.code()) {
    case StatusCode::kUnavailable:
      response.code = rc::kServiceNotAvailable;
      break;
    case StatusCode::kInvalidArgument:
      response.code = rc::kMessageIllegal;
      break;
    default:
      response.code = rc::kSystemError;
      break;
  }
  response.remark = status.message();
  return response;
}

}  // namespace

RemotingCommand send_response(const plugin::v1::Result<AppendedMessages>& appended,
                              const plugin::v1::HostAddress& store_host, std::int32_t queue_id,
                              const BrokerConfig& config) {
  if (!appended) return failure(appended.status());
  RemotingCommand response;
  // As RocketMQ: the slave's outcome, when not OK, replaces the flush's. The records are stored
  // either way, so the answer still names them.
  switch (appended->replica) {
    case ReplicaOutcome::kSlaveNotAvailable:
      response.code = rc::kSlaveNotAvailable;
      break;
    case ReplicaOutcome::kFlushSlaveTimeout:
      response.code = rc::kFlushSlaveTimeout;
      break;
    case ReplicaOutcome::kOk:
      response.code = appended->result.flush_timed_out ? rc::kFlushDiskTimeout : rc::kSuccess;
      break;
  }
  std::string ids;
  ids.reserve(appended->commit_offsets.size() * 33);  // 32 hex digits and a comma each
  for (const std::int64_t offset : appended->commit_offsets) {
    if (!ids.empty()) ids += ',';
    ids += plugin::v1::make_offset_message_id(store_host, offset);
  }
  set_send_result_fields(response, std::move(ids), queue_id, appended->result.queue_offset, config);
  return response;
}

void set_send_result_fields(RemotingCommand& response, std::string msg_id, std::int32_t queue_id,
                            std::int64_t queue_offset, const BrokerConfig& config) {
  response.ext_fields.reserve(response.ext_fields.size() + 5);
  response.ext_fields.set("msgId", std::move(msg_id));
  response.ext_fields.set("queueId", static_cast<std::int64_t>(queue_id));
  response.ext_fields.set("queueOffset", queue_offset);
  response.ext_fields.set(std::string(protocol::property::kMsgRegion), config.region_id);
  response.ext_fields.set(std::string(protocol::property::kTraceSwitch), std::string(config.trace_on ? "true" : "false"));
}

}  // namespace mqkit::broker
