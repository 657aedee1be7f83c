// mqadmin command logic, callable without the CLI: every command takes an AdminContext (the
// client connection and where output goes) and its options, prints a table (or JSON with
// --json) and returns the process exit code (0 ok, 1 failure with a message on `err`).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mqkit/client/client_instance.hpp"

namespace mqkit::admin {

struct AdminContext {
  std::shared_ptr<client::ClientInstance> instance;
  bool json = false;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;

  client::ClientApi& api() { return instance->api(); }
  // Prints "mqadmin: <what>: <status message>" on err and returns 1.
  int fail(const std::string& what, const client::Status& status) const;
  int fail(const std::string& message) const;
};

// Connects to the name servers "a:1;b:2" (empty: $NAMESRV_ADDR), signing every request with
// `credentials` when they are set (plain ACL), with `transport_settings` for the transport
// plugin (the tls_* keys). No request is sent yet, so an unreachable name server shows up in
// the first command.
client::Result<std::shared_ptr<client::ClientInstance>> connect(
    const std::string& namesrv_addr, std::chrono::milliseconds timeout,
    const protocol::acl::Credentials& credentials = {},
    const std::map<std::string, std::string>& transport_settings = {});

// "yyyy-MM-dd HH:mm:ss", with ".SSS" when `with_millis`, in local time as RocketMQ's tools
// print times; empty for 0 or less (no time: a SubAfter trace record of the cloud layout, a
// queue nothing was consumed from).
std::string local_time(std::int64_t ms, bool with_millis);

// `value` with `decimals` digits after the point, as RocketMQ's tools print rates ("%.2f").
std::string fixed(double value, int decimals);

// `text` padded with spaces to `width` (RocketMQ's "%-50s" columns).
std::string padded(const std::string& text, std::size_t width);

// A column-aligned text table; why not printf: widths depend on the data.
class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// One broker process: its name, id (0 = master) and address.
struct BrokerAddr {
  std::string name;
  std::int64_t id = 0;
  std::string address;
};
// Asks every target for a key/value table (`fetch`, given its address) and prints each through
// `print`, or all as one JSON object {address: {key: value}} with --json; a target that fails is
// named on err and makes the exit code 1.
using KeyValues = std::map<std::string, std::string>;
int print_tables(AdminContext& ctx, const std::string& what, const std::vector<BrokerAddr>& targets,
                 const std::function<client::Result<KeyValues>(const std::string&)>& fetch,
                 const std::function<void(const BrokerAddr&, const KeyValues&)>& print);

// Every broker of `cluster`, masters and slaves, by name then id; NotFound when the cluster is
// unknown or has no broker.
client::Result<std::vector<BrokerAddr>> cluster_brokers(AdminContext& ctx, const std::string& cluster);
// The brokers a command acts on: `broker_addr` alone (-b), or the brokers of `cluster` (-c),
// masters only unless `with_slaves`. Exactly one of the two must be given.
client::Result<std::vector<BrokerAddr>> command_targets(AdminContext& ctx, const std::string& broker_addr,
                                                        const std::string& cluster, bool with_slaves);

// Every broker of every cluster, masters and slaves.
client::Result<std::vector<BrokerAddr>> every_broker(AdminContext& ctx);
// Runs `act` on every target and prints RocketMQ's line `done` + address + " success." for each,
// followed by what the broker said (the action's text) when it said something; or, with --json,
// [{"brokerAddr", "ok", "result"}]. A broker that fails is named on err and the exit code is 1.
using BrokerAction = std::function<client::Result<std::string>(const std::string& address)>;
int on_every_broker(AdminContext& ctx, const std::string& what, const std::vector<BrokerAddr>& targets,
                    const std::string& done, const BrokerAction& act);

// Master address of every broker of `cluster` (broker name → address); NotFound when the
// cluster is unknown.
client::Result<std::vector<std::pair<std::string, std::string>>> cluster_masters(AdminContext& ctx,
                                                                                  const std::string& cluster);
// Master address of every broker serving `topic` (broker name → address).
client::Result<std::vector<std::pair<std::string, std::string>>> topic_masters(AdminContext& ctx,
                                                                                const std::string& topic);
// The same from a route already fetched; NotFound when no broker of it has a master.
client::Result<std::vector<std::pair<std::string, std::string>>> route_masters(const protocol::TopicRouteData& route,
                                                                                const std::string& topic);
// For commands that only read (topicStatus, consumerProgress, message queries): every broker
// serving `topic`, by its master's address, or by its lowest slave's while the master is down, as
// RocketMQ's tools read (BrokerData.selectBrokerAddr). NotFound when no broker has any address.
client::Result<std::vector<std::pair<std::string, std::string>>> topic_readers(AdminContext& ctx,
                                                                                const std::string& topic);
// The address a read of `broker_name` goes to: its master, else its lowest slave; empty when the
// client knows neither.
std::string reader_address(const AdminContext& ctx, const std::string& broker_name);
using Masters = std::vector<std::pair<std::string, std::string>>;  // broker name → master address
// The groups that consume `topic` on any of `masters`, online or with offsets there
// (QUERY_TOPIC_CONSUME_BY_WHO). A master that fails is named on err and turns `ok` false; the
// others still count.
std::set<std::string> groups_consuming(AdminContext& ctx, const Masters& masters, const std::string& topic, bool& ok);

// The master address of a broker that serves the consumer group's retry topic (%RETRY%group):
// the broker RocketMQ's tools ask about a group. NotFound naming the group when no broker does.
client::Result<std::string> group_broker(AdminContext& ctx, const std::string& group);

// ---- topic_commands.cpp ----
struct UpdateTopicOptions {
  std::string topic;
  std::string cluster;
  std::string broker_addr;
  int read_queue_nums = 8;
  int write_queue_nums = 8;
  int perm = 6;
  bool order = false;
  std::string attributes;  // RocketMQ 5's -a: "+message.type=FIFO,-key"
};
int update_topic(AdminContext& ctx, const UpdateTopicOptions& options);
// updateTopicList / updateSubGroupList: the JSON array of TopicConfig / SubscriptionGroupConfig
// in `file` (as RocketMQ's tools read it), in one request to -b one broker or -c every master.
int update_topic_list(AdminContext& ctx, const std::string& file, const std::string& broker_addr,
                      const std::string& cluster);
// RocketMQ's getConsumerConfig: the group's settings on every broker that has it.
int get_consumer_config(AdminContext& ctx, const std::string& group);
int update_sub_group_list(AdminContext& ctx, const std::string& file, const std::string& broker_addr,
                          const std::string& cluster);
class JsonOut;
// A send's answer as members of the JSON object being written: sendStatus, msgId, offsetMsgId,
// brokerName, queueId, queueOffset.
void write_send_result(JsonOut& json, const client::SendResult& sent);

// The JSON array in `file`, named in the error when it cannot be read or holds something else.
client::Result<std::string> read_json_array_file(const std::string& file);
// What updateTopicList and updateSubGroupList share: `file`'s array becomes the request body's
// `list_key` member (`decode` checks it), then `send` takes the items to -b or every master of -c.
template <typename Decode, typename Send>
int submit_config_list(AdminContext& ctx, const std::string& command, const std::string& list_key,
                       const std::string& noun, const std::string& file, const std::string& broker_addr,
                       const std::string& cluster, Decode decode, Send send) {
  auto text = read_json_array_file(file);
  if (!text) return ctx.fail(command, text.status());
  auto items = decode("{\"" + list_key + "\":" + *text + "}");
  if (!items) return ctx.fail(command + ": " + file, items.status());
  if (items->empty()) return ctx.fail(command + ": " + file + " lists no " + noun);
  auto targets = command_targets(ctx, broker_addr, cluster, false);
  if (!targets) return ctx.fail(command, targets.status());
  return on_every_broker(ctx, command, *targets, "submit batch of " + noun + " config to ",
                         [&](const std::string& address) -> client::Result<std::string> {
                           if (auto sent = send(address, *items); !sent) return sent;
                           return std::to_string(items->size()) + " " + noun + "(s)";
                         });
}
int delete_topic(AdminContext& ctx, const std::string& topic, const std::string& cluster);
// updateTopicPerm: `perm` for the topic on one master (-b) or every master of a cluster (-c) that
// serves it, keeping its queue numbers and system flag (RocketMQ's UpdateTopicPermSubCommand).
int update_topic_perm(AdminContext& ctx, const std::string& topic, int perm, const std::string& broker_addr,
                      const std::string& cluster);
// topicList: every topic; with `with_clusters` (-c), each (but retry and dead-letter topics)
// with its cluster and every group consuming it, one line per group.
int topic_list(AdminContext& ctx, bool with_clusters);
int topic_route(AdminContext& ctx, const std::string& topic);
// topicClusterList: the clusters whose brokers serve `topic`, one per line.
int topic_cluster_list(AdminContext& ctx, const std::string& topic);
int topic_status(AdminContext& ctx, const std::string& topic);

// ---- cluster_commands.cpp ----
struct ClusterListOptions {
  bool more = false;    // -m: yesterday's and today's message totals instead of the base figures
  int interval_s = 0;   // -i: print again every this many seconds, until killed (0: once)
};
int cluster_list(AdminContext& ctx, const ClusterListOptions& options = {});
// wipeWritePerm (`writable` false) / addWritePerm: on every name server, the write permission of
// every topic queue of `broker_name` (to drain a broker before maintenance, and to undo it).
int set_write_perm(AdminContext& ctx, const std::string& broker_name, bool writable);

// ---- broker_commands.cpp ----
// -b one broker or -c every broker of a cluster (brokerStatus and getBrokerConfig: slaves too,
// as RocketMQ; updateBrokerConfig: masters only).
int broker_status(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster);
int get_broker_config(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster);
// brokerConsumeStats: every group's per-queue progress on one broker (GET_BROKER_CONSUME_STATS),
// the queues at least `min_diff` behind that anything was consumed from, then the total lag.
struct BrokerConsumeStatsOptions {
  std::string broker_addr;
  bool only_ordered = false;  // -o true: ordered topics only
  std::int64_t min_diff = 0;  // -l
  std::int64_t timeout_ms = 50'000;  // -t (RocketMQ's default: the broker walks every group)
};
int broker_consume_stats(AdminContext& ctx, const BrokerConsumeStatsOptions& options);
int update_broker_config(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster,
                         const std::string& key, const std::string& value);

