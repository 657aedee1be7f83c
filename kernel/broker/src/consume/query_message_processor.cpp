#include "mqkit/broker/consume/query_message_processor.hpp"

#include <algorithm>

#include "header_reader.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {

namespace {
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
// Set by clients looking a message up by its message id (the UNIQ_KEY).
constexpr std::string_view kUniqueKeyQuery = "_UNIQUE_KEY_QUERY";
}  // namespace

std::vector<std::int32_t> QueryMessageProcessor::codes() const { return {rq::kQueryMessage, rq::kViewMessageById}; }

void QueryMessageProcessor::process(RemotingCommand request, Responder responder) {
  if (request.code == rq::kQueryMessage) return query_by_key(request, responder);
  view_by_offset(request, responder);
}

void QueryMessageProcessor::query_by_key(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string topic = fields.required("topic");
  const std::string key = fields.required("key");
  const std::int64_t max_num = fields.required_int("maxNum");
  const std::int64_t begin_ms = fields.required_int("beginTimestamp");
  const std::int64_t end_ms = fields.required_int("endTimestamp");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const std::int32_t limit = context_.config->default_query_max_num;
  // A unique key lookup always asks for the default number: a message id may have been stored
  // more than once (retries), and the client picks among them.
  const std::int32_t max_count = fields.optional_bool(kUniqueKeyQuery, false)
                                     ? limit
                                     : static_cast<std::int32_t>(std::clamp<std::int64_t>(max_num, 0, limit));
  auto result = context_.store->query_by_key(topic, key, max_count, begin_ms, end_ms);
  if (!result) return responder.fail(rc::kSystemError, "query by key failed: " + result.status().message());
  RemotingCommand response;
  response.ext_fields.set("indexLastUpdateTimestamp", result->index_last_update_timestamp);
  response.ext_fields.set("indexLastUpdatePhyoffset", result->index_last_update_commit_offset);
  if (result->records.empty()) {
    response.code = rc::kQueryNotFound;
    response.remark = "can not find message, maybe time range not correct";
  } else {
    response.body_slices = std::move(result->records);
  }
  responder.respond(std::move(response));
}

void QueryMessageProcessor::view_by_offset(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::int64_t offset = fields.required_int("offset");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  auto record = context_.store->read_at(offset);
  if (!record) return responder.fail(rc::kSystemError, "can not find message by the offset, " + std::to_string(offset));
  RemotingCommand response;
  response.body_slices.push_back(std::move(record).value());
  responder.respond(std::move(response));
}

}  // namespace mqkit::broker
