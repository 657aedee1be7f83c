// AdminBrokerProcessor: the admin and queue-metadata requests of RocketMQ's AdminBrokerProcessor
// that tools (mqadmin, dashboards) and consumers send to a broker:
//   topics          UPDATE_AND_CREATE_TOPIC 17, DELETE_TOPIC_IN_BROKER 215, GET_ALL_TOPIC_CONFIG 21,
//                   GET_TOPIC_CONFIG 351
//   queue offsets   GET_MAX_OFFSET 30, GET_MIN_OFFSET 31, SEARCH_OFFSET_BY_TIMESTAMP 29,
//                   GET_EARLIEST_MSG_STORETIME 32
//   ordered locks   LOCK_BATCH_MQ 41, UNLOCK_BATCH_MQ 42
//   statistics      GET_CONSUME_STATS 208, GET_TOPIC_STATS_INFO 202, GET_BROKER_RUNTIME_INFO 28,
//                   GET_BROKER_CONSUME_STATS 317, VIEW_BROKER_STATS_DATA 315 (BrokerStats items),
//                   QUERY_TOPIC_CONSUME_BY_WHO 300
//   offsets reset   INVOKE_BROKER_TO_RESET_OFFSET 222 (see reset_offset.hpp)
//   groups          UPDATE_AND_CREATE_SUBSCRIPTIONGROUP 200, DELETE_SUBSCRIPTIONGROUP 207,
//                   GET_ALL_SUBSCRIPTIONGROUP_CONFIG 201, GET_SUBSCRIPTIONGROUP_CONFIG 352,
//                   GET_CONSUMER_CONNECTION_LIST 203
//   producers       GET_PRODUCER_CONNECTION_LIST 204, GET_ALL_PRODUCER_INFO 328
//   slave sync      GET_ALL_CONSUMER_OFFSET 43, GET_ALL_DELAY_OFFSET 45 (and 21, 201 above): what a
//                   slave copies from its master every 10 s (RocketMQ's SlaveSynchronize)
//   consumers       GET_CONSUMER_RUNNING_INFO 307: forwarded to the named client over its own
//                   connection, its answer relayed as it is (RocketMQ's callConsumer);
//                   INVOKE_BROKER_TO_GET_CONSUMER_STATUS 223: the offsets the group's consumers
//                   hold in memory, asked of each (see consumer_status.hpp)
//   broker config   GET_BROKER_CONFIG 26 (the [broker] section as properties text, camelCase
//                   keys), UPDATE_BROKER_CONFIG 25 (only the live settings; see
//                   update_live_settings; not written back to broker.toml)
//   plain ACL       UPDATE_AND_CREATE_ACL_CONFIG 50, DELETE_ACL_CONFIG 51,
//                   UPDATE_GLOBAL_WHITE_ADDRS_CONFIG 53: rewrite the ACL file (AccessControl::change)
//   replication     GET_BROKER_HA_STATUS 907 (what the HA service sees; BrokerContext::ha_runtime_info)
// Topic changes go through TopicConfigManager, which bumps the data version and so makes the
// broker re-register with the name servers.
//
// Threads: the transport's request threads; stateless beyond the context.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"

namespace mqkit::broker {

class AdminBrokerProcessor final : public RequestProcessor {
 public:
  explicit AdminBrokerProcessor(BrokerContext& context) : context_(context) {}

  std::vector<std::int32_t> codes() const override;
  void process(RemotingCommand request, Responder responder) override;

 private:
  using Handler = void (AdminBrokerProcessor::*)(const RemotingCommand&, const Responder&);
  static const std::vector<std::pair<std::int32_t, Handler>>& handlers();

  void update_and_create_topic(const RemotingCommand& request, const Responder& responder);
  void update_and_create_topic_list(const RemotingCommand& request, const Responder& responder);
  // Why a topic may not be created or changed through the admin requests (nullopt: it may).
  std::optional<std::string> refuse_topic_update(const protocol::TopicConfig& topic) const;
  plugin::v1::Status with_altered_attributes(protocol::TopicConfig& topic) const;
  void delete_topic(const RemotingCommand& request, const Responder& responder);
  void all_topic_config(const RemotingCommand& request, const Responder& responder);
  void topic_config(const RemotingCommand& request, const Responder& responder);
  void max_offset(const RemotingCommand& request, const Responder& responder);
  void min_offset(const RemotingCommand& request, const Responder& responder);
  void search_offset_by_time(const RemotingCommand& request, const Responder& responder);
  void earliest_message_time(const RemotingCommand& request, const Responder& responder);
  void lock_batch(const RemotingCommand& request, const Responder& responder);
  void unlock_batch(const RemotingCommand& request, const Responder& responder);
  void consume_stats(const RemotingCommand& request, const Responder& responder);
  void broker_consume_stats(const RemotingCommand& request, const Responder& responder);
  void topic_stats(const RemotingCommand& request, const Responder& responder);
  void runtime_info(const RemotingCommand& request, const Responder& responder);
  void view_stats(const RemotingCommand& request, const Responder& responder);
  void ha_status(const RemotingCommand& request, const Responder& responder);
  void topic_consumed_by(const RemotingCommand& request, const Responder& responder);
  void update_acl_account(const RemotingCommand& request, const Responder& responder);
  void acl_version(const RemotingCommand& request, const Responder& responder);
  void delete_acl_account(const RemotingCommand& request, const Responder& responder);
  void update_global_white_addresses(const RemotingCommand& request, const Responder& responder);
  void reset_offset(const RemotingCommand& request, const Responder& responder);
  void update_subscription_group(const RemotingCommand& request, const Responder& responder);
  void update_subscription_group_list(const RemotingCommand& request, const Responder& responder);
  void delete_subscription_group(const RemotingCommand& request, const Responder& responder);
  void all_subscription_groups(const RemotingCommand& request, const Responder& responder);
  void subscription_group(const RemotingCommand& request, const Responder& responder);
  void all_consumer_offsets(const RemotingCommand& request, const Responder& responder);
  void all_delay_offsets(const RemotingCommand& request, const Responder& responder);
  void consumer_connections(const RemotingCommand& request, const Responder& responder);
  void consumer_running_info(const RemotingCommand& request, const Responder& responder);
  void consumer_status(const RemotingCommand& request, const Responder& responder);
  void producer_connections(const RemotingCommand& request, const Responder& responder);
  void all_producers(const RemotingCommand& request, const Responder& responder);
  void broker_config(const RemotingCommand& request, const Responder& responder);
  void update_broker_config(const RemotingCommand& request, const Responder& responder);

  BrokerContext& context_;
  // Config updates one at a time; the version counts them (GET_BROKER_CONFIG's `version`).
  std::mutex config_mutex_;
  protocol::DataVersion config_version_{};
};

}  // namespace mqkit::broker