// ---- allocate_commands.cpp ----
struct AllocateOptions {
  std::string topic;
  std::vector<std::string> client_ids;           // -i: the group's clients (RocketMQ: their IPs)
  client::PluginChoice allocator{"averagely"};  // -a and -s key=value settings
  std::string group = "mqadmin_allocate";        // -g: passed to the allocator
};
// allocateMQ: the queues the allocator gives each client, from the topic's route.
int allocate_mq(AdminContext& ctx, const AllocateOptions& options);

// ---- store_commands.cpp ----
enum class StoreMaintenance : std::uint8_t { kDeleteExpiredCommitLog, kCleanExpiredConsumeQueues, kCleanUnusedTopics };
// deleteExpiredCommitLog / cleanExpiredCQ / cleanUnusedTopic on one broker (-b), every broker of
// a cluster (-c), or with neither every broker the name servers know; slaves too.
int store_maintenance(AdminContext& ctx, StoreMaintenance which, const std::string& broker_addr,
                      const std::string& cluster);
struct QueryCqOptions {
  std::string topic;
  std::int32_t queue_id = 0;
  std::int64_t index = 0;
  std::int32_t count = 10;
  std::string broker_addr;  // -b; empty: the topic's first master
  std::string group;        // -g: also show the group's subscription
};
// queryCq: a consume queue's units from an index, as RocketMQ's QueryConsumeQueueCommand prints.
int query_cq(AdminContext& ctx, const QueryCqOptions& options);
// haStatus: each master's slaves (-b one broker, -c a cluster's masters), or a slave's master;
// again every `interval_s` seconds until killed when it is positive.
int ha_status(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster, int interval_s);

