// ClientApi: one typed method per request the SDK and its tools send to name servers and
// brokers (RocketMQ's MQClientAPIImpl). Inputs and outputs are plain C++ values; headers and
// bodies are encoded here (JSON bodies through protocol/bodies.hpp), and a response whose code
// the method does not accept becomes a Status (response_status.hpp).
//
// Every method that takes `timeout` uses the client's api timeout when it is zero. Sync methods
// block the calling thread for at most about that long. Async methods never block on the
// network once connected (opening a connection blocks for up to the transport's connect
// timeout) and call their callback exactly once: on a transport I/O thread, or on the calling
// thread when the request could not be sent. Callbacks must not block.
//
// Thread-safe: one ClientApi serves every thread of its ClientInstance.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/pull_result.hpp"
#include "mqkit/client/send_result.hpp"
#include "mqkit/client/types.hpp"
#include "mqkit/plugin/v1/transport.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/connection.hpp"
#include "mqkit/protocol/store_bodies.hpp"
#include "mqkit/protocol/subscription_group.hpp"
#include "mqkit/protocol/transaction.hpp"

namespace mqkit::protocol {
struct BrokerStatsData;  // mqkit/protocol/broker_stats_data.hpp
}

namespace mqkit::client {

using plugin::v1::RemotingCommand;

// SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE (rocketmq-facts §1.9), SEND_REPLY_MESSAGE_V2 for a reply
// (MSG_TYPE=reply). The body is shared, not copied, so one prepared message can be sent again on
// a retry.
struct SendMessageRequest {
  std::string producer_group{};
  std::string topic{};
  std::string default_topic = "TBW102";
  std::int32_t default_topic_queue_nums = 4;
  std::int32_t queue_id = 0;
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;  // ms; 0 = now
  std::int32_t flag = 0;
  std::string properties{};  // encoded "name\x01value\x02..."
  std::int32_t reconsume_times = 0;
  bool unit_mode = false;
  std::optional<std::int32_t> max_reconsume_times{};
  bool batch = false;  // body is a batch body (plugin::v1::append_batch_item)
  std::shared_ptr<const std::string> body{};
};

// PULL_MESSAGE.
struct PullMessageRequest {
  std::string consumer_group{};
  std::string topic{};
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;
  std::int32_t max_msg_nums = 32;
  std::int32_t sys_flag = pull_sys_flag::kSuspend | pull_sys_flag::kSubscription;
  std::int64_t commit_offset = 0;
  std::int64_t suspend_timeout_ms = 15000;  // how long the broker may hold the request
  std::string subscription = "*";
  std::int64_t sub_version = 0;
  std::string expression_type = "TAG";
};

// POP_MESSAGE (RocketMQ 5's pop consumption; docs/proxy.md "Pop consumption").
struct PopMessageRequest {
  std::string consumer_group{};
  std::string topic{};
  std::int32_t queue_id = -1;  // -1: any of the topic's queues on that broker
  std::int32_t max_msg_nums = 32;
  std::int64_t invisible_ms = 60'000;
  std::int64_t poll_ms = 0;  // how long the broker may hold the pop when nothing is visible
  bool init_from_max = false;  // a group without an offset starts at the end (ConsumeInitMode.MAX)
  std::string expression_type = "TAG";  // or "SQL92" (a broker with its property filter enabled)
  std::string expression = "*";
  bool order = false;
};

struct PopResult {
  bool found = false;
  std::int64_t pop_time = 0;
  std::int64_t invisible_ms = 0;
  std::int64_t rest = 0;  // messages still waiting in the queues popped
  // Each message's receipt (its extraInfo) in its POP_CK property, as RocketMQ's client puts it.
  std::vector<MessageExt> messages{};
};

// CONSUMER_SEND_MSG_BACK.
struct SendBackRequest {
  std::int64_t commit_log_offset = 0;
  std::string group{};
  std::int32_t delay_level = 0;  // 0: the broker picks 3 + reconsume times
  std::string origin_msg_id{};
  std::string origin_topic{};
  std::int32_t max_reconsume_times = 16;
  bool unit_mode = false;
};

// QUERY_MESSAGE.
struct QueryMessageRequest {
  std::string topic{};
  std::string key{};
  std::int32_t max_num = 32;
  std::int64_t begin_timestamp_ms = 0;
  std::int64_t end_timestamp_ms = 0;
  bool unique_key = false;  // look up a UNIQ_KEY (the broker then caps max_num)
};

struct QueryMessageResult {
  std::vector<MessageExt> messages{};
  std::int64_t index_last_update_timestamp = 0;
  std::int64_t index_last_update_phy_offset = 0;
};

// GET_BROKER_CLUSTER_ACL_INFO's answer: which broker, and the version of its plain ACL file(s).
struct BrokerAclVersion {
  std::string cluster_name{};
  std::string broker_name{};
  std::string broker_addr{};
  protocol::DataVersion version{};
  std::map<std::string, protocol::DataVersion> files{};  // by path; RocketMQ 4.9 brokers send it
};

using SendCallback = std::function<void(Result<SendResult>)>;
using PullCallback = std::function<void(Result<PullResult>)>;
using PopCallback = std::function<void(Result<PopResult>)>;
using StatusCallback = std::function<void(Status)>;
using CommandCallback = plugin::v1::ResponseCallback;

// RocketMQ's VIP channel (MixAll.brokerVIPChannel): the broker address with its port minus 2;
// `address` unchanged when it has no port above 2.
std::string vip_channel_address(std::string_view address);

class ClientApi {
 public:
  // `handler` serves requests brokers send back over the connections this client opens.
  // Every request goes out with `serialize_type` headers, signed with `credentials` when they
  // have an access key. With `vip_channel_enabled`, the requests RocketMQ sends over its VIP
  // channel (sends, send-backs, END_TRANSACTION, offsets) go to the broker's port - 2.
  ClientApi(std::shared_ptr<plugin::v1::Transport> transport, std::shared_ptr<plugin::v1::RequestHandler> handler,
            std::vector<std::string> namesrv_addresses, std::chrono::milliseconds default_timeout,
            plugin::v1::SerializeType serialize_type = plugin::v1::SerializeType::kRocketMq,
            protocol::acl::Credentials credentials = {}, bool vip_channel_enabled = false);

