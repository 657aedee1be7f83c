#include "mqkit/broker/consume/admin_broker_processor.hpp"

#include <algorithm>

#include "consumer_status.hpp"
#include "header_reader.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/broker/consume/admin_bodies.hpp"
#include "mqkit/broker/send/schedule_message_service.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/broker_stats_data.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/connection.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/java_properties.hpp"
#include "mqkit/protocol/topic_attributes.hpp"
#include "mqkit/protocol/validation.hpp"
#include "pop_service.hpp"
#include "queue_stats.hpp"
#include "reset_offset.hpp"

namespace mqkit::broker {

namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;

void respond_value(const Responder& responder, std::string name, std::int64_t value) {
  RemotingCommand response;
  response.ext_fields.set(std::move(name), value);
  responder.respond(std::move(response));
}

void respond_body(const Responder& responder, std::string_view body) {
  RemotingCommand response;
  protocol::set_body(response, body);
  responder.respond(std::move(response));
}

// Applies an ACL change; `failed` is the request's RocketMQ failure code.
void change_acl(const BrokerContext& context, const acl::AccessControl::Edit& edit, std::int32_t failed,
                const Responder& responder) {
  if (!context.access_control) {
    return responder.fail(failed, "ACL is not enabled on this broker (acl_enable = false in broker.toml)");
  }
  if (auto changed = context.access_control->change(edit); !changed) return responder.fail(failed, changed.message());
  responder.respond(RemotingCommand{});
}

void respond_status(const Responder& responder, const plugin::v1::Status& status) {
  if (!status) return responder.fail(rc::kSystemError, status.message());
  responder.respond(RemotingCommand{});
}

protocol::Connection connection_of(const ClientConnection& c) {
  return {c.client_id, c.channel ? c.channel->remote_address() : std::string(),
          std::string(plugin::v1::to_string(c.language)), c.version};
}

protocol::ConsumerConnection consumer_connection_of(const ConsumerGroupInfo& group) {
  protocol::ConsumerConnection out;
  for (const auto& [channel_id, c] : group.connections) out.connection_set.push_back(connection_of(c));
  out.subscription_table = group.subscriptions;
  out.consume_type = group.consume_type;
  out.message_model = group.message_model;
  out.consume_from_where = group.consume_from_where;
  return out;
}

}  // namespace

