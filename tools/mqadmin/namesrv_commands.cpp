// The name servers' KV config: updateKvConfig / deleteKvConfig (any namespace) and
// updateOrderConf (ORDER_TOPIC_CONFIG: which brokers, with how many queues, serve an ordered
// topic; the name servers put it in routes as orderTopicConf when order_message_enable is on).
// Writes go to every name server, so they all answer the same. And each name server's own
// settings: getNamesrvConfig / updateNamesrvConfig (GET/UPDATE_NAMESRV_CONFIG).
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"

namespace mqkit::admin {

namespace {

constexpr const char* kOrderTopicNamespace = "ORDER_TOPIC_CONFIG";  // RocketMQ's NamesrvUtil

// --json: {"namespace", "key", "value"?} of what was done.
void print_kv(AdminContext& ctx, const std::string& ns, const std::string& key, const std::string* value,
              const std::string& line) {
  if (!ctx.json) {
    *ctx.out << line << "\n";
    return;
  }
  JsonOut json;
  json.w().StartObject();
  json.field("namespace", ns);
  json.field("key", key);
  if (value) json.field("value", *value);
  json.w().EndObject();
  json.print(*ctx.out);
}

}  // namespace

int update_kv_config(AdminContext& ctx, const std::string& ns, const std::string& key, const std::string& value) {
  if (auto put = ctx.api().put_kv_config(ns, key, value); !put) return ctx.fail("updateKvConfig " + ns + " " + key, put);
  print_kv(ctx, ns, key, &value, "create or update kv config to namespace success.");
  return 0;
}

int delete_kv_config(AdminContext& ctx, const std::string& ns, const std::string& key) {
  if (auto deleted = ctx.api().delete_kv_config(ns, key); !deleted) {
    return ctx.fail("deleteKvConfig " + ns + " " + key, deleted);
  }
  print_kv(ctx, ns, key, nullptr, "delete kv config from namespace success.");
  return 0;
}

int update_order_conf(AdminContext& ctx, const std::string& topic, const std::string& method,
                      const std::string& order_conf) {
  // RocketMQ's UpdateOrderConfCommand lines.
  if (method == "get") {
    auto conf = ctx.api().get_kv_config(kOrderTopicNamespace, topic);
    if (!conf) return ctx.fail("updateOrderConf get " + topic, conf.status());
    print_kv(ctx, kOrderTopicNamespace, topic, &*conf,
             "get orderConf success. topic=[" + topic + "], orderConf=[" + *conf + "] ");
    return 0;
  }
  if (method == "put") {
    if (order_conf.empty()) return ctx.fail("updateOrderConf put needs -v 'brokerName:queueNums;...'");
    if (auto put = ctx.api().put_kv_config(kOrderTopicNamespace, topic, order_conf); !put) {
      return ctx.fail("updateOrderConf put " + topic, put);
    }
    print_kv(ctx, kOrderTopicNamespace, topic, &order_conf,
             "update orderConf success. topic=[" + topic + "], orderConf=[" + order_conf + "]");
    return 0;
  }
  if (method == "delete") {
    if (auto deleted = ctx.api().delete_kv_config(kOrderTopicNamespace, topic); !deleted) {
      return ctx.fail("updateOrderConf delete " + topic, deleted);
    }
    print_kv(ctx, kOrderTopicNamespace, topic, nullptr, "delete orderConf success. topic=[" + topic + "]");
    return 0;
  }
  return ctx.fail("updateOrderConf: -m must be get, put or delete, not '" + method + "'");
}

int get_namesrv_config(AdminContext& ctx) {
  std::vector<BrokerAddr> targets;
  for (auto& address : ctx.api().namesrv_addresses()) targets.push_back({"", 0, std::move(address)});
  if (targets.empty()) return ctx.fail("getNamesrvConfig: no name server given (-n or NAMESRV_ADDR)");
  return print_tables(
      ctx, "getNamesrvConfig", targets, [&](const std::string& address) { return ctx.api().get_namesrv_config(address); },
      [&](const BrokerAddr& target, const KeyValues& table) {
        *ctx.out << "============" << target.address << "============\n";
        for (const auto& [key, value] : table) *ctx.out << padded(key, 50) << "=  " << value << "\n";
      });
}

int update_namesrv_config(AdminContext& ctx, const std::string& key, const std::string& value) {
  const std::vector<std::string> addresses = ctx.api().namesrv_addresses();
  if (addresses.empty()) return ctx.fail("updateNamesrvConfig: no name server given (-n or NAMESRV_ADDR)");
  std::string list;
  for (const auto& address : addresses) {
    if (auto updated = ctx.api().update_namesrv_config(address, {{key, value}}); !updated) {
      return ctx.fail("updateNamesrvConfig " + key + " on " + address, updated);
    }
    list += (list.empty() ? "" : ", ") + address;
  }
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.key("namesrvAddrs");
    json.w().StartArray();
    for (const auto& address : addresses) json.str(address);
    json.w().EndArray();
    json.field(key, value);
    json.w().EndObject();
    json.print(*ctx.out);
  } else {
    *ctx.out << "update name server config success![" << list << "]\n" << key << " : " << value << "\n";
  }
  return 0;
}

}  // namespace mqkit::admin