  std::chrono::milliseconds default_timeout() const noexcept { return default_timeout_; }
  std::vector<std::string> namesrv_addresses() const;
  void set_namesrv_addresses(std::vector<std::string> addresses);

  // ---- Raw requests ----------------------------------------------------------------------
  // The response, whatever its code; transport failures as Status.
  Result<RemotingCommand> invoke(std::string_view address, RemotingCommand request,
                                 std::chrono::milliseconds timeout = {});
  void invoke_async(std::string_view address, RemotingCommand request, std::chrono::milliseconds timeout,
                    CommandCallback done);
  // Marks the request one-way and queues it; no response comes.
  Status invoke_oneway(std::string_view address, RemotingCommand request);
  // Tries the name servers in turn (starting with the last one that answered) until one answers.
  Result<RemotingCommand> invoke_namesrv(RemotingCommand request, std::chrono::milliseconds timeout = {});

  // ---- Name server -----------------------------------------------------------------------
  // NotFound when the topic has no route (TOPIC_NOT_EXIST).
  Result<protocol::TopicRouteData> get_topic_route(std::string_view topic, std::chrono::milliseconds timeout = {});
  Result<protocol::ClusterInfo> get_cluster_info(std::chrono::milliseconds timeout = {});
  Result<protocol::TopicList> get_all_topic_list(std::chrono::milliseconds timeout = {});
  Result<protocol::TopicList> get_topics_by_cluster(std::string_view cluster, std::chrono::milliseconds timeout = {});
  // On every name server; the first failure is returned after trying all.
  Status delete_topic_in_namesrv(std::string_view topic, std::chrono::milliseconds timeout = {});
  // WIPE_WRITE_PERM_OF_BROKER (`writable` false) or ADD_WRITE_PERM_OF_BROKER on the name server
  // at `namesrv_address`: the number of topic queue entries of `broker_name` it changed.
  Result<std::int64_t> set_write_perm_of_broker(std::string_view namesrv_address, std::string_view broker_name,
                                                bool writable, std::chrono::milliseconds timeout = {});
  // On every name server (as RocketMQ's putKVConfigValue), so they all answer the same; the
  // first failure is returned after trying all.
  Status put_kv_config(std::string_view ns, std::string_view key, std::string_view value,
                       std::chrono::milliseconds timeout = {});
  // From one name server. NotFound when there is no such item.
  Result<std::string> get_kv_config(std::string_view ns, std::string_view key, std::chrono::milliseconds timeout = {});
  // On every name server, as put_kv_config.
  Status delete_kv_config(std::string_view ns, std::string_view key, std::chrono::milliseconds timeout = {});
  Result<protocol::KvTable> get_kv_list_by_namespace(std::string_view ns, std::chrono::milliseconds timeout = {});
  // GET_NAMESRV_CONFIG / UPDATE_NAMESRV_CONFIG on the name server at `namesrv_address`, as the
  // broker config calls below (a mqkit name server changes only its live settings).
  Result<std::map<std::string, std::string>> get_namesrv_config(std::string_view namesrv_address,
                                                                std::chrono::milliseconds timeout = {});
  Status update_namesrv_config(std::string_view namesrv_address, const std::map<std::string, std::string>& properties,
                               std::chrono::milliseconds timeout = {});