const std::vector<std::pair<std::int32_t, AdminBrokerProcessor::Handler>>& AdminBrokerProcessor::handlers() {
  static const std::vector<std::pair<std::int32_t, Handler>> kHandlers = {
      {rq::kUpdateAndCreateTopic, &AdminBrokerProcessor::update_and_create_topic},
      {rq::kUpdateAndCreateTopicList, &AdminBrokerProcessor::update_and_create_topic_list},
      {rq::kDeleteTopicInBroker, &AdminBrokerProcessor::delete_topic},
      {rq::kGetAllTopicConfig, &AdminBrokerProcessor::all_topic_config},
      {rq::kGetTopicConfig, &AdminBrokerProcessor::topic_config},
      {rq::kGetMaxOffset, &AdminBrokerProcessor::max_offset},
      {rq::kGetMinOffset, &AdminBrokerProcessor::min_offset},
      {rq::kSearchOffsetByTimestamp, &AdminBrokerProcessor::search_offset_by_time},
      {rq::kGetEarliestMsgStoreTime, &AdminBrokerProcessor::earliest_message_time},
      {rq::kLockBatchMq, &AdminBrokerProcessor::lock_batch},
      {rq::kUnlockBatchMq, &AdminBrokerProcessor::unlock_batch},
      {rq::kGetConsumeStats, &AdminBrokerProcessor::consume_stats},
      {rq::kGetBrokerConsumeStats, &AdminBrokerProcessor::broker_consume_stats},
      {rq::kGetTopicStatsInfo, &AdminBrokerProcessor::topic_stats},
      {rq::kGetBrokerRuntimeInfo, &AdminBrokerProcessor::runtime_info},
      {rq::kViewBrokerStatsData, &AdminBrokerProcessor::view_stats},
      {rq::kQueryTopicConsumeByWho, &AdminBrokerProcessor::topic_consumed_by},
      {rq::kInvokeBrokerToResetOffset, &AdminBrokerProcessor::reset_offset},
      {rq::kUpdateAndCreateSubscriptionGroup, &AdminBrokerProcessor::update_subscription_group},
      {rq::kUpdateAndCreateSubscriptionGroupList, &AdminBrokerProcessor::update_subscription_group_list},
      {rq::kDeleteSubscriptionGroup, &AdminBrokerProcessor::delete_subscription_group},
      {rq::kGetAllSubscriptionGroupConfig, &AdminBrokerProcessor::all_subscription_groups},
      {rq::kGetSubscriptionGroupConfig, &AdminBrokerProcessor::subscription_group},
      {rq::kGetAllConsumerOffset, &AdminBrokerProcessor::all_consumer_offsets},
      {rq::kGetAllDelayOffset, &AdminBrokerProcessor::all_delay_offsets},
      {rq::kGetConsumerConnectionList, &AdminBrokerProcessor::consumer_connections},
      {rq::kGetProducerConnectionList, &AdminBrokerProcessor::producer_connections},
      {rq::kGetAllProducerInfo, &AdminBrokerProcessor::all_producers},
      {rq::kGetConsumerRunningInfo, &AdminBrokerProcessor::consumer_running_info},
      {rq::kInvokeBrokerToGetConsumerStatus, &AdminBrokerProcessor::consumer_status},
      {rq::kGetBrokerConfig, &AdminBrokerProcessor::broker_config},
      {rq::kUpdateAndCreateAclConfig, &AdminBrokerProcessor::update_acl_account},
      {rq::kDeleteAclConfig, &AdminBrokerProcessor::delete_acl_account},
      {rq::kUpdateGlobalWhiteAddrsConfig, &AdminBrokerProcessor::update_global_white_addresses},
      {rq::kGetBrokerClusterAclInfo, &AdminBrokerProcessor::acl_version},
      {rq::kUpdateBrokerConfig, &AdminBrokerProcessor::update_broker_config},
      {rq::kGetBrokerHaStatus, &AdminBrokerProcessor::ha_status},
  };
  return kHandlers;
}

std::vector<std::int32_t> AdminBrokerProcessor::codes() const {
  std::vector<std::int32_t> codes;
  for (const auto& [code, handler] : handlers()) codes.push_back(code);
  return codes;
}

void AdminBrokerProcessor::process(RemotingCommand request, Responder responder) {
  const auto& all = handlers();
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& h) { return h.first == request.code; });
  if (it == all.end()) {
    return responder.fail(rc::kRequestCodeNotSupported, " request type " + std::to_string(request.code) + " not supported");
  }
  (this->*(it->second))(request, responder);
}

// ----------------------------------------------------------------------------------------------
// Topics

void AdminBrokerProcessor::update_and_create_topic(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  protocol::TopicConfig topic;
  topic.topic_name = fields.required("topic");
  topic.read_queue_nums = fields.required_int32("readQueueNums");
  topic.write_queue_nums = fields.required_int32("writeQueueNums");
  topic.perm = fields.required_int32("perm");
  topic.topic_filter_type = fields.optional("topicFilterType", "SINGLE_TAG");
  topic.topic_sys_flag = static_cast<std::int32_t>(fields.optional_int("topicSysFlag", 0));
  topic.order = fields.optional_bool("order", false);
  const std::string attribute_changes = fields.optional("attributes", "");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  if (const auto refused = refuse_topic_update(topic)) return responder.fail(rc::kSystemError, *refused);
  auto changes = protocol::parse_attribute_changes(attribute_changes);
  if (!changes) return responder.fail(rc::kInvalidParameter, changes.status().message());
  topic.attributes = std::move(changes).value();
  if (auto refused = with_altered_attributes(topic); !refused) return responder.fail(rc::kInvalidParameter, refused.message());
  const plugin::v1::Status updated = context_.topics->update(topic);
  if (updated) {
    kernel::logger("broker")->info("topic {} created or updated by {}: {} read / {} write queues, perm {}",
                                   topic.topic_name, responder.channel()->remote_address(), topic.read_queue_nums,
                                   topic.write_queue_nums, topic.perm);
    if (context_.register_topics_now) context_.register_topics_now({topic.topic_name});
  }
  respond_status(responder, updated);
}