// ---- metadata_commands.cpp ----
struct ExportMetadataOptions {
  std::string broker_addr;                        // -b
  std::string cluster;                            // -c: every master of the cluster
  std::string file_path = "/tmp/rocketmq/export";  // -f: the directory written into
  bool topics_only = false;                       // -t: topic.json
  bool groups_only = false;                       // -g: subscriptionGroup.json
  bool special_topics = false;                    // -s: retry and dead-letter topics too
};
// exportMetadata: the user topics and subscription groups (metadata.json), summed over the
// masters: {"topicConfigTable", "subscriptionGroupTable", "exportTime"}.
int export_metadata(AdminContext& ctx, const ExportMetadataOptions& options);
// exportConfigs: the masters' settings RocketMQ's tool keeps (flush type, role, message size,
// delay levels, ...) and the cluster's scale, to `file_path`/configs.json.
int export_configs(AdminContext& ctx, const std::string& cluster, const std::string& file_path);
// exportMetrics: each master's memory, disk ratio, TPS and day's counts (normal, transactional,
// delayed), average message size, user topics and groups and consuming clients, and the
// cluster's sums, to `file_path`/metrics.json.
int export_metrics(AdminContext& ctx, const std::string& cluster, const std::string& file_path);

// ---- acl_commands.cpp ----
struct AclConfigOptions {
  std::string broker_addr;
  std::string cluster;
  client::ClientApi::AclAccountUpdate account;
};
// updateAclConfig: creates or updates an account (fields not given keep their value).
int update_acl_config(AdminContext& ctx, const AclConfigOptions& options);
// deleteAcl: removes the account of `access_key`.
int delete_acl(AdminContext& ctx, const std::string& access_key, const std::string& broker_addr,
               const std::string& cluster);
