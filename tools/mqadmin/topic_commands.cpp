// Topic administration: create/update, permission, delete, list, route and per-queue offsets.
#include <algorithm>
#include <iostream>
#include <set>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/protocol/topic_attributes.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::admin {

int update_topic(AdminContext& ctx, const UpdateTopicOptions& options) {
  if (options.cluster.empty() == options.broker_addr.empty()) return ctx.fail("updateTopic needs exactly one of -c and -b");
  std::vector<std::pair<std::string, std::string>> targets;
  if (!options.broker_addr.empty()) {
    targets.emplace_back("", options.broker_addr);
  } else {
    auto masters = cluster_masters(ctx, options.cluster);
    if (!masters) return ctx.fail("updateTopic", masters.status());
    targets = std::move(masters).value();
  }
  protocol::TopicConfig config;
  config.topic_name = options.topic;
  config.read_queue_nums = options.read_queue_nums;
  config.write_queue_nums = options.write_queue_nums;
  config.perm = options.perm;
  config.order = options.order;
  auto attributes = protocol::parse_attribute_changes(options.attributes);
  if (!attributes) return ctx.fail("updateTopic -a", attributes.status());
  config.attributes = std::move(attributes).value();
  JsonOut json;
  json.w().StartArray();
  for (const auto& [name, address] : targets) {
    if (auto created = ctx.api().create_topic(address, config); !created) {
      return ctx.fail("create topic " + options.topic + " on " + address, created);
    }
    if (ctx.json) {
      json.w().StartObject();
      json.field("broker_addr", address);
      json.field("topic", options.topic);
      json.w().EndObject();
    } else {
      *ctx.out << "create topic to " << address << " success.\n";
    }
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return 0;
}

int update_topic_list(AdminContext& ctx, const std::string& file, const std::string& broker_addr,
                      const std::string& cluster) {
  return submit_config_list(ctx, "updateTopicList", "topicConfigList", "topic", file, broker_addr, cluster,
                            protocol::decode_topic_config_list,
                            [&](const std::string& address, const std::vector<protocol::TopicConfig>& topics) {
                              return ctx.api().create_topics(address, topics);
                            });
}

int update_topic_perm(AdminContext& ctx, const std::string& topic, int perm, const std::string& broker_addr,
                      const std::string& cluster) {
  if (cluster.empty() == broker_addr.empty()) return ctx.fail("updateTopicPerm needs exactly one of -c and -b");
  auto route = ctx.api().get_topic_route(topic);
  if (!route) return ctx.fail("updateTopicPerm: route of " + topic, route.status());
  auto serving = route_masters(*route, topic);
  if (!serving) return ctx.fail("updateTopicPerm", serving.status());
  std::vector<std::pair<std::string, std::string>> targets;
  if (!broker_addr.empty()) {
    for (const auto& [name, address] : *serving) {
      if (address == broker_addr) targets.emplace_back(name, address);
    }
    if (targets.empty()) return ctx.fail("topic " + topic + " is not served by a master at " + broker_addr);
  } else {
    auto masters = cluster_masters(ctx, cluster);
    if (!masters) return ctx.fail("updateTopicPerm", masters.status());
    for (const auto& master : *masters) {
      if (std::find(serving->begin(), serving->end(), master) != serving->end()) targets.push_back(master);
    }
    if (targets.empty()) return ctx.fail("no master of cluster " + cluster + " serves topic " + topic);
  }
  JsonOut json;
  json.w().StartArray();
  for (const auto& [name, address] : targets) {
    // The broker's own config, so that the change keeps everything but the permission (queue
    // numbers, order, system flag), as RocketMQ 5.x's tool does. A broker without GET_TOPIC_CONFIG
    // (RocketMQ 4.x) gets the route's queue data, as RocketMQ 4.x's tool sends.
    auto config = ctx.api().get_topic_config(address, topic);
    if (!config) {
      const auto queues = std::find_if(route->queue_datas.begin(), route->queue_datas.end(),
                                       [&name = name](const protocol::QueueData& q) { return q.broker_name == name; });
      if (queues == route->queue_datas.end()) return ctx.fail("the route of " + topic + " has no queues of " + name);
      config = protocol::TopicConfig{.topic_name = topic,
                                     .read_queue_nums = queues->read_queue_nums,
                                     .write_queue_nums = queues->write_queue_nums,
                                     .perm = queues->perm,
                                     .topic_sys_flag = queues->topic_sys_flag};
    }
    const int old_perm = config->perm;
    if (old_perm != perm) {
      config->perm = perm;
      if (auto updated = ctx.api().create_topic(address, *config); !updated) {
        return ctx.fail("update topic " + topic + " perm on " + address, updated);
      }
    }
    if (ctx.json) {
      json.w().StartObject();
      json.field("brokerAddr", address);
      json.field("topic", topic);
      json.field("oldPerm", old_perm);
      json.field("perm", perm);
      json.w().EndObject();
    } else if (old_perm == perm) {
      *ctx.out << "new perm equals to the old one in " << address << "!\n";  // RocketMQ's words
    } else {
      *ctx.out << "update topic perm from " << old_perm << " to " << perm << " in " << address << " success.\n";
    }
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return 0;
}

int delete_topic(AdminContext& ctx, const std::string& topic, const std::string& cluster) {
  auto masters = cluster_masters(ctx, cluster);
  if (!masters) return ctx.fail("deleteTopic", masters.status());
  for (const auto& [name, address] : *masters) {
    if (auto deleted = ctx.api().delete_topic_in_broker(address, topic); !deleted) {
      return ctx.fail("delete topic " + topic + " on " + address, deleted);
    }
  }
  if (auto deleted = ctx.api().delete_topic_in_namesrv(topic); !deleted) {
    return ctx.fail("delete topic " + topic + " in name server", deleted);
  }
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.field("deleted", topic);
    json.field("cluster", cluster);
    json.w().EndObject();
    json.print(*ctx.out);
  } else {
    *ctx.out << "delete topic [" << topic << "] from cluster [" << cluster << "] success.\n";
  }
  return 0;
}

namespace {

struct TopicConsumers {
  std::string topic;
  std::string clusters;          // comma separated: a topic may span clusters
  std::set<std::string> groups;  // empty: nobody consumes it
};

// What topicList -c prints (RocketMQ's "#Cluster Name  #Topic  #Consumer Group").
int topic_list_with_clusters(AdminContext& ctx, const protocol::TopicList& list) {
  bool ok = true;
  std::vector<TopicConsumers> rows;
  for (const auto& topic : list.topic_list) {
    if (topic.starts_with(protocol::kRetryGroupTopicPrefix) || topic.starts_with(protocol::kDlqGroupTopicPrefix)) continue;
    TopicConsumers row{topic, {}, {}};
    auto route = ctx.api().get_topic_route(topic);
    if (!route) {
      ctx.fail("route of " + topic, route.status());
      ok = false;
    } else {
      std::set<std::string> clusters;
      for (const auto& broker : route->broker_datas) clusters.insert(broker.cluster);
      for (const auto& cluster : clusters) row.clusters += (row.clusters.empty() ? "" : ",") + cluster;
      if (auto masters = route_masters(*route, topic)) row.groups = groups_consuming(ctx, *masters, topic, ok);
    }
    rows.push_back(std::move(row));
  }
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const auto& row : rows) {
      json.w().StartObject();
      json.field("topic", row.topic);
      json.field("cluster", row.clusters);
      json.key("groups");
      json.w().StartArray();
      for (const auto& group : row.groups) json.str(group);
      json.w().EndArray();
      json.w().EndObject();
    }
    json.w().EndArray();
    json.print(*ctx.out);
  } else {
    Table table({"#Cluster Name", "#Topic", "#Consumer Group"});
    for (const auto& row : rows) {
      if (row.groups.empty()) table.add({row.clusters, row.topic, ""});
      for (const auto& group : row.groups) table.add({row.clusters, row.topic, group});
    }
    table.print(*ctx.out);
  }
  return ok ? 0 : 1;
}

}  // namespace