// `topic` arrives with the attribute changes of its request; it leaves with the attributes the
// topic will have, its existing ones changed by them (RocketMQ's AttributeUtil).
plugin::v1::Status AdminBrokerProcessor::with_altered_attributes(protocol::TopicConfig& topic) const {
  const auto existing = context_.topics->find(topic.topic_name);
  auto altered = protocol::alter_topic_attributes(!existing, existing ? existing->attributes : protocol::AttributeMap{},
                                                  topic.attributes);
  if (!altered) return altered.status().with_context("topic " + topic.topic_name);
  topic.attributes = std::move(altered).value();
  return plugin::v1::Status::ok();
}

std::optional<std::string> AdminBrokerProcessor::refuse_topic_update(const protocol::TopicConfig& topic) const {
  if (topic.topic_name == context_.config->cluster_name) {
    return "the topic[" + topic.topic_name + "] is conflict with system reserved words.";
  }
  if (protocol::is_system_topic(topic.topic_name)) {
    return "The topic[" + topic.topic_name + "] is conflict with system topic.";
  }
  return std::nullopt;
}

// RocketMQ 5's batch form. RocketMQ answers SUCCESS without applying anything as soon as one
// topic of the list is unchanged; here every topic is applied (or, when one is refused, none).
void AdminBrokerProcessor::update_and_create_topic_list(const RemotingCommand& request, const Responder& responder) {
  auto topics = protocol::decode_topic_config_list(protocol::body_text(request));
  if (!topics) return responder.fail(rc::kInvalidParameter, topics.status().message());
  if (topics->empty()) return responder.fail(rc::kInvalidParameter, "topicConfigList is empty");
  std::string names;
  std::vector<std::string> changed;
  for (auto& topic : *topics) {
    if (const auto refused = refuse_topic_update(topic)) return responder.fail(rc::kInvalidParameter, *refused);
    if (auto refused = with_altered_attributes(topic); !refused) return responder.fail(rc::kInvalidParameter, refused.message());
    names += topic.topic_name + ";";
    changed.push_back(topic.topic_name);
  }
  const plugin::v1::Status updated = context_.topics->update_all(std::move(topics).value());
  if (!updated) return responder.fail(rc::kInvalidParameter, updated.message());
  kernel::logger("broker")->info("topics {} created or updated by {}", names, responder.channel()->remote_address());
  if (context_.register_topics_now) context_.register_topics_now(changed);
  respond_status(responder, updated);
}

void AdminBrokerProcessor::delete_topic(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string topic = fields.required("topic");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  if (protocol::is_system_topic(topic)) {
    return responder.fail(rc::kSystemError, "The topic[" + topic + "] is conflict with system topic.");
  }
  kernel::logger("broker")->info("topic {} deleted by {}", topic, responder.channel()->remote_address());
  if (auto removed = context_.topics->remove(topic); !removed) return respond_status(responder, removed);
  context_.offsets->remove_topic(topic);
  if (context_.pops != nullptr) context_.pops->forget_topic(topic);
  respond_status(responder, context_.store->delete_topic(topic));
}

void AdminBrokerProcessor::all_topic_config(const RemotingCommand&, const Responder& responder) {
  respond_body(responder, protocol::encode(context_.topics->snapshot()));
}

void AdminBrokerProcessor::topic_config(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string topic = fields.required("topic");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const auto config = context_.topics->find(topic);
  if (!config) return responder.fail(rc::kTopicNotExist, "No topic in this broker. topic: " + topic);
  respond_body(responder, protocol::encode(*config));
}

// ----------------------------------------------------------------------------------------------
// Queue offsets

void AdminBrokerProcessor::max_offset(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const QueueRef q = read_queue(fields);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  respond_value(responder, "offset", context_.store->max_offset(q.topic, q.queue_id));
}

void AdminBrokerProcessor::min_offset(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const QueueRef q = read_queue(fields);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  respond_value(responder, "offset", context_.store->min_offset(q.topic, q.queue_id));
}

