#include "consumer_startup.hpp"

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/namespace.hpp"

namespace mqkit::client {

Result<ConsumerParts> make_consumer_parts(ConsumerConfig& config, const std::shared_ptr<ClientInstance>& given,
                                          bool orderly, RebalanceListener& listener) {
  if (given) {
    ClientConfig client = given->config();
    client.allocator = config.client.allocator;
    client.name_space = config.client.name_space;
    config.client = std::move(client);
  } else {
    config.client = config.client.resolved();
  }
  MQKIT_RETURN_IF_ERROR(config.validate());
  // As RocketMQ's start(): the group is named with the namespace from here on (heartbeats, pulls,
  // offsets, send-backs, and so its retry topic %RETRY%<namespace>%<group>).
  config.group = protocol::wrap_namespace(config.client.name_space, config.group);
  ConsumerParts parts;
  parts.instance = given;
  if (!parts.instance) {
    MQKIT_ASSIGN_OR_RETURN(parts.instance, ClientInstance::get_or_create(config.client));
  }
  MQKIT_ASSIGN_OR_RETURN(auto allocator,
                         parts.instance->make_plugin<plugin::v1::QueueAllocator>(config.client.allocator));
  if (config.message_model == MessageModel::kClustering) {
    parts.offsets = std::make_shared<RemoteOffsetStore>(parts.instance, config.group);
  } else {
    parts.offsets = std::make_shared<LocalFileOffsetStore>(config.local_offsets_file(parts.instance->client_id()));
  }
  MQKIT_RETURN_IF_ERROR(parts.offsets->load());
  RebalanceSettings settings{config.group, config.message_model, config.consume_from_where, 0, orderly};
  if (config.consume_from_where == ConsumeFromWhere::kTimestamp) {
    MQKIT_ASSIGN_OR_RETURN(settings.consume_timestamp_ms, parse_consume_timestamp(config.consume_timestamp));
  }
  parts.rebalancer =
      std::make_unique<Rebalancer>(parts.instance, settings, std::move(allocator), parts.offsets, listener);
  if (config.enable_msg_trace) {
    parts.tracer = trace::MessageTracer::start(parts.instance->config(), config.group, trace::TracedRole::kConsume,
                                               config.customized_trace_topic);
  }
  return parts;
}

void announce_consumer(ClientInstance& instance, const std::string& group, const std::vector<std::string>& topics) {
  const auto log = kernel::logger("client");
  for (const auto& topic : topics) {
    if (Status s = instance.update_route(topic); !s) log->debug("{}: {}", group, s.to_string());
  }
  if (Status s = instance.send_heartbeat_to_all_brokers(); !s) {
    log->warn("consumer {}: first heartbeat: {}", group, s.to_string());
  }
}

protocol::ConsumerData consumer_heartbeat_data(const ConsumerConfig& config, std::string_view consume_type,
                                              const std::map<std::string, SubscriptionData>& subscriptions) {
  protocol::ConsumerData data;
  data.group_name = config.group;
  data.consume_type = std::string(consume_type);
  data.message_model = std::string(to_string(config.message_model));
  data.consume_from_where = std::string(to_string(config.consume_from_where));
  for (const auto& [topic, subscription] : subscriptions) data.subscription_data_set.push_back(subscription);
  return data;
}

}  // namespace mqkit::client
