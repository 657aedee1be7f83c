// mqadmin: RocketMQ-style administration subcommands. Only argument parsing lives here; each
// command is a function of admin.hpp.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <string>

#include "admin.hpp"
#include "tls_options.hpp"
#include "mqkit/kernel/logging.hpp"

int main(int argc, char** argv) {
  using namespace mqkit::admin;
  CLI::App app{"mqadmin: administer a RocketMQ-compatible cluster"};
  app.require_subcommand(1);
  std::string namesrv;
  bool json = false;
  int timeout_ms = 3000;
  app.add_option("-n,--namesrvAddr", namesrv, "name servers host:port[;host:port] (default: $NAMESRV_ADDR)");
  app.add_flag("--json", json, "print machine-readable JSON");
  app.add_option("--timeout", timeout_ms, "RPC timeout in ms")->check(CLI::PositiveNumber);
  bool verbose = false;
  mqkit::protocol::acl::Credentials credentials;
  app.add_option("--access-key", credentials.access_key,
                 "plain ACL account: sign every request with this access key (default: $MQKIT_ACCESS_KEY)");
  app.add_option("--secret-key", credentials.secret_key,
                 "the account's secret key (default: $MQKIT_SECRET_KEY, which keeps it out of the process list)");
  app.add_flag("-v,--verbose", verbose, "show the SDK's informational log lines on stderr");
  std::map<std::string, std::string> transport_settings;
  mqkit::tools::add_tls_options(app, transport_settings);
  // Options after the subcommand name belong to the global app too (`mqadmin topicList -n x`).
  app.fallthrough();

  std::function<int(AdminContext&)> command;

  UpdateTopicOptions update;
  auto* sub = app.add_subcommand("updateTopic", "create or update a topic");
  sub->add_option("-t,--topic", update.topic, "topic name")->required();
  sub->add_option("-c,--clusterName", update.cluster, "create on every master of this cluster");
  sub->add_option("-b,--brokerAddr", update.broker_addr, "create on this broker");
  sub->add_option("-r,--readQueueNums", update.read_queue_nums, "read queues (default 8)")->check(CLI::PositiveNumber);
  sub->add_option("-w,--writeQueueNums", update.write_queue_nums, "write queues (default 8)")->check(CLI::PositiveNumber);
  sub->add_option("-p,--perm", update.perm, "permission: 4 read, 2 write, 6 both")->check(CLI::Range(0, 7));
  sub->add_option("-o,--order", update.order, "ordered topic (true/false)");
  sub->add_option("-a,--attributes", update.attributes,
                  "attribute changes, e.g. +message.type=FIFO (NORMAL, FIFO, DELAY, TRANSACTION, MIXED) or -message.type");
  sub->callback([&] { command = [&](AdminContext& c) { return update_topic(c, update); }; });

  std::string topic;
  std::string cluster;
  std::string broker_addr;
  int perm = 6;
  sub = app.add_subcommand("updateTopicPerm", "change a topic's permission, keeping its queues");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-p,--perm", perm, "permission: 4 read, 2 write, 6 both")->required()->check(CLI::Range(0, 7));
  sub->add_option("-b,--brokerAddr", broker_addr, "on this master");
  sub->add_option("-c,--clusterName", cluster, "on every master of this cluster that serves the topic");
  sub->callback([&] { command = [&](AdminContext& c) { return update_topic_perm(c, topic, perm, broker_addr, cluster); }; });

  std::string list_file;
  sub = app.add_subcommand("updateTopicList", "create or update topics in batch, from a JSON file");
  sub->add_option("-b,--brokerAddr", broker_addr, "on this broker");
  sub->add_option("-c,--clusterName", cluster, "on every master of this cluster");
  sub->add_option("-f,--filename", list_file, "JSON array of TopicConfig")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return update_topic_list(c, list_file, broker_addr, cluster); }; });

  sub = app.add_subcommand("deleteTopic", "delete a topic from a cluster and the name servers");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-c,--clusterName", cluster, "cluster")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return delete_topic(c, topic, cluster); }; });

  std::string kv_namespace;
  std::string kv_key;
  std::string kv_value;
  sub = app.add_subcommand("updateKvConfig", "create or update a KV config item on every name server");
  sub->add_option("-s,--namespace", kv_namespace, "namespace")->required();
  sub->add_option("-k,--key", kv_key, "key")->required();
  sub->add_option("-v,--value", kv_value, "value")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return update_kv_config(c, kv_namespace, kv_key, kv_value); }; });
  sub = app.add_subcommand("deleteKvConfig", "delete a KV config item from every name server");
  sub->add_option("-s,--namespace", kv_namespace, "namespace")->required();
  sub->add_option("-k,--key", kv_key, "key")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return delete_kv_config(c, kv_namespace, kv_key); }; });
  std::string order_method;
  sub = app.add_subcommand("updateOrderConf", "get, put or delete an ordered topic's broker list (ORDER_TOPIC_CONFIG)");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-m,--method", order_method, "get, put or delete")->required();
  sub->add_option("-v,--orderConf", kv_value, "put: brokerName:queueNums[;brokerName:queueNums...]");
  sub->callback([&] { command = [&](AdminContext& c) { return update_order_conf(c, topic, order_method, kv_value); }; });

  bool with_clusters = false;
  sub = app.add_subcommand("getNamesrvConfig", "show every name server's settings");
  sub->callback([&] { command = [&](AdminContext& c) { return get_namesrv_config(c); }; });
  std::string config_key;
  std::string config_value;
  sub = app.add_subcommand("updateNamesrvConfig", "change a name server setting on every name server (live settings only)");
  sub->add_option("-k,--key", config_key, "setting name (camelCase or snake_case)")->required();
  sub->add_option("-v,--value", config_value, "new value")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return update_namesrv_config(c, config_key, config_value); }; });

  sub = app.add_subcommand("topicList", "list every topic");
  sub->add_flag("-c,--clusterModel", with_clusters, "with each topic's cluster and consumer groups");
  sub->callback([&] { command = [&](AdminContext& c) { return topic_list(c, with_clusters); }; });

  sub = app.add_subcommand("topicRoute", "show the route of a topic");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return topic_route(c, topic); }; });

  sub = app.add_subcommand("topicClusterList", "list the clusters whose brokers serve a topic");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return topic_cluster_list(c, topic); }; });

  sub = app.add_subcommand("topicStatus", "show min/max offset of every queue of a topic");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return topic_status(c, topic); }; });

  ClusterListOptions cluster_list_options;
  sub = app.add_subcommand("clusterList", "list the brokers of every cluster with their load");
  sub->add_flag("-m,--moreStats", cluster_list_options.more, "yesterday's and today's message totals");
  sub->add_option("-i,--interval", cluster_list_options.interval_s, "print again every this many seconds")
      ->check(CLI::PositiveNumber);
  sub->callback([&] { command = [&](AdminContext& c) { return cluster_list(c, cluster_list_options); }; });

  std::string broker_name;
  sub = app.add_subcommand("wipeWritePerm", "take write permission from a broker name on every name server");
  sub->add_option("-b,--brokerName", broker_name, "broker name")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return set_write_perm(c, broker_name, false); }; });
  sub = app.add_subcommand("addWritePerm", "give a broker name read and write permission again on every name server");
  sub->add_option("-b,--brokerName", broker_name, "broker name")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return set_write_perm(c, broker_name, true); }; });

  sub = app.add_subcommand("brokerStatus", "show a broker's runtime figures (GET_BROKER_RUNTIME_INFO)");
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every broker of this cluster, slaves too");
  sub->callback([&] { command = [&](AdminContext& c) { return broker_status(c, broker_addr, cluster); }; });

  BrokerConsumeStatsOptions consume_stats_options;
  sub = app.add_subcommand("brokerConsumeStats", "every group's per-queue progress on one broker");
  sub->add_option("-b,--brokerAddr", consume_stats_options.broker_addr, "broker address")->required();
  sub->add_option("-t,--timeoutMillis", consume_stats_options.timeout_ms, "request timeout in ms (default 50000)")
      ->check(CLI::PositiveNumber);
  sub->add_option("-l,--level", consume_stats_options.min_diff, "show only queues at least this far behind");
  sub->add_option("-o,--order", consume_stats_options.only_ordered, "true: ordered topics only");
  sub->callback([&] { command = [&](AdminContext& c) { return broker_consume_stats(c, consume_stats_options); }; });

  AclConfigOptions acl;
  std::string acl_secret;
  std::string acl_white;
  std::string acl_topic_perm;
  std::string acl_group_perm;
  bool acl_admin = false;
  std::vector<std::string> acl_topics;
  std::vector<std::string> acl_groups;
  auto* update_acl = app.add_subcommand("updateAclConfig", "create or update a plain ACL account on brokers");
  update_acl->add_option("-b,--brokerAddr", acl.broker_addr, "this broker");
  update_acl->add_option("-c,--clusterName", acl.cluster, "every broker of this cluster, slaves too");
  update_acl->add_option("-a,--accessKey", acl.account.access_key, "the account's access key")->required();
  auto* secret_option = update_acl->add_option("-s,--secretKey", acl_secret, "its secret key (needed for a new account)");
  auto* white_option = update_acl->add_option("-w,--whiteRemoteAddress", acl_white, "addresses that need no signature");
  auto* topic_perm_option = update_acl->add_option("-i,--defaultTopicPerm", acl_topic_perm, "DENY, PUB, SUB or PUB|SUB");
  auto* group_perm_option = update_acl->add_option("-u,--defaultGroupPerm", acl_group_perm, "DENY, PUB, SUB or PUB|SUB");
  auto* topics_option =
      update_acl->add_option("-t,--topicPerms", acl_topics, "topicA=DENY,topicB=PUB|SUB (replaces the list)")->delimiter(',');
  auto* groups_option =
      update_acl->add_option("-g,--groupPerms", acl_groups, "groupA=DENY,groupB=SUB (replaces the list)")->delimiter(',');
  auto* admin_option = update_acl->add_option("-m,--admin", acl_admin, "true: may administer the broker");
  update_acl->callback([&] {
    if (secret_option->count()) acl.account.secret_key = acl_secret;
    if (white_option->count()) acl.account.white_remote_address = acl_white;
    if (topic_perm_option->count()) acl.account.default_topic_perm = acl_topic_perm;
    if (group_perm_option->count()) acl.account.default_group_perm = acl_group_perm;
    if (topics_option->count()) acl.account.topic_perms = acl_topics;
    if (groups_option->count()) acl.account.group_perms = acl_groups;
    if (admin_option->count()) acl.account.admin = acl_admin;
    command = [&](AdminContext& c) { return update_acl_config(c, acl); };
  });
  std::string acl_key;
  sub = app.add_subcommand("deleteAcl", "delete a plain ACL account on brokers");
  sub->add_option("-a,--accessKey", acl_key, "the account's access key")->required();
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every broker of this cluster, slaves too");
  sub->callback([&] { command = [&](AdminContext& c) { return delete_acl(c, acl_key, broker_addr, cluster); }; });
  std::vector<std::string> white_addresses;
  sub = app.add_subcommand("clusterAclConfigVersion", "show the version of the brokers' ACL files");
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every master of this cluster");
  sub->callback([&] { command = [&](AdminContext& c) { return cluster_acl_config_version(c, broker_addr, cluster); }; });
  sub = app.add_subcommand("updateGlobalWhiteAddr", "replace the brokers' global ACL white list");
  sub->add_option("-g,--globalWhiteRemoteAddresses", white_addresses, "10.10.103.*,192.168.0.* (\"\" for none)")
      ->required()
      ->delimiter(',');
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every broker of this cluster, slaves too");
  sub->callback([&] {
    command = [&](AdminContext& c) { return update_global_white_addresses(c, white_addresses, broker_addr, cluster); };
  });

  AllocateOptions allocate;
  std::vector<std::string> allocator_settings;
  sub = app.add_subcommand("allocateMQ", "show how an allocator shares a topic's queues among clients");
  sub->add_option("-t,--topic", allocate.topic, "topic")->required();
  sub->add_option("-i,--ipList", allocate.client_ids, "client ids (RocketMQ: IPs), comma separated")
      ->required()
      ->delimiter(',');
  sub->add_option("-a,--allocator", allocate.allocator.name,
                  "allocator plugin or RocketMQ class name (default averagely)");
  sub->add_option("-s,--setting", allocator_settings, "allocator setting key=value (repeatable)");
  sub->add_option("-g,--group", allocate.group, "consumer group passed to the allocator");
  sub->callback([&] {
    for (const auto& setting : allocator_settings) {
      const auto equals = setting.find('=');
      if (equals == std::string::npos) throw CLI::ValidationError("-s", "\"" + setting + "\" is not key=value");
      allocate.allocator.settings[setting.substr(0, equals)] = setting.substr(equals + 1);
    }
    command = [&](AdminContext& c) { return allocate_mq(c, allocate); };
  });

  SendRtOptions send_rt;
  sub = app.add_subcommand("checkMsgSendRT", "time sends to a topic's queues in turn");
  sub->add_option("-t,--topic", send_rt.topic, "topic")->required();
  sub->add_option("-a,--amount", send_rt.amount, "sends (default 100)")->check(CLI::PositiveNumber);
  sub->add_option("-s,--size", send_rt.size, "body bytes (default 128)")->check(CLI::Range(std::int64_t{1}, std::int64_t{4 << 20}));
  sub->callback([&] { command = [&](AdminContext& c) { return check_msg_send_rt(c, send_rt); }; });
  SendStatusOptions send_status;
  sub = app.add_subcommand("sendMsgStatus", "send to a broker's own topic and print each send's time and result");
  sub->add_option("-b,--brokerName", send_status.broker_name, "broker name")->required();
  sub->add_option("-s,--messageSize", send_status.size, "body bytes (default 128)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{4 << 20}));
  sub->add_option("-c,--count", send_status.count, "sends (default 50)")->check(CLI::PositiveNumber);
  sub->callback([&] { command = [&](AdminContext& c) { return send_msg_status(c, send_status); }; });
  ClusterRtOptions cluster_rt_options;
  sub = app.add_subcommand("clusterRT", "time sends to every broker of a cluster (its broker-name topic)");
  sub->add_option("-c,--cluster", cluster_rt_options.cluster, "this cluster only");
  sub->add_option("-a,--amount", cluster_rt_options.amount, "sends per broker (default 100)")->check(CLI::PositiveNumber);
  sub->add_option("-s,--size", cluster_rt_options.size, "body bytes (default 128)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{4 << 20}));
  sub->add_option("-i,--interval", cluster_rt_options.interval_s, "measure again every this many seconds")
      ->check(CLI::PositiveNumber);
  sub->callback([&] { command = [&](AdminContext& c) { return cluster_rt(c, cluster_rt_options); }; });

  StatsAllOptions stats_all_options;
  sub = app.add_subcommand("statsAll", "every topic's and consumer group's backlog and traffic");
  sub->add_flag("-a,--activeTopic", stats_all_options.active_only, "only topics with traffic over the last day");
  sub->add_option("-t,--topic", stats_all_options.topic, "only this topic");
  sub->callback([&] { command = [&](AdminContext& c) { return stats_all(c, stats_all_options); }; });

  const auto add_store_maintenance = [&](const char* name, const char* description, StoreMaintenance which) {
    auto* maintenance = app.add_subcommand(name, description);
    maintenance->add_option("-b,--brokerAddr", broker_addr, "this broker");
    maintenance->add_option("-c,--cluster", cluster, "every broker of this cluster (default: of every cluster)");
    maintenance->callback([&, which] {
      command = [&, which](AdminContext& c) { return store_maintenance(c, which, broker_addr, cluster); };
    });
  };
  add_store_maintenance("deleteExpiredCommitLog", "delete the commit log files past their reserved time now",
                        StoreMaintenance::kDeleteExpiredCommitLog);
  add_store_maintenance("cleanExpiredCQ", "drop consume queues none of whose messages is left",
                        StoreMaintenance::kCleanExpiredConsumeQueues);
  add_store_maintenance("cleanUnusedTopic", "drop the queues of topics the broker has no config for",
                        StoreMaintenance::kCleanUnusedTopics);
  // -b and -e of printMsg and printMsgByQueue, as RocketMQ's tools read times.
  const auto read_times = [](const char* name, const std::string& begin, const std::string& end,
                             PrintMsgOptions& options) {
    for (auto [text, into] : {std::pair{&begin, &options.begin_ms}, std::pair{&end, &options.end_ms}}) {
      if (text->empty()) continue;
      auto parsed = parse_tool_time(*text);
      if (!parsed) throw CLI::ValidationError(name, parsed.status().message());
      *into = *parsed;
    }
  };
  PrintMsgOptions print_options;
  std::string print_begin;
  std::string print_end;
  sub = app.add_subcommand("printMsg", "print every message of a topic between two store times");
  sub->add_option("-t,--topic", print_options.topic, "topic name")->required();
  sub->add_option("-s,--subExpression", print_options.sub_expression, "tags, e.g. TagA || TagB (default *)");
  sub->add_option("-b,--beginTimestamp", print_begin, "ms since the epoch or yyyy-MM-dd#HH:mm:ss:SSS (default: the start)");
  sub->add_option("-e,--endTimestamp", print_end, "ms since the epoch or yyyy-MM-dd#HH:mm:ss:SSS (default: the end)");
  sub->add_option("-d,--printBody", print_options.print_body, "print the bodies (default true)");
  std::string ignored_charset;
  sub->add_option("-c,--charsetName", ignored_charset, "accepted for RocketMQ's scripts; bodies print as stored (UTF-8)");
  sub->callback([&] {
    read_times("printMsg", print_begin, print_end, print_options);
    command = [&](AdminContext& c) { return print_msg(c, print_options); };
  });

  PrintMsgOptions by_queue_options;
  by_queue_options.print_body = false;
  std::string by_queue_broker;
  std::int32_t by_queue_id = 0;
  bool by_queue_print = false;
  bool by_queue_count = false;
  std::string by_queue_begin;
  std::string by_queue_end;
  sub = app.add_subcommand("printMsgByQueue", "print or count by tag the messages of one queue between two store times");
  sub->add_option("-t,--topic", by_queue_options.topic, "topic name")->required();
  sub->add_option("-a,--brokerName", by_queue_broker, "broker name")->required();
  sub->add_option("-i,--queueId", by_queue_id, "queue id")->required()->check(CLI::NonNegativeNumber);
  sub->add_option("-s,--subExpression", by_queue_options.sub_expression, "tags, e.g. TagA || TagB (default *)");
  sub->add_option("-b,--beginTimestamp", by_queue_begin, "ms since the epoch or yyyy-MM-dd#HH:mm:ss:SSS (default: the start)");
  sub->add_option("-e,--endTimestamp", by_queue_end, "ms since the epoch or yyyy-MM-dd#HH:mm:ss:SSS (default: the end)");
  sub->add_option("-p,--printMsg", by_queue_print, "print each message (default false)");
  sub->add_option("-d,--printBody", by_queue_options.print_body, "print the bodies (default false)");
  sub->add_option("-f,--calculate", by_queue_count, "count the messages of each tag (default false)");
  std::string ignored_queue_charset;
  sub->add_option("-c,--charsetName", ignored_queue_charset, "accepted for RocketMQ's scripts; bodies print as stored");
  sub->callback([&] {
    read_times("printMsgByQueue", by_queue_begin, by_queue_end, by_queue_options);
    command = [&](AdminContext& c) {
      return print_msg_by_queue(c, by_queue_options, by_queue_broker, by_queue_id, by_queue_print, by_queue_count);
    };
  });

  ExportMetadataOptions export_options;
  sub = app.add_subcommand("exportMetadata", "write the user topics and subscription groups to a JSON file");
  sub->add_option("-b,--brokerAddr", export_options.broker_addr, "this broker");
  sub->add_option("-c,--clusterName", export_options.cluster, "every master of this cluster (queue numbers summed)");
  sub->add_option("-f,--filePath", export_options.file_path, "directory (default /tmp/rocketmq/export)");
  sub->add_flag("-t,--topic", export_options.topics_only, "only topics (topic.json)");
  sub->add_flag("-g,--subscriptionGroup", export_options.groups_only, "only subscription groups (subscriptionGroup.json)");
  sub->add_flag("-s,--specialTopic", export_options.special_topics, "retry and dead-letter topics too");
  sub->callback([&] {
    if (export_options.topics_only && export_options.groups_only) throw CLI::ValidationError("-t and -g", "give one of them");
    command = [&](AdminContext& c) { return export_metadata(c, export_options); };
  });
  std::string export_dir = "/tmp/rocketmq/export";
  sub = app.add_subcommand("exportConfigs", "write a cluster's broker settings and scale to a JSON file");
  sub->add_option("-c,--clusterName", cluster, "cluster")->required();
  sub->add_option("-f,--filePath", export_dir, "directory (default /tmp/rocketmq/export)");
  sub->callback([&] { command = [&](AdminContext& c) { return export_configs(c, cluster, export_dir); }; });
  sub = app.add_subcommand("exportMetrics", "write each master's load, traffic and clients to a JSON file");
  sub->add_option("-c,--clusterName", cluster, "cluster")->required();
  sub->add_option("-f,--filePath", export_dir, "directory (default /tmp/rocketmq/export)");
  sub->callback([&] { command = [&](AdminContext& c) { return export_metrics(c, cluster, export_dir); }; });
  QueryCqOptions query_cq_options;
  sub = app.add_subcommand("queryCq", "show a consume queue's units (commit offset, size, tag hash)");
  sub->add_option("-t,--topic", query_cq_options.topic, "topic")->required();
  sub->add_option("-q,--queue", query_cq_options.queue_id, "queue id")->required()->check(CLI::NonNegativeNumber);
  sub->add_option("-i,--index", query_cq_options.index, "first queue offset")->required()->check(CLI::NonNegativeNumber);
  sub->add_option("-c,--count", query_cq_options.count, "how many (default 10)")->check(CLI::Range(1, 10000));
  sub->add_option("-b,--broker", query_cq_options.broker_addr, "broker address (default: the topic's first master)");
  sub->add_option("-g,--consumer", query_cq_options.group, "also show this group's subscription");
  sub->callback([&] { command = [&](AdminContext& c) { return query_cq(c, query_cq_options); }; });
  int ha_interval_s = 0;
  sub = app.add_subcommand("haStatus", "replication: each master's slaves, or a slave's master");
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every master of this cluster");
  sub->add_option("-i,--interval", ha_interval_s, "print again every this many seconds")->check(CLI::PositiveNumber);
  sub->callback([&] { command = [&](AdminContext& c) { return ha_status(c, broker_addr, cluster, ha_interval_s); }; });

  sub = app.add_subcommand("getBrokerConfig", "show a broker's configuration");
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every broker of this cluster, slaves too");
  sub->callback([&] { command = [&](AdminContext& c) { return get_broker_config(c, broker_addr, cluster); }; });

  sub = app.add_subcommand("updateBrokerConfig", "change a broker setting while it runs (live settings only)");
  sub->add_option("-b,--brokerAddr", broker_addr, "this broker");
  sub->add_option("-c,--clusterName", cluster, "every master of this cluster");
  sub->add_option("-k,--key", config_key, "config key (camelCase or snake_case)")->required();
  sub->add_option("-v,--value", config_value, "config value")->required();
  sub->callback([&] {
    command = [&](AdminContext& c) { return update_broker_config(c, broker_addr, cluster, config_key, config_value); };
  });

  UpdateSubGroupOptions sub_group;
  auto& g = sub_group.group;
  sub = app.add_subcommand("updateSubGroup", "create or update a consumer group's settings");
  sub->add_option("-b,--brokerAddr", sub_group.broker_addr, "on this broker");
  sub->add_option("-c,--clusterName", sub_group.cluster, "on every master of this cluster");
  sub->add_option("-g,--groupName", g.group_name, "consumer group")->required();
  sub->add_option("-s,--consumeEnable", g.consume_enable, "consume enable (true/false, default true)");
  sub->add_option("-m,--consumeFromMinEnable", g.consume_from_min_enable, "from min offset (default false)");
  sub->add_option("-d,--consumeBroadcastEnable", g.consume_broadcast_enable, "broadcast (default false)");
  sub->add_option("-q,--retryQueueNums", g.retry_queue_nums, "retry queue nums (default 1)")->check(CLI::NonNegativeNumber);
  sub->add_option("-r,--retryMaxTimes", g.retry_max_times, "retry max times (default 16)");
  sub->add_option("-i,--brokerId", g.broker_id, "consume from which broker id (default 0)")->check(CLI::NonNegativeNumber);
  sub->add_option("-w,--whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly,
                  "which broker id when consume slowly (default 1)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("-a,--notifyConsumerIdsChanged", g.notify_consumer_ids_changed_enable,
                  "notify consumer ids changed (default true)");
  sub->add_option("-o,--consumeMessageOrderly", g.consume_message_orderly,
                  "consume in order (default false; RocketMQ 5 pop consumers get a queue's messages one batch at a time)");
  sub->callback([&] { command = [&](AdminContext& c) { return update_sub_group(c, sub_group); }; });

  std::string group;
  sub = app.add_subcommand("deleteSubGroup", "delete a consumer group's settings");
  sub->add_option("-b,--brokerAddr", broker_addr, "from this broker");
  sub->add_option("-c,--clusterName", cluster, "from every master of this cluster, with its retry and DLQ topics");
  sub->add_option("-g,--groupName", group, "consumer group")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return delete_sub_group(c, group, broker_addr, cluster); }; });

  sub = app.add_subcommand("getConsumerConfig", "show a consumer group's settings on every broker that has it");
  sub->add_option("-g,--groupName", group, "consumer group")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return get_consumer_config(c, group); }; });

  sub = app.add_subcommand("updateSubGroupList", "create or update consumer groups in batch, from a JSON file");
  sub->add_option("-b,--brokerAddr", broker_addr, "on this broker");
  sub->add_option("-c,--clusterName", cluster, "on every master of this cluster");
  sub->add_option("-f,--filename", list_file, "JSON array of SubscriptionGroupConfig")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return update_sub_group_list(c, list_file, broker_addr, cluster); }; });

  sub = app.add_subcommand("consumerProgress", "show a consumer group's offsets and lag, or every group's summary");
  sub->add_option("-g,--groupName", group, "consumer group (none: every group, one line each)");
  sub->add_option("-t,--topicName", topic, "only this topic");
  sub->callback([&] { command = [&](AdminContext& c) { return consumer_progress(c, group, topic); }; });

  ConsumerStatusOptions status;
  sub = app.add_subcommand("consumerStatus", "show live consumers' settings, subscriptions and process queues");
  sub->add_option("-g,--consumerGroup", status.group, "consumer group")->required();
  sub->add_option("-i,--clientId", status.client_id, "only this consumer, in detail");
  sub->add_option("-b,--brokerAddr", status.broker_addr, "ask through this broker");
  sub->add_flag("-s,--jstack", status.jstack, "ask for the consumer's thread dump (Java clients only)");
  sub->callback([&] { command = [&](AdminContext& c) { return consumer_status(c, status); }; });

  sub = app.add_subcommand("consumerConnection", "show a consumer group's connections, subscriptions and settings");
  sub->add_option("-g,--consumerGroup", group, "consumer group")->required();
  sub->add_option("-b,--brokerAddr", broker_addr, "ask this broker");
  sub->callback([&] { command = [&](AdminContext& c) { return consumer_connection(c, group, broker_addr); }; });

  sub = app.add_subcommand("producerConnection", "show a producer group's connections");
  sub->add_option("-g,--producerGroup", group, "producer group")->required();
  sub->add_option("-t,--topic", topic, "a topic the group sends to (its brokers are asked)")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return producer_connection(c, group, topic); }; });
  sub = app.add_subcommand("producer", "show every producer connected to a broker, by group");
  sub->add_option("-b,--broker", broker_addr, "broker address")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return all_producers(c, broker_addr); }; });

  std::string msg_id;
  sub = app.add_subcommand("queryMsgById", "show a message by its offset message id");
  sub->add_option("-i,--msgId", msg_id, "offset message id (32 hex)")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return query_msg_by_id(c, msg_id); }; });

  std::string key;
  sub = app.add_subcommand("queryMsgByKey", "find messages of a topic by key");
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-k,--msgKey", key, "message key")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return query_msg_by_key(c, topic, key); }; });

  bool show_all = false;
  sub = app.add_subcommand("queryMsgByUniqueKey", "show a message by its unique (client) message id");
  sub->add_option("-i,--msgId", msg_id, "unique message id (the producer's UNIQ_KEY)")->required();
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_flag("-a,--showAll", show_all, "every stored copy (a retried send stores more than one)");
  sub->callback([&] { command = [&](AdminContext& c) { return query_msg_by_unique_key(c, topic, msg_id, show_all); }; });

  std::string trace_topic;
  sub = app.add_subcommand("queryMsgTraceById", "show the message trace records of a message");
  sub->add_option("-i,--msgId", msg_id, "message id (the producer's UNIQ_KEY)")->required();
  sub->add_option("-t,--traceTopic,--trace-topic", trace_topic, "trace topic (default RMQ_SYS_TRACE_TOPIC)");
  sub->callback([&] { command = [&](AdminContext& c) { return query_msg_trace_by_id(c, msg_id, trace_topic); }; });

  QueryByOffsetOptions by_offset;
  sub = app.add_subcommand("queryMsgByOffset", "show the message at one queue offset");
  sub->add_option("-t,--topic", by_offset.topic, "topic name")->required();
  sub->add_option("-b,--brokerName", by_offset.broker_name, "broker name")->required();
  sub->add_option("-i,--queueId", by_offset.queue_id, "queue id")
      ->required()
      ->check(CLI::Range(0, std::numeric_limits<std::int32_t>::max()));
  sub->add_option("-o,--offset", by_offset.offset, "queue offset")
      ->required()
      ->check(CLI::Range(std::int64_t{0}, std::numeric_limits<std::int64_t>::max()));
  sub->callback([&] { command = [&](AdminContext& c) { return query_msg_by_offset(c, by_offset); }; });

  std::string timestamp;
  sub = app.add_subcommand("resetOffsetByTime", "move a group's offsets on a topic to a time");
  sub->add_option("-g,--group", group, "consumer group")->required();
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-s,--timestamp", timestamp, "ms since the epoch, or now")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return reset_offset_by_time(c, group, topic, timestamp); }; });

  sub = app.add_subcommand("skipAccumulatedMessage", "move a group's offsets on a topic to the end of every queue");
  sub->add_option("-g,--group", group, "consumer group")->required();
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->callback([&] { command = [&](AdminContext& c) { return skip_accumulated_messages(c, group, topic); }; });

  std::string src_group;
  std::string dest_group;
  bool offline = false;
  sub = app.add_subcommand("cloneGroupOffset", "give a group the offsets another group committed on a topic");
  sub->add_option("-s,--srcGroup", src_group, "the group whose offsets are copied")->required();
  sub->add_option("-d,--destGroup", dest_group, "the group that gets them")->required();
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-o,--offline", offline, "accepted as RocketMQ's tool accepts it; it changes nothing");
  sub->callback([&] { command = [&](AdminContext& c) { return clone_group_offset(c, src_group, dest_group, topic); }; });

  std::string origin_client_id;
  sub = app.add_subcommand("getConsumerStatus", "show the offsets live consumers hold in memory");
  sub->add_option("-g,--group", group, "consumer group")->required();
  sub->add_option("-t,--topic", topic, "topic name")->required();
  sub->add_option("-i,--originClientId", origin_client_id, "only this consumer");
  sub->callback(
      [&] { command = [&](AdminContext& c) { return get_consumer_status(c, group, topic, origin_client_id); }; });

  SendOptions send;
  sub = app.add_subcommand("sendMessage", "send one message");
  sub->add_option("-t,--topic", send.topic, "topic name")->required();
  sub->add_option("-p,--body", send.body, "message body")->required();
  sub->add_option("-c,--tags", send.tags, "tag");
  sub->add_option("-k,--keys", send.keys, "keys, space separated");
  sub->callback([&] { command = [&](AdminContext& c) { return send_message(c, send); }; });

  ConsumeOptions consume;
  sub = app.add_subcommand("consumeMessage", "print messages from the beginning of every queue");
  sub->add_option("-t,--topic", consume.topic, "topic name")->required();
  sub->add_option("-g,--consumerGroup", consume.group, "commit the offsets reached for this group");
  sub->add_option("-c,--count", consume.max_count, "at most this many messages (default 32)")
      ->check(CLI::PositiveNumber);
  sub->callback([&] { command = [&](AdminContext& c) { return consume_message(c, consume); }; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // help: 0; bad arguments: a message on stderr and non-zero
  }

  // The SDK logs instance start/stop at info; on a command line that is noise around the answer.
  if (!verbose) mqkit::kernel::logger("client")->set_level(spdlog::level::warn);
  if (namesrv.empty()) {
    if (const char* env = std::getenv("NAMESRV_ADDR")) namesrv = env;
  }
  auto instance = connect(namesrv, std::chrono::milliseconds(timeout_ms),
                          mqkit::client::credentials_or_environment(std::move(credentials)), transport_settings);
  if (!instance) {
    std::cerr << "mqadmin: " << instance.status().message() << "\n";
    return 1;
  }
  AdminContext context{std::move(instance).value(), json, &std::cout, &std::cerr};
  return command(context);
}