void AdminBrokerProcessor::search_offset_by_time(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const QueueRef q = read_queue(fields);
  const std::int64_t timestamp = fields.required_int("timestamp");
  // 5.x clients may ask for the last message stored at or before the time instead.
  const bool upper = fields.optional("boundaryType", "lower") == "upper";
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  auto offset = context_.store->offset_by_time(q.topic, q.queue_id, timestamp,
                                               upper ? plugin::v1::TimeBoundary::kUpper : plugin::v1::TimeBoundary::kLower);
  if (!offset) return responder.fail(rc::kSystemError, offset.status().message());
  respond_value(responder, "offset", *offset);
}

void AdminBrokerProcessor::earliest_message_time(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const QueueRef q = read_queue(fields);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  // -1 when the queue holds nothing, as RocketMQ answers.
  respond_value(responder, "timestamp", context_.store->earliest_message_time(q.topic, q.queue_id).value_or(-1));
}

// ----------------------------------------------------------------------------------------------
// Ordered-consumption locks

void AdminBrokerProcessor::lock_batch(const RemotingCommand& request, const Responder& responder) {
  auto body = protocol::decode_lock_batch_request(protocol::body_text(request));
  if (!body) return responder.fail(rc::kSystemError, body.status().message());
  protocol::LockBatchResponse locked;
  locked.lock_ok_mq_set = context_.locks->try_lock(body->consumer_group, body->mq_set, body->client_id, context_.clock());
  if (locked.lock_ok_mq_set.size() < body->mq_set.size()) {
    kernel::logger("broker")->debug("{} of group {} locked {} of {} queues", body->client_id, body->consumer_group,
                                    locked.lock_ok_mq_set.size(), body->mq_set.size());
  }
  respond_body(responder, protocol::encode(locked));
}

void AdminBrokerProcessor::unlock_batch(const RemotingCommand& request, const Responder& responder) {
  auto body = protocol::decode_lock_batch_request(protocol::body_text(request));
  if (!body) return responder.fail(rc::kSystemError, body.status().message());
  context_.locks->unlock(body->consumer_group, body->mq_set, body->client_id);
  responder.respond(RemotingCommand{});
}

// ----------------------------------------------------------------------------------------------
// Statistics

void AdminBrokerProcessor::consume_stats(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("consumerGroup");
  const std::string topic = fields.optional("topic");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  respond_body(responder, protocol::encode(broker::consume_stats(context_, group, topic)));
}

void AdminBrokerProcessor::broker_consume_stats(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const bool only_ordered = fields.optional_bool("isOrder", false);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  respond_body(responder, protocol::encode(broker::broker_consume_stats(context_, only_ordered)));
}

void AdminBrokerProcessor::topic_stats(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string name = fields.required("topic");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const auto topic = context_.topics->find(name);
  if (!topic) return responder.fail(rc::kTopicNotExist, "topic[" + name + "] not exist");
  respond_body(responder, protocol::encode(broker::topic_stats(context_, *topic)));
}

void AdminBrokerProcessor::ha_status(const RemotingCommand&, const Responder& responder) {
  if (!context_.ha_runtime_info) return responder.fail(rc::kSystemError, "this broker runs no replication service");
  auto info = context_.ha_runtime_info();
  if (!info) return responder.fail(rc::kSystemError, "Can not get HARuntimeInfo: " + info.status().message());
  respond_body(responder, protocol::encode(*info));
}

void AdminBrokerProcessor::runtime_info(const RemotingCommand&, const Responder& responder) {
  respond_body(responder, protocol::encode(broker::runtime_info(context_)));
}

void AdminBrokerProcessor::view_stats(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string name = fields.required("statsName");
  const std::string key = fields.required("statsKey");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const auto windows = context_.stats->view(name, key, context_.config->cluster_name, context_.clock());
  if (!windows) return responder.fail(rc::kSystemError, "The stats <" + name + "> <" + key + "> not exist");
  respond_body(responder, protocol::encode(*windows));
}

