#include "mqkit/broker/consume/client_manage_processor.hpp"

#include "header_reader.hpp"
#include "mqkit/protocol/subscription_expression.hpp"
#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace {
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
constexpr std::string_view kClustering = "CLUSTERING";
}  // namespace

std::vector<std::int32_t> ClientManageProcessor::codes() const {
  return {rq::kHeartBeat, rq::kUnregisterClient, rq::kCheckClientConfig};
}

void ClientManageProcessor::process(RemotingCommand request, Responder responder) {
  if (request.code == rq::kHeartBeat) return heartbeat(request, responder);
  if (request.code == rq::kCheckClientConfig) return check_client_config(request, responder);
  unregister_client(request, responder);
}

void ClientManageProcessor::heartbeat(const RemotingCommand& request, const Responder& responder) {
  auto data = protocol::decode_heartbeat(protocol::body_text(request));
  if (!data) return responder.fail(rc::kSystemError, "bad heartbeat body: " + data.status().message());
  const ClientConnection connection{responder.channel(), data->client_id, request.language, request.version,
                                    context_.clock()};
  for (auto& consumer : data->consumer_data_set) {
    for (auto& subscription : consumer.subscription_data_set) protocol::normalize_subscription(subscription);
    // As in RocketMQ, a group without settings (auto creation off) is still registered: its
    // pulls are refused with SUBSCRIPTION_GROUP_NOT_EXIST, which tells the user what is wrong.
    const auto group = context_.groups->find_or_create(consumer.group_name);
    if (group && consumer.message_model == kClustering) {
      const std::string retry_topic = protocol::retry_topic(consumer.group_name);
      if (auto created = context_.topics->ensure(retry_topic, group->retry_queue_nums,
                                                 protocol::perm::kRead | protocol::perm::kWrite);
          !created) {
        kernel::logger("broker")->warn("cannot create {} for {}: {}", retry_topic, data->client_id,
                                       created.status().to_string());
      }
    }
    if (context_.consumers->register_consumer(consumer, connection)) {
      kernel::logger("broker")->info("consumer {} joined group {} from {}", data->client_id, consumer.group_name,
                                     responder.channel()->remote_address());
    }
  }
  for (const auto& group : data->producer_groups) context_.producers->register_producer(group, connection);
  responder.respond(RemotingCommand{});
}

void ClientManageProcessor::unregister_client(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string client_id = fields.required("clientID");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const std::uint64_t channel_id = responder.channel()->id();
  if (const auto group = request.ext_fields.get("producerGroup")) {
    context_.producers->unregister_producer(std::string(*group), channel_id);
  }
  if (const auto group = request.ext_fields.get("consumerGroup")) {
    context_.consumers->unregister_consumer(std::string(*group), channel_id);
    kernel::logger("broker")->info("consumer {} left group {}", client_id, *group);
  }
  responder.respond(RemotingCommand{});
}

void ClientManageProcessor::check_client_config(const RemotingCommand& request, const Responder& responder) {
  auto body = protocol::decode_check_client_request(protocol::body_text(request));
  if (!body) return responder.fail(rc::kSystemError, "bad check client config body: " + body.status().message());
  if (!body->subscription_data || protocol::is_tag_expression(body->subscription_data->expression_type)) {
    return responder.respond(RemotingCommand{});
  }
  const protocol::SubscriptionData& subscription = *body->subscription_data;
  if (!context_.config->enable_property_filter) {
    return responder.fail(rc::kSystemError,
                          "The broker does not support consumer to filter message by " + subscription.expression_type);
  }
  if (subscription.expression_type != filter::kSql92ExpressionType) {
    return responder.fail(rc::kSubscriptionParseFailed,
                          "expression type " + subscription.expression_type + " is not supported (TAG or SQL92)");
  }
  if (auto compiled = filter::SqlFilter::compile(subscription.sub_string); !compiled) {
    kernel::logger("broker")->warn("consumer {} of group {}: SQL92 subscription to {} refused: {}", body->client_id,
                                   body->group, subscription.topic, compiled.status().message());
    return responder.fail(rc::kSubscriptionParseFailed, compiled.status().message());
  }
  responder.respond(RemotingCommand{});
}

}  // namespace mqkit::broker