int topic_list(AdminContext& ctx, bool with_clusters) {
  auto list = ctx.api().get_all_topic_list();
  if (!list) return ctx.fail("topicList", list.status());
  if (with_clusters) return topic_list_with_clusters(ctx, *list);
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const auto& topic : list->topic_list) json.str(topic);
    json.w().EndArray();
    json.print(*ctx.out);
  } else {
    for (const auto& topic : list->topic_list) *ctx.out << topic << "\n";
  }
  return 0;
}

int topic_cluster_list(AdminContext& ctx, const std::string& topic) {
  auto route = ctx.api().get_topic_route(topic);
  if (!route) return ctx.fail("topicClusterList " + topic, route.status());
  std::set<std::string> clusters;
  for (const auto& broker : route->broker_datas) clusters.insert(broker.cluster);
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const auto& cluster : clusters) json.str(cluster);
    json.w().EndArray();
    json.print(*ctx.out);
  } else {
    for (const auto& cluster : clusters) *ctx.out << cluster << "\n";
  }
  return 0;
}

int topic_route(AdminContext& ctx, const std::string& topic) {
  auto route = ctx.api().get_topic_route(topic);
  if (!route) return ctx.fail("topicRoute " + topic, route.status());
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.key("brokerDatas");
    json.w().StartArray();
    for (const auto& broker : route->broker_datas) {
      json.w().StartObject();
      json.field("cluster", broker.cluster);
      json.field("brokerName", broker.broker_name);
      json.key("brokerAddrs");
      json.w().StartObject();
      for (const auto& [id, address] : broker.broker_addrs) json.field(std::to_string(id), address);
      json.w().EndObject();
      json.w().EndObject();
    }
    json.w().EndArray();
    json.key("queueDatas");
    json.w().StartArray();
    for (const auto& queue : route->queue_datas) {
      json.w().StartObject();
      json.field("brokerName", queue.broker_name);
      json.field("readQueueNums", queue.read_queue_nums);
      json.field("writeQueueNums", queue.write_queue_nums);
      json.field("perm", queue.perm);
      json.field("topicSysFlag", queue.topic_sys_flag);
      json.w().EndObject();
    }
    json.w().EndArray();
    json.w().EndObject();
    json.print(*ctx.out);
    return 0;
  }
  Table brokers({"#Cluster", "#Broker Name", "#BID", "#Addr"});
  for (const auto& broker : route->broker_datas) {
    for (const auto& [id, address] : broker.broker_addrs) {
      brokers.add({broker.cluster, broker.broker_name, std::to_string(id), address});
    }
  }
  brokers.print(*ctx.out);
  *ctx.out << "\n";
  Table queues({"#Broker Name", "#Read Queues", "#Write Queues", "#Perm", "#SysFlag"});
  for (const auto& queue : route->queue_datas) {
    queues.add({queue.broker_name, std::to_string(queue.read_queue_nums), std::to_string(queue.write_queue_nums),
                std::to_string(queue.perm), std::to_string(queue.topic_sys_flag)});
  }
  queues.print(*ctx.out);
  return 0;
}