// Groups with a live consumer subscribed to the topic and groups with offsets on it (RocketMQ's
// queryTopicConsumeByWho), so a group that is offline still shows.
void AdminBrokerProcessor::topic_consumed_by(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string topic = fields.required("topic");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  protocol::GroupList groups{context_.consumers->groups_subscribing(topic)};
  groups.group_list.merge(context_.offsets->groups_of_topic(topic));
  respond_body(responder, protocol::encode(groups));
}

// ----------------------------------------------------------------------------------------------
// Plain ACL (docs/acl.md): each change is written to the ACL file and in force at once.

void AdminBrokerProcessor::update_acl_account(const RemotingCommand& request, const Responder& responder) {
  const auto& fields = request.ext_fields;
  acl::AccountUpdate update;
  update.access_key = std::string(fields.get("accessKey").value_or(""));
  const auto text = [&](const char* name) -> std::optional<std::string> {
    const auto value = fields.get(name);
    return value ? std::optional<std::string>(std::string(*value)) : std::nullopt;
  };
  update.secret_key = text("secretKey");
  update.white_remote_address = text("whiteRemoteAddress");
  update.default_topic_perm = text("defaultTopicPerm");
  update.default_group_perm = text("defaultGroupPerm");
  if (const auto admin = fields.get("admin")) update.admin = *admin == "true";
  if (const auto topics = fields.get("topicPerms")) update.topic_perms = protocol::comma_list(*topics);
  if (const auto groups = fields.get("groupPerms")) update.group_perms = protocol::comma_list(*groups);
  change_acl(context_, [&](const kernel::ConfigDocument& file) { return acl::acl_text_with_account(file, update); },
             rc::kUpdateAndCreateAclConfigFailed, responder);
}

void AdminBrokerProcessor::delete_acl_account(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string access_key = fields.required("accessKey");
  if (!fields.ok()) return responder.fail(rc::kDeleteAclConfigFailed, fields.error());
  change_acl(context_, [&](const kernel::ConfigDocument& file) { return acl::acl_text_without_account(file, access_key); },
             rc::kDeleteAclConfigFailed, responder);
}

void AdminBrokerProcessor::update_global_white_addresses(const RemotingCommand& request, const Responder& responder) {
  const std::vector<std::string> addresses = protocol::comma_list(request.ext_fields.get("globalWhiteAddrs").value_or(""));
  change_acl(context_,
             [&](const kernel::ConfigDocument& file) { return acl::acl_text_with_global_white_addresses(file, addresses); },
             rc::kUpdateGlobalWhiteAddrsConfigFailed, responder);
}

// RocketMQ 4's GET_BROKER_CLUSTER_ACL_INFO (mqadmin clusterAclConfigVersion): the ACL file's
// version and where it lives, in the response header.
void AdminBrokerProcessor::acl_version(const RemotingCommand&, const Responder& responder) {
  if (!context_.access_control) {
    return responder.fail(rc::kSystemError, "ACL is not enabled on this broker (acl_enable = false in broker.toml)");
  }
  const auto rules = context_.access_control->rules();
  const protocol::DataVersion version{.timestamp = rules->version_timestamp_ms, .counter = rules->version_counter};
  RemotingCommand response;
  response.ext_fields.set("version", protocol::encode(version));
  response.ext_fields.set("allAclFileVersion",
                          protocol::encode_data_versions({{context_.access_control->file().string(), version}}));
  response.ext_fields.set("brokerName", context_.config->broker_name);
  response.ext_fields.set("brokerAddr", context_.config->address());
  response.ext_fields.set("clusterName", context_.config->cluster_name);
  responder.respond(std::move(response));
}