// clusterAclConfigVersion: the ACL file's version (counter, last change) on -b one broker or
// every master of -c, as RocketMQ 4's tool prints it.
int cluster_acl_config_version(AdminContext& ctx, const std::string& broker_addr, const std::string& cluster);
// updateGlobalWhiteAddr: replaces the brokers' global white list.
int update_global_white_addresses(AdminContext& ctx, const std::vector<std::string>& addresses,
                                  const std::string& broker_addr, const std::string& cluster);

// ---- rt_commands.cpp ----
struct SendRtOptions {
  std::string topic;
  std::int64_t amount = 100;  // -a
  std::int64_t size = 128;    // -s: body bytes
};
// checkMsgSendRT: `amount` sends to the topic's queues in turn, each one's time, and the average
// of all but the first. Exit 1 when any send failed.
int check_msg_send_rt(AdminContext& ctx, const SendRtOptions& options);
struct SendStatusOptions {
  std::string broker_name;  // -b: the topic named after the broker
  std::int64_t size = 128;  // -s: body bytes
  std::int64_t count = 50;  // -c
};
// sendMsgStatus: `count` sends to the broker's own topic, each one's time and SendResult as
// RocketMQ's tool prints them. Exit 1 when any send failed.
int send_msg_status(AdminContext& ctx, const SendStatusOptions& options);
struct ClusterRtOptions {
  std::string cluster;        // -c: empty = every cluster
  std::int64_t amount = 100;  // -a: sends per broker
  std::int64_t size = 128;    // -s
  int interval_s = 0;         // -i: measure again every this many seconds, until killed (0: once)
};
// clusterRT: per broker, `amount` sends to the topic named after the broker, their average time
// and how many succeeded and failed. Exit 1 when any send failed.
int cluster_rt(AdminContext& ctx, const ClusterRtOptions& options);