  // ---- Producing -------------------------------------------------------------------------
  Result<SendResult> send_message(std::string_view address, std::string_view broker_name,
                                  const SendMessageRequest& request, std::chrono::milliseconds timeout = {});
  void send_message_async(std::string_view address, std::string_view broker_name, SendMessageRequest request,
                          std::chrono::milliseconds timeout, SendCallback done);
  Status send_message_oneway(std::string_view address, const SendMessageRequest& request);
  // END_TRANSACTION (rocketmq-facts §1.9, §5.6), one-way as RocketMQ's producers send it;
  // `remark` tells the broker why (a listener's exception), empty for none.
  Status end_transaction_oneway(std::string_view address,
                                const protocol::transaction::EndTransactionHeader& header,
                                std::string_view remark = {});

  // ---- Consuming -------------------------------------------------------------------------
  Result<PullResult> pull_message(std::string_view address, const PullMessageRequest& request,
                                  std::chrono::milliseconds timeout = {});
  void pull_message_async(std::string_view address, const PullMessageRequest& request,
                          std::chrono::milliseconds timeout, PullCallback done);
  // POP_MESSAGE to `broker_name` at `address`; the timeout should cover request.poll_ms.
  Result<PopResult> pop_message(std::string_view address, std::string_view broker_name, const PopMessageRequest& request,
                                std::chrono::milliseconds timeout = {});
  void pop_message_async(std::string_view address, std::string_view broker_name, const PopMessageRequest& request,
                         std::chrono::milliseconds timeout, PopCallback done);
  // ACK_MESSAGE of the delivery `receipt` (a popped message's POP_CK) names.
  Status ack_message(std::string_view address, std::string_view group, std::string_view topic,
                     std::string_view receipt, std::chrono::milliseconds timeout = {});
  void ack_message_async(std::string_view address, std::string_view group, std::string_view topic,
                         std::string_view receipt, std::chrono::milliseconds timeout, StatusCallback done);
  // CHANGE_MESSAGE_INVISIBLETIME: the delivery `receipt` names stays invisible `invisible_ms` from
  // now; returns the receipt naming it from then on.
  Result<std::string> change_invisible_time(std::string_view address, std::string_view group, std::string_view topic,
                                            std::string_view receipt, std::int64_t invisible_ms,
                                            std::chrono::milliseconds timeout = {});
  Status heartbeat(std::string_view address, const protocol::HeartbeatData& data,
                   std::chrono::milliseconds timeout = {});
  Status unregister_client(std::string_view address, std::string_view client_id, std::string_view producer_group,
                           std::string_view consumer_group, std::chrono::milliseconds timeout = {});
  Result<std::vector<std::string>> get_consumer_id_list(std::string_view address, std::string_view group,
                                                        std::chrono::milliseconds timeout = {});
  // NotFound when the group has no offset for the queue (QUERY_NOT_FOUND).
  Result<std::int64_t> query_consumer_offset(std::string_view address, std::string_view group,
                                             const MessageQueue& queue, std::chrono::milliseconds timeout = {});
  Status update_consumer_offset(std::string_view address, std::string_view group, const MessageQueue& queue,
                                std::int64_t offset, std::chrono::milliseconds timeout = {});
  Status update_consumer_offset_oneway(std::string_view address, std::string_view group, const MessageQueue& queue,
                                       std::int64_t offset);
  Result<std::int64_t> get_max_offset(std::string_view address, const MessageQueue& queue,
                                      std::chrono::milliseconds timeout = {});
  Result<std::int64_t> get_min_offset(std::string_view address, const MessageQueue& queue,
                                      std::chrono::milliseconds timeout = {});
  Result<std::int64_t> search_offset(std::string_view address, const MessageQueue& queue, std::int64_t timestamp_ms,
                                     std::chrono::milliseconds timeout = {});
  Result<std::int64_t> get_earliest_msg_store_time(std::string_view address, const MessageQueue& queue,
                                                   std::chrono::milliseconds timeout = {});
  Status consumer_send_message_back(std::string_view address, const SendBackRequest& request,
                                    std::chrono::milliseconds timeout = {});
  // The queues locked for the client (a subset of request.mq_set).
  Result<std::set<MessageQueue>> lock_batch_mq(std::string_view address, const protocol::LockBatchRequest& request,
                                               std::chrono::milliseconds timeout = {});
  Status unlock_batch_mq(std::string_view address, const protocol::LockBatchRequest& request,
                         std::chrono::milliseconds timeout = {});
  Status unlock_batch_mq_oneway(std::string_view address, const protocol::LockBatchRequest& request);