void AdminBrokerProcessor::reset_offset(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  ResetRequest reset;
  reset.topic = fields.required("topic");
  reset.group = fields.required("group");
  reset.timestamp_ms = fields.required_int("timestamp");
  reset.force = fields.optional_bool("isForce", true);
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const auto topic = context_.topics->find(reset.topic);
  if (!topic) {
    return responder.fail(rc::kSystemError,
                          "[reset-offset] reset offset failed, no topic in this broker. topic=" + reset.topic);
  }
  // A mistyped group would otherwise get offsets of its own; RocketMQ refuses a group without
  // committed offsets, mqkit also accepts a group it knows otherwise (settings, live members).
  if (context_.offsets->offsets(reset.group, reset.topic).empty() && !context_.groups->find(reset.group) &&
      !context_.consumers->find(reset.group)) {
    return responder.fail(rc::kSystemError, "THe consumer group <" + reset.group + "> not exist");
  }
  const QueueOffsets offsets = reset_offsets(context_, *topic, reset);
  const std::size_t told = notify_consumers_of_reset(context_, reset, offsets);
  kernel::logger("broker")->info("offsets of group {} on {} reset to time {} by {}; {} online consumers told",
                                 reset.group, reset.topic, reset.timestamp_ms, responder.channel()->remote_address(),
                                 told);
  respond_body(responder, encode_reset_offset_body(offsets, request.language));
}

// ----------------------------------------------------------------------------------------------
// Consumer groups

void AdminBrokerProcessor::update_subscription_group(const RemotingCommand& request, const Responder& responder) {
  auto group = protocol::decode_subscription_group(protocol::body_text(request));
  if (!group) return responder.fail(rc::kSystemError, group.status().message());
  kernel::logger("broker")->info("group {} created or updated by {}", group->group_name,
                                 responder.channel()->remote_address());
  respond_status(responder, context_.groups->update(std::move(group).value()));
}

void AdminBrokerProcessor::update_subscription_group_list(const RemotingCommand& request, const Responder& responder) {
  auto groups = protocol::decode_subscription_group_list(protocol::body_text(request));
  if (!groups) return responder.fail(rc::kInvalidParameter, groups.status().message());
  if (groups->empty()) return responder.fail(rc::kInvalidParameter, "groupConfigList is empty");
  std::string names;
  for (const auto& group : *groups) names += group.group_name + ";";
  const plugin::v1::Status updated = context_.groups->update_all(std::move(groups).value());
  if (!updated) return responder.fail(rc::kInvalidParameter, updated.message());
  kernel::logger("broker")->info("groups {} created or updated by {}", names, responder.channel()->remote_address());
  respond_status(responder, updated);
}

void AdminBrokerProcessor::delete_subscription_group(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("groupName");
  const bool clean_offsets = fields.optional_bool("cleanOffset", false);  // 5.x admin tools
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  kernel::logger("broker")->info("group {} deleted by {}", group, responder.channel()->remote_address());
  if (clean_offsets) {
    context_.offsets->remove_group(group);
    if (context_.pops != nullptr) context_.pops->forget_group(group);
  }
  respond_status(responder, context_.groups->remove(group));
}

void AdminBrokerProcessor::subscription_group(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("group");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  // As RocketMQ's findSubscriptionGroupConfig: a group unknown here is created when the broker
  // creates groups on demand.
  const auto config = context_.groups->find_or_create(group);
  if (!config) return responder.fail(rc::kSubscriptionGroupNotExist, "No group in this broker");
  respond_body(responder, protocol::encode_subscription_group(*config));
}

void AdminBrokerProcessor::all_subscription_groups(const RemotingCommand&, const Responder& responder) {
  respond_body(responder, protocol::encode_subscription_group_table(context_.groups->all()));
}

void AdminBrokerProcessor::all_consumer_offsets(const RemotingCommand&, const Responder& responder) {
  respond_body(responder, context_.offsets->encode());
}

void AdminBrokerProcessor::all_delay_offsets(const RemotingCommand&, const Responder& responder) {
  if (context_.schedule == nullptr) return responder.fail(rc::kSystemError, "no delayed delivery in this broker");
  respond_body(responder, context_.schedule->encode_offsets());
}

void AdminBrokerProcessor::consumer_connections(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("consumerGroup");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  const auto members = context_.consumers->find(group);
  if (!members || members->connections.empty()) {
    return responder.fail(rc::kConsumerNotOnline, "the consumer group[" + group + "] not online");
  }
  respond_body(responder, protocol::encode(consumer_connection_of(*members)));
}

// ----------------------------------------------------------------------------------------------
// Producer groups

