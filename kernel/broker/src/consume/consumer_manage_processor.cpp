#include "mqkit/broker/consume/consumer_manage_processor.hpp"

#include "header_reader.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "offset_commit.hpp"

namespace mqkit::broker {

namespace {
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
}  // namespace

std::vector<std::int32_t> ConsumerManageProcessor::codes() const {
  return {rq::kGetConsumerListByGroup, rq::kQueryConsumerOffset, rq::kUpdateConsumerOffset};
}

void ConsumerManageProcessor::process(RemotingCommand request, Responder responder) {
  switch (request.code) {
    case rq::kGetConsumerListByGroup: return consumer_list(request, responder);
    case rq::kQueryConsumerOffset: return query_offset(request, responder);
    default: return update_offset(request, responder);
  }
}

void ConsumerManageProcessor::consumer_list(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("consumerGroup");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  protocol::ConsumerIdList list{context_.consumers->client_ids(group)};
  if (list.consumer_id_list.empty()) return responder.fail(rc::kSystemError, "no consumer for this group, " + group);
  RemotingCommand response;
  protocol::set_body(response, protocol::encode(list));
  responder.respond(std::move(response));
}

void ConsumerManageProcessor::query_offset(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("consumerGroup");
  const QueueRef queue = read_queue(fields);
  const bool zero_if_not_found = fields.optional_bool("setZeroIfNotFound", true);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  std::optional<std::int64_t> offset = context_.offsets->query(group, queue.topic, queue.queue_id);
  if (!offset || *offset < 0) {
    // RocketMQ also requires offset 0 to be in memory; every queue this broker reads from
    // counts as such.
    if (zero_if_not_found && context_.store->min_offset(queue.topic, queue.queue_id) <= 0) {
      offset = 0;
    } else {
      return responder.fail(rc::kQueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
    }
  }
  RemotingCommand response;
  response.ext_fields.set("offset", *offset);
  responder.respond(std::move(response));
}

void ConsumerManageProcessor::update_offset(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("consumerGroup");
  const QueueRef queue = read_queue(fields);
  const std::int64_t offset = fields.required_int("commitOffset");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  commit_client_offset(*context_.offsets, group, queue.topic, queue.queue_id, offset);
  responder.respond(RemotingCommand{});
}

}  // namespace mqkit::broker