  // ---- Administration --------------------------------------------------------------------
  // UPDATE_AND_CREATE_TOPIC on one broker. `topic.attributes` are changes to the topic's
  // attributes ("+key" / plain key = value to set, "-key" = remove; protocol/topic_attributes.hpp).
  Status create_topic(std::string_view address, const protocol::TopicConfig& topic,
                      std::string_view default_topic = "TBW102", std::chrono::milliseconds timeout = {});
  // UPDATE_AND_CREATE_TOPIC_LIST (RocketMQ 5): every topic of the list on one broker, in one request.
  Status create_topics(std::string_view address, const std::vector<protocol::TopicConfig>& topics,
                       std::chrono::milliseconds timeout = {});
  Status delete_topic_in_broker(std::string_view address, std::string_view topic,
                                std::chrono::milliseconds timeout = {});
  Result<protocol::TopicConfigTable> get_all_topic_config(std::string_view address,
                                                          std::chrono::milliseconds timeout = {});
  Result<protocol::TopicStatsTable> get_topic_stats(std::string_view address, std::string_view topic,
                                                    std::chrono::milliseconds timeout = {});
  // `topic` empty: every topic the group consumes.
  Result<protocol::ConsumeStats> get_consume_stats(std::string_view address, std::string_view group,
                                                   std::string_view topic = {}, std::chrono::milliseconds timeout = {});
  Result<protocol::KvTable> get_broker_runtime_info(std::string_view address, std::chrono::milliseconds timeout = {});
  // GET_BROKER_CONSUME_STATS: every subscription group's progress on one broker; only ordered
  // topics with `only_ordered`.
  Result<protocol::ConsumeStatsList> get_broker_consume_stats(std::string_view address, bool only_ordered,
                                                              std::chrono::milliseconds timeout = {});
  // QUERY_TOPIC_CONSUME_BY_WHO: the groups that consume `topic` on one broker (online or with offsets).
  Result<std::set<std::string>> topic_consumed_by(std::string_view address, std::string_view topic,
                                                  std::chrono::milliseconds timeout = {});
  // VIEW_BROKER_STATS_DATA: the last minute, hour and day of one of the broker's stats items
  // (`name` as RocketMQ's BrokerStatsManager names them, `key` a topic or protocol::stats_key).
  // Nothing (not an error) when the broker has counted nothing under the key: it answers
  // SYSTEM_ERROR "The stats <name> <key> not exist" then, as RocketMQ's do.
  Result<std::optional<protocol::BrokerStatsData>> view_broker_stats_data(std::string_view address, std::string_view name,
                                                           std::string_view key, std::chrono::milliseconds timeout = {});
  // GET_TOPIC_CONFIG: one topic's config on one broker (TOPIC_NOT_EXIST when it has none).
  Result<protocol::TopicConfig> get_topic_config(std::string_view address, std::string_view topic,
                                                 std::chrono::milliseconds timeout = {});
  // GET_SUBSCRIPTIONGROUP_CONFIG: one group's settings on one broker (created there when the
  // broker creates groups on demand; SUBSCRIPTION_GROUP_NOT_EXIST otherwise).
  Result<protocol::SubscriptionGroupConfig> get_subscription_group(std::string_view address, std::string_view group,
                                                                   std::chrono::milliseconds timeout = {});
  // Store maintenance on one broker (docs/mqadmin.md); each answers what the broker did.
  // DELETE_EXPIRED_COMMITLOG: commit log files past their reserved time go now.
  Result<std::string> delete_expired_commit_log(std::string_view address, std::chrono::milliseconds timeout = {});
  // CLEAN_EXPIRED_CONSUMEQUEUE: consume queues none of whose messages is left go.
  Result<std::string> clean_expired_consume_queue(std::string_view address, std::chrono::milliseconds timeout = {});
  // CLEAN_UNUSED_TOPIC: the queues of topics the broker has no config for go.
  Result<std::string> clean_unused_topic(std::string_view address, std::chrono::milliseconds timeout = {});
  // QUERY_CONSUME_QUEUE: up to `count` units of a queue from `index`; with `group`, the group's
  // subscription to the topic too.
  Result<protocol::QueryConsumeQueueResponse> query_consume_queue(std::string_view address, std::string_view topic,
                                                                  std::int32_t queue_id, std::int64_t index,
                                                                  std::int32_t count, std::string_view group = {},
                                                                  std::chrono::milliseconds timeout = {});
  // GET_BROKER_HA_STATUS: a master's slaves, or a slave's master.
  Result<protocol::HaRuntimeInfo> get_broker_ha_status(std::string_view address, std::chrono::milliseconds timeout = {});
  // UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: replaces the group's settings on one broker.
  Status update_subscription_group(std::string_view address, const protocol::SubscriptionGroupConfig& group,
                                   std::chrono::milliseconds timeout = {});
  // UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST (RocketMQ 5): every group of the list, in one request.
  Status update_subscription_groups(std::string_view address,
                                    const std::vector<protocol::SubscriptionGroupConfig>& groups,
                                    std::chrono::milliseconds timeout = {});
  // DELETE_SUBSCRIPTIONGROUP; brokers answer SUCCESS for a group they do not know (RocketMQ).
  Status delete_subscription_group(std::string_view address, std::string_view group,
                                   std::chrono::milliseconds timeout = {});
  Result<std::map<std::string, protocol::SubscriptionGroupConfig>> get_all_subscription_groups(
      std::string_view address, std::chrono::milliseconds timeout = {});
  // GET_BROKER_CONFIG: the broker's configuration, key → value (RocketMQ's camelCase keys).
  Result<std::map<std::string, std::string>> get_broker_config(std::string_view address,
                                                               std::chrono::milliseconds timeout = {});
  // UPDATE_BROKER_CONFIG; a mqkit broker changes only its live settings (docs/mqadmin.md).
  Status update_broker_config(std::string_view address, const std::map<std::string, std::string>& properties,
                              std::chrono::milliseconds timeout = {});
  // Plain ACL administration on one broker (docs/acl.md; the broker rewrites its ACL file).
  // UPDATE_AND_CREATE_ACL_CONFIG: an account's fields; one not given keeps its value.
  struct AclAccountUpdate {
    std::string access_key;
    std::optional<std::string> secret_key{};
    std::optional<std::string> white_remote_address{};
    std::optional<bool> admin{};
    std::optional<std::string> default_topic_perm{};  // DENY, PUB, SUB, PUB|SUB
    std::optional<std::string> default_group_perm{};
    std::optional<std::vector<std::string>> topic_perms{};  // "topic=PERM" entries; replaces the list
    std::optional<std::vector<std::string>> group_perms{};
  };
  Status update_acl_config(std::string_view address, const AclAccountUpdate& account,
                           std::chrono::milliseconds timeout = {});
  // DELETE_ACL_CONFIG.
  Status delete_acl_config(std::string_view address, std::string_view access_key, std::chrono::milliseconds timeout = {});
  // UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: the broker's global white list becomes `addresses`.
  Status update_global_white_addresses(std::string_view address, const std::vector<std::string>& addresses,
                                       std::chrono::milliseconds timeout = {});
  // GET_BROKER_CLUSTER_ACL_INFO: the version of the broker's ACL file (an error when ACL is off).
  Result<BrokerAclVersion> get_broker_acl_version(std::string_view address, std::chrono::milliseconds timeout = {});
  // GET_CONSUMER_CONNECTION_LIST: the group's live consumers on one broker, how they consume and
  // what they subscribe; NotFound when none is online (CONSUMER_NOT_ONLINE).
  Result<protocol::ConsumerConnection> get_consumer_connection_list(std::string_view address, std::string_view group,
                                                                    std::chrono::milliseconds timeout = {});
  // GET_PRODUCER_CONNECTION_LIST: the group's live producers on one broker. A broker that knows no
  // producer of the group answers SYSTEM_ERROR (Unavailable here), as RocketMQ's do.
  Result<protocol::ProducerConnection> get_producer_connection_list(std::string_view address, std::string_view group,
                                                                    std::chrono::milliseconds timeout = {});
  // RECALL_MESSAGE: cancels the timer message of `recall_handle` on the broker at `address`;
  // the recalled message's id.
  Result<std::string> recall_message(std::string_view address, std::string_view producer_group, std::string_view topic,
                                     std::string_view recall_handle, std::chrono::milliseconds timeout = {});
  // GET_ALL_PRODUCER_INFO: every producer connected to one broker, by group.
  Result<protocol::ProducerTableInfo> get_all_producer_info(std::string_view address,
                                                           std::chrono::milliseconds timeout = {});
  // Messages of one broker matching the key; empty when none (QUERY_NOT_FOUND).
  Result<QueryMessageResult> query_message(std::string_view address, const QueryMessageRequest& request,
                                           std::chrono::milliseconds timeout = {});
  // The message at a commit log offset (VIEW_MESSAGE_BY_ID; the offset comes from an offset msg id).
  Result<MessageExt> view_message(std::string_view address, std::int64_t commit_log_offset,
                                  std::chrono::milliseconds timeout = {});
  // The message an offset msg id (32 hex: store host | commit log offset) names, asked of the
  // broker the id names. InvalidArgument when it is not an offset msg id (a UNIQ_KEY is looked
  // up with query_message and unique_key instead).
  Result<MessageExt> view_message_by_id(std::string_view offset_msg_id, std::chrono::milliseconds timeout = {});
  // INVOKE_BROKER_TO_RESET_OFFSET: the broker moves the group's offsets on `topic` to the first
  // message at or after `timestamp_ms` (-1: the end) and tells the online consumers. Returns the
  // new offset of each of the broker's queues of the topic.
  Result<std::map<MessageQueue, std::int64_t>> reset_offset(std::string_view address, std::string_view topic,
                                                            std::string_view group, std::int64_t timestamp_ms,
                                                            bool force = true, std::chrono::milliseconds timeout = {});
  // INVOKE_BROKER_TO_GET_CONSUMER_STATUS: the broker asks the group's online consumers (only
  // `client_id` when not empty) for the offsets of `topic` they hold in memory
  // (GET_CONSUMER_STATUS_FROM_CLIENT). Returns them by client id; a consumer that did not answer
  // is left out.
  Result<std::map<std::string, std::map<MessageQueue, std::int64_t>>> get_consumer_status(
      std::string_view address, std::string_view topic, std::string_view group, std::string_view client_id = {},
      std::chrono::milliseconds timeout = {});