void AdminBrokerProcessor::producer_connections(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("producerGroup");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  // The manager forgets a group with its last connection, so no connection is no group: RocketMQ
  // answers SYSTEM_ERROR for a group it has no table of.
  const auto connections = context_.producers->connections(group);
  if (connections.empty()) return responder.fail(rc::kSystemError, "the producer group[" + group + "] not exist");
  protocol::ProducerConnection body;
  for (const auto& c : connections) body.connection_set.push_back(connection_of(c));
  respond_body(responder, protocol::encode(body));
}

void AdminBrokerProcessor::all_producers(const RemotingCommand&, const Responder& responder) {
  protocol::ProducerTableInfo table;
  for (const auto& [group, connections] : context_.producers->connections_by_group()) {
    auto& producers = table.data[group];
    for (const auto& c : connections) {
      producers.push_back({c.client_id, c.channel ? c.channel->remote_address() : std::string(),
                           std::string(plugin::v1::to_string(c.language)), c.version, c.last_update_ms});
    }
  }
  respond_body(responder, protocol::encode(table));
}

void AdminBrokerProcessor::consumer_running_info(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  const std::string group = fields.required("consumerGroup");
  const std::string client_id = fields.required("clientId");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  std::shared_ptr<Channel> client;
  if (const auto members = context_.consumers->find(group)) {
    for (const auto& [channel_id, connection] : members->connections) {
      if (connection.client_id == client_id) client = connection.channel;
    }
  }
  const std::string who = "<" + group + "> <" + client_id + ">";
  if (!client) return responder.fail(rc::kSystemError, "The Consumer " + who + " not online");
  auto forwarded = RemotingCommand::request(request.code);
  forwarded.ext_fields = request.ext_fields;
  forwarded.body = request.body;
  client->invoke(std::move(forwarded), kCallClientTimeout,
                 [responder, who](plugin::v1::Result<RemotingCommand> answer) {
                   if (answer) return responder.respond(std::move(answer).value());
                   if (answer.status().code() == plugin::v1::StatusCode::kTimeout) {
                     return responder.fail(rc::kConsumeMsgTimeout,
                                           "consumer " + who + " Timeout: " + answer.status().message());
                   }
                   responder.fail(rc::kSystemError,
                                  "invoke consumer " + who + " Exception: " + answer.status().message());
                 });
}

void AdminBrokerProcessor::consumer_status(const RemotingCommand& request, const Responder& responder) {
  HeaderReader fields(request.ext_fields);
  ConsumerStatusRequest status;
  status.topic = fields.required("topic");
  status.group = fields.required("group");
  status.client_id = fields.optional("clientAddr");
  if (!fields.ok()) return responder.fail(rc::kSystemError, fields.error());
  gather_consumer_status(context_, status, responder);
}

// ----------------------------------------------------------------------------------------------
// Broker config

void AdminBrokerProcessor::broker_config(const RemotingCommand&, const Responder& responder) {
  RemotingCommand response;
  protocol::set_body(response, protocol::encode_java_properties(broker_config_properties(*context_.config)));
  {
    std::lock_guard lock(config_mutex_);
    response.ext_fields.set("version", protocol::encode(config_version_));
  }
  responder.respond(std::move(response));
}

void AdminBrokerProcessor::update_broker_config(const RemotingCommand& request, const Responder& responder) {
  auto properties = protocol::decode_java_properties(protocol::body_text(request));
  if (!properties) return responder.fail(rc::kSystemError, "string2Properties error: " + properties.status().message());
  std::lock_guard lock(config_mutex_);
  const plugin::v1::Status updated = update_live_settings(*context_.config, *properties);
  if (!updated) {
    const bool restart = updated.code() == plugin::v1::StatusCode::kPermissionDenied;
    return responder.fail(restart ? rc::kNoPermission : rc::kInvalidParameter, updated.message());
  }
  ++config_version_.counter;
  config_version_.timestamp = context_.clock();
  std::string changes;
  for (const auto& [key, value] : *properties) changes += (changes.empty() ? "" : ", ") + key + "=" + value;
  kernel::logger("broker")->info("broker config updated by {}: {}", responder.channel()->remote_address(), changes);
  responder.respond(RemotingCommand{});
}

}  // namespace mqkit::broker
