#include "mqkit/broker/consume/store_admin_processor.hpp"

#include <set>
#include <string>

#include "header_reader.hpp"
#include "mqkit/broker/consumer_manager.hpp"
#include "mqkit/broker/topic_config_manager.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/store_admin.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/json_writer.hpp"
#include "mqkit/protocol/store_bodies.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;

void respond_done(const Responder& responder, std::string remark) {
  RemotingCommand response;
  response.remark = std::move(remark);
  responder.respond(std::move(response));
}

// RocketMQ keeps a ConsumerFilterData only for SQL92 subscriptions; queryCq shows it as JSON,
// and "null" for a tag subscription.
std::string filter_data_of(const protocol::SubscriptionData& subscription, const std::string& group) {
  if (subscription.expression_type == "TAG") return "null";
  return protocol::json::write_json([&](protocol::json::Writer& w) {
    w.StartObject();
    protocol::json::key(w, "consumerGroup"), protocol::json::str(w, group);
    protocol::json::key(w, "expression"), protocol::json::str(w, subscription.sub_string);
    protocol::json::key(w, "expressionType"), protocol::json::str(w, subscription.expression_type);
    protocol::json::key(w, "topic"), protocol::json::str(w, subscription.topic);
    w.EndObject();
  });
}

}  // namespace

std::vector<std::int32_t> StoreAdminProcessor::codes() const {
  return {rq::kDeleteExpiredCommitLog, rq::kCleanExpiredConsumeQueue, rq::kCleanUnusedTopic, rq::kQueryConsumeQueue};
}

void StoreAdminProcessor::process(RemotingCommand request, Responder responder) {
  auto* admin = static_cast<plugin::v1::StoreAdmin*>(context_.store->extension(plugin::v1::kStoreAdminId));
  if (admin == nullptr) {
    return responder.fail(rc::kSystemError, "the store plugin of this broker does not support request " +
                                                std::to_string(request.code) + " (it offers no store admin extension)");
  }
  switch (request.code) {
    case rq::kDeleteExpiredCommitLog: return delete_expired_commit_log(*admin, responder);
    case rq::kCleanExpiredConsumeQueue: return clean_expired_consume_queues(*admin, responder);
    case rq::kCleanUnusedTopic: return clean_unused_topics(*admin, responder);
    default: return query_consume_queue(*admin, request, responder);
  }
}

void StoreAdminProcessor::delete_expired_commit_log(plugin::v1::StoreAdmin& admin, const Responder& responder) {
  auto deleted = admin.delete_expired_files();
  if (!deleted) return responder.fail(rc::kSystemError, deleted.status().message());
  respond_done(responder, "deleted " + std::to_string(*deleted) + " expired commit log file(s)");
}

void StoreAdminProcessor::clean_expired_consume_queues(plugin::v1::StoreAdmin& admin, const Responder& responder) {
  auto queues = admin.queues();
  if (!queues) return responder.fail(rc::kSystemError, queues.status().message());
  int dropped = 0;
  for (const plugin::v1::QueueRef& queue : *queues) {
    if (protocol::is_system_topic(queue.topic)) continue;
    auto gone = admin.drop_expired_queue(queue.topic, queue.queue_id);
    if (!gone) return responder.fail(rc::kSystemError, queue.topic + "/" + std::to_string(queue.queue_id) + ": " + gone.status().message());
    dropped += *gone ? 1 : 0;
  }
  kernel::logger("broker")->info("cleanExpiredConsumerQueue by {}: dropped {} consume queue(s)",
                                 responder.channel()->remote_address(), dropped);
  respond_done(responder, "dropped " + std::to_string(dropped) + " expired consume queue(s)");
}

void StoreAdminProcessor::clean_unused_topics(plugin::v1::StoreAdmin& admin, const Responder& responder) {
  auto queues = admin.queues();
  if (!queues) return responder.fail(rc::kSystemError, queues.status().message());
  std::set<std::string> unused;
  for (const plugin::v1::QueueRef& queue : *queues) {
    if (!protocol::is_system_topic(queue.topic) && !context_.topics->find(queue.topic)) unused.insert(queue.topic);
  }
  for (const std::string& topic : unused) {
    if (auto deleted = context_.store->delete_topic(topic); !deleted) {
      return responder.fail(rc::kSystemError, "dropping the queues of unused topic " + topic + ": " + deleted.message());
    }
    kernel::logger("broker")->info("cleanUnusedTopic by {}: dropped the queues of {}, which has no topic config",
                                   responder.channel()->remote_address(), topic);
  }
  respond_done(responder, "dropped the queues of " + std::to_string(unused.size()) + " unused topic(s)");
}

void StoreAdminProcessor::query_consume_queue(plugin::v1::StoreAdmin& admin, const RemotingCommand& request,
                                              const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const QueueRef queue = read_queue(fields);
  const std::int64_t index = fields.required_int("index");
  const std::int64_t count = fields.required_int("count");
  const std::string group = fields.optional("consumerGroup");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  if (count < 0 || count > kMaxQueryConsumeQueueCount) {
    return responder.fail(rc::kSystemError, "count must be 0 to " + std::to_string(kMaxQueryConsumeQueueCount) +
                                                ", got " + std::to_string(count));
  }
  auto units = admin.queue_units(queue.topic, queue.queue_id, index, static_cast<std::int32_t>(count));
  if (!units) {
    // RocketMQ's words for a queue the store does not have.
    const bool missing = units.status().code() == plugin::v1::StatusCode::kNotFound;
    return responder.fail(rc::kSystemError, missing ? std::to_string(queue.queue_id) + "@" + queue.topic + " is not exist!"
                                                    : units.status().message());
  }
  protocol::QueryConsumeQueueResponse body;
  body.max_queue_index = units->max_offset;
  body.min_queue_index = units->min_offset;
  if (!group.empty()) {
    body.subscription_data = context_.consumers->subscription(group, queue.topic);
    body.filter_data = body.subscription_data ? filter_data_of(*body.subscription_data, group)
                                              : group + "@" + queue.topic + " is not online!";
  }
  RemotingCommand response;
  if (index < units->min_offset || index >= units->max_offset) {
    // RocketMQ answers the queue's bounds and this remark when the index has no unit.
    response.remark = "Index " + std::to_string(index) + " of " + std::to_string(queue.queue_id) + "@" + queue.topic +
                      " is not exist!";
  }
  for (const plugin::v1::QueueUnit& unit : units->units) {
    body.queue_data.push_back({unit.commit_offset, unit.size, unit.tags_code, std::nullopt, std::nullopt, false, std::nullopt});
  }
  protocol::set_body(response, protocol::encode(body));
  responder.respond(std::move(response));
}

}  // namespace mqkit::broker