 private:
  std::chrono::milliseconds effective(std::chrono::milliseconds timeout) const noexcept {
    return timeout.count() > 0 ? timeout : default_timeout_;
  }
  // The one hook every outgoing request passes: header encoding, then the ACL signature.
  Status prepare(RemotingCommand& request) const;
  // Where a request with `request_code` for the broker at `address` goes: its fast port with
  // vip_channel_enabled and a code RocketMQ sends over that channel (written into `vip`), else
  // `address` itself (no copy: this is on every send).
  std::string_view destination(std::string_view address, std::int32_t request_code, std::string& vip) const;
  // Response must carry `accepted` code (SUCCESS by default), else response_error.
  Result<RemotingCommand> call(std::string_view address, RemotingCommand request, std::chrono::milliseconds timeout,
                               std::int32_t accepted = 0);
  Result<std::int64_t> call_for_int(std::string_view address, RemotingCommand request,
                                    std::chrono::milliseconds timeout, std::string_view field);
  Result<RemotingCommand> call_namesrv(RemotingCommand request, std::chrono::milliseconds timeout);
  // A request with no header and the broker's remark, saying what it did.
  Result<std::string> call_for_remark(std::string_view address, std::int32_t code, std::chrono::milliseconds timeout);
  // A GET_*_CONFIG request and its properties body, an UPDATE_*_CONFIG request with one.
  Result<std::map<std::string, std::string>> get_config(std::string_view address, std::int32_t code,
                                                        std::chrono::milliseconds timeout);
  Status update_config(std::string_view address, std::int32_t code, const std::map<std::string, std::string>& properties,
                       std::chrono::milliseconds timeout);
  // `request` to every name server; the first failure after trying them all.
  Status call_every_namesrv(const RemotingCommand& request, std::chrono::milliseconds timeout);

  std::shared_ptr<plugin::v1::Transport> transport_;
  std::shared_ptr<plugin::v1::RequestHandler> handler_;
  std::chrono::milliseconds default_timeout_;
  plugin::v1::SerializeType serialize_type_;
  protocol::acl::Credentials credentials_;
  bool vip_channel_enabled_;
  mutable std::mutex namesrv_mutex_;
  std::vector<std::string> namesrv_addresses_;
  std::size_t namesrv_index_ = 0;  // the one that answered last
  std::atomic<std::int32_t> oneway_opaque_{1};
};

}  // namespace mqkit::client