int topic_status(AdminContext& ctx, const std::string& topic) {
  auto brokers = topic_readers(ctx, topic);
  if (!brokers) return ctx.fail("topicStatus " + topic, brokers.status());
  protocol::TopicStatsTable all;
  for (const auto& [name, address] : *brokers) {
    auto stats = ctx.api().get_topic_stats(address, topic);
    if (!stats) return ctx.fail("topicStatus " + topic + " on " + address, stats.status());
    all.offset_table.insert(stats->offset_table.begin(), stats->offset_table.end());
  }
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const auto& [queue, offsets] : all.offset_table) {
      json.w().StartObject();
      json.field("brokerName", queue.broker_name);
      json.field("queueId", queue.queue_id);
      json.field("minOffset", offsets.min_offset);
      json.field("maxOffset", offsets.max_offset);
      json.field("lastUpdateTimestamp", offsets.last_update_timestamp);
      json.w().EndObject();
    }
    json.w().EndArray();
    json.print(*ctx.out);
    return 0;
  }
  Table table({"#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated"});
  for (const auto& [queue, offsets] : all.offset_table) {
    table.add({queue.broker_name, std::to_string(queue.queue_id), std::to_string(offsets.min_offset),
               std::to_string(offsets.max_offset), std::to_string(offsets.last_update_timestamp)});
  }
  table.print(*ctx.out);
  return 0;
}

}  // namespace mqkit::admin