// ---- stats_commands.cpp ----
struct StatsAllOptions {
  bool active_only = false;  // -a: only topics with messages in or out over the last day
  std::string topic;         // -t: only this topic
};
// statsAll: for every topic (but retry and dead-letter ones) and each group consuming it, the
// backlog, the last minute's rate in and out and the last day's messages in and out
// (VIEW_BROKER_STATS_DATA on every master of the topic).
int stats_all(AdminContext& ctx, const StatsAllOptions& options);

// ---- group_commands.cpp ----
struct UpdateSubGroupOptions {
  std::string broker_addr;
  std::string cluster;
  // RocketMQ's updateSubGroup starts from the defaults with broadcast and from-min off.
  protocol::SubscriptionGroupConfig group{.group_name = {}, .consume_enable = true, .consume_from_min_enable = false,
                                          .consume_broadcast_enable = false};
};
int update_sub_group(AdminContext& ctx, const UpdateSubGroupOptions& options);
// Deletes the group's settings on the brokers; with -c also its %RETRY% and %DLQ% topics. A
// group no target broker knows is an error (RocketMQ reports success).
int delete_sub_group(AdminContext& ctx, const std::string& group, const std::string& broker_addr,
                     const std::string& cluster);

// ---- namesrv_commands.cpp ----
// The name servers' KV config; writes go to every name server.
int update_kv_config(AdminContext& ctx, const std::string& ns, const std::string& key, const std::string& value);
int delete_kv_config(AdminContext& ctx, const std::string& ns, const std::string& key);
// updateOrderConf: `method` get, put (with `order_conf`, "brokerName:queueNums;...") or delete
// the ORDER_TOPIC_CONFIG entry of `topic`.
int update_order_conf(AdminContext& ctx, const std::string& topic, const std::string& method,
                      const std::string& order_conf);
// Each name server's settings (-n), RocketMQ's "key=  value" lines under its address.
int get_namesrv_config(AdminContext& ctx);
// Changes one live setting on every name server; the first that refuses stops the command.
int update_namesrv_config(AdminContext& ctx, const std::string& key, const std::string& value);

// ---- offset_commands.cpp ----
// consumerProgress: `group`'s per-queue offsets and lag (on `topic` only, when given); with no
// group, one line per group that has a retry topic: consumers online, their lowest version, push
// or pull, model, consume TPS and total lag.
int consumer_progress(AdminContext& ctx, const std::string& group, const std::string& topic);
// `timestamp`: milliseconds since the epoch, or "now" (the end of every queue).
int reset_offset_by_time(AdminContext& ctx, const std::string& group, const std::string& topic,
                         const std::string& timestamp);
// skipAccumulatedMessage: the group's offsets on every queue of `topic` move to the end of the
// queue (RocketMQ's reset to timestamp -1), so its backlog is skipped.
int skip_accumulated_messages(AdminContext& ctx, const std::string& group, const std::string& topic);
// cloneGroupOffset: gives `dest` the offsets `src` committed on every queue of `topic`
// (UPDATE_CONSUMER_OFFSET to each queue's master), so a renamed or new group goes on where the
// old one stopped. Queues `src` consumed nothing from are left alone.
int clone_group_offset(AdminContext& ctx, const std::string& src, const std::string& dest, const std::string& topic);
// RocketMQ's getConsumerStatus: the offsets of `topic` the group's online consumers (only
// `client_id` when not empty) hold in memory, asked through a master of the topic
// (INVOKE_BROKER_TO_GET_CONSUMER_STATUS).
int get_consumer_status(AdminContext& ctx, const std::string& group, const std::string& topic,
                        const std::string& client_id);

// ---- consumer_commands.cpp ----
struct ConsumerStatusOptions {
  std::string group;
  std::string client_id;    // empty: every online consumer of the group, summarized
  std::string broker_addr;  // empty: a master of the group's retry topic
  bool jstack = false;      // ask for a thread dump (Java clients give one; mqkit's do not)
};
// RocketMQ's consumerStatus: GET_CONSUMER_RUNNING_INFO through a broker of the group.
int consumer_status(AdminContext& ctx, const ConsumerStatusOptions& options);

// ---- connection_commands.cpp ----
// RocketMQ's consumerConnection: the group's live consumers as one broker sees them (`broker_addr`,
// else group_broker), their subscriptions and how they consume (GET_CONSUMER_CONNECTION_LIST).
int consumer_connection(AdminContext& ctx, const std::string& group, const std::string& broker_addr);
// RocketMQ's producerConnection: the group's live producers as a master of `topic` sees them
// (GET_PRODUCER_CONNECTION_LIST).
int producer_connection(AdminContext& ctx, const std::string& group, const std::string& topic);
// producer: every producer connected to one broker, by group (GET_ALL_PRODUCER_INFO).
int all_producers(AdminContext& ctx, const std::string& broker_addr);

// ---- message_commands.cpp ----
struct SendOptions {
  std::string topic;
  std::string body;
  std::string tags;
  std::string keys;
};
int send_message(AdminContext& ctx, const SendOptions& options);
struct ConsumeOptions {
  std::string topic;
  std::string group;  // non-empty: commit the offsets reached for this group
  int max_count = 32;
};
int consume_message(AdminContext& ctx, const ConsumeOptions& options);
struct PrintMsgOptions {
  std::string topic;
  std::string sub_expression = "*";    // -s: tags, "TagA || TagB"
  std::optional<std::int64_t> begin_ms;  // -b: from the first message stored at or after it
  std::optional<std::int64_t> end_ms;    // -e: up to the messages stored before it
  bool print_body = true;                // -d
};
// printMsg: every message of every queue of the topic between two store times (each queue's
// ends when not given), as RocketMQ's PrintMessageSubCommand prints them.
int print_msg(AdminContext& ctx, const PrintMsgOptions& options);
// printMsgByQueue: the same for one queue, printing the messages only with `show_messages` (-p)
// and, with `count_by_tag` (-f), how many carry each tag, most first.
int print_msg_by_queue(AdminContext& ctx, const PrintMsgOptions& options, const std::string& broker_name,
                       std::int32_t queue_id, bool show_messages, bool count_by_tag);
// A time as RocketMQ's tools read one: milliseconds since the epoch, or local
// "yyyy-MM-dd#HH:mm:ss:SSS"; InvalidArgument naming the text otherwise.
client::Result<std::int64_t> parse_tool_time(const std::string& text);
int query_msg_by_id(AdminContext& ctx, const std::string& offset_msg_id);
int query_msg_by_key(AdminContext& ctx, const std::string& topic, const std::string& key);
// The message whose unique (client) message id is `msg_id`, from the brokers' key index; a
// message stored more than once (a retried send) is shown once, the earliest stored, unless
// `show_all`.
int query_msg_by_unique_key(AdminContext& ctx, const std::string& topic, const std::string& msg_id, bool show_all);
struct QueryByOffsetOptions {
  std::string topic;
  std::string broker_name;
  std::int32_t queue_id = 0;
  std::int64_t offset = 0;
};
// The message at one queue offset, pulled from the broker's master.
int query_msg_by_offset(AdminContext& ctx, const QueryByOffsetOptions& options);
// RocketMQ's queryMsgTraceById: the message trace records (Pub, SubBefore, SubAfter,
// EndTransaction) of message `msg_id` in `trace_topic` (empty: RMQ_SYS_TRACE_TOPIC), oldest first.
int query_msg_trace_by_id(AdminContext& ctx, const std::string& msg_id, const std::string& trace_topic);

}  // namespace mqkit::admin
