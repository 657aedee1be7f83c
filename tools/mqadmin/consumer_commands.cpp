// Consumers: consumerStatus asks live consumers, through a broker of the group, for their running
// info (GET_CONSUMER_RUNNING_INFO: settings, subscriptions, per-queue process queues, rates).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/client/response_status.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::admin {
namespace {

using protocol::ConsumerRunningInfo;
using RunningInfos = std::map<std::string, ConsumerRunningInfo>;  // by client id

// RocketMQ's analyzeProcessQueue thresholds: a concurrent queue with cached messages and no
// consumption for a minute looks blocked.
constexpr std::int64_t kBlockedAfterMs = 60 * 1000;

std::string property(const ConsumerRunningInfo& info, std::string_view key) {
  const auto it = info.properties.find(std::string(key));
  return it == info.properties.end() ? std::string() : it->second;
}

client::Result<ConsumerRunningInfo> fetch_running_info(AdminContext& ctx, const std::string& address,
                                                       const std::string& group, const std::string& client_id,
                                                       bool jstack) {
  auto request = plugin::v1::RemotingCommand::request(protocol::request_code::kGetConsumerRunningInfo);
  request.ext_fields.set("consumerGroup", group);
  request.ext_fields.set("clientId", client_id);
  request.ext_fields.set("jstackEnable", jstack);
  auto response = ctx.api().invoke(address, std::move(request));
  if (!response) return response.status();
  if (response->code != protocol::response_code::kSuccess) return client::response_error(*response, address);
  return protocol::decode_consumer_running_info(protocol::body_text(*response));
}

// Topic → subscription expression: what "the same subscription" compares.
std::map<std::string, std::string> expressions(const ConsumerRunningInfo& info) {
  std::map<std::string, std::string> out;
  for (const auto& s : info.subscription_set) out[s.topic] = s.sub_string;
  return out;
}

bool same_subscriptions(const RunningInfos& infos) {
  for (const auto& [client_id, info] : infos) {
    if (expressions(info) != expressions(infos.begin()->second)) return false;
  }
  return true;
}

// RocketMQ's analyzeProcessQueue: push consumers' queues that look stuck.
std::vector<std::string> queue_warnings(const std::string& client_id, const ConsumerRunningInfo& info) {
  std::vector<std::string> out;
  if (property(info, ConsumerRunningInfo::kPropConsumeType) != "CONSUME_PASSIVELY") return out;
  const bool orderly = property(info, ConsumerRunningInfo::kPropConsumeOrderly) == "true";
  const std::int64_t now = kernel::wall_clock_ms();
  for (const auto& [queue, pq] : info.mq_table) {
    if (orderly && !pq.locked) {
      out.push_back(client_id + " " + queue.to_string() + " can't lock for a while, " +
                    std::to_string(now - pq.last_lock_timestamp) + "ms");
    } else if (!orderly && pq.cached_msg_count > 0 && now - pq.last_consume_timestamp > kBlockedAfterMs) {
      out.push_back(client_id + " " + queue.to_string() + " can't consume for a while, maybe blocked, " +
                    std::to_string(now - pq.last_consume_timestamp) + "ms");
    }
  }
  return out;
}

std::size_t cached_messages(const ConsumerRunningInfo& info) {
  std::size_t total = 0;
  for (const auto& [queue, pq] : info.mq_table) total += static_cast<std::size_t>(pq.cached_msg_count);
  return total;
}

// Standard JSON (mqTable as an array), unlike the fastjson body the consumer sent.
void write_info(JsonOut& json, const std::string& client_id, const ConsumerRunningInfo& info) {
  json.w().StartObject();
  json.field("clientId", client_id);
  json.key("properties");
  json.w().StartObject();
  for (const auto& [k, v] : info.properties) json.field(k, v);
  json.w().EndObject();
  json.key("subscriptionSet");
  json.w().StartArray();
  for (const auto& s : info.subscription_set) {
    json.w().StartObject();
    json.field("topic", s.topic);
    json.field("subString", s.sub_string);
    json.field("expressionType", s.expression_type);
    json.field("classFilterMode", s.class_filter_mode);
    json.w().EndObject();
  }
  json.w().EndArray();
  json.key("mqTable");
  json.w().StartArray();
  for (const auto& [queue, pq] : info.mq_table) {
    json.w().StartObject();
    json.field("topic", queue.topic);
    json.field("brokerName", queue.broker_name);
    json.field("queueId", queue.queue_id);
    json.field("commitOffset", pq.commit_offset);
    json.field("cachedMsgMinOffset", pq.cached_msg_min_offset);
    json.field("cachedMsgMaxOffset", pq.cached_msg_max_offset);
    json.field("cachedMsgCount", pq.cached_msg_count);
    json.field("cachedMsgSizeInMiB", pq.cached_msg_size_in_mib);
    json.field("transactionMsgMinOffset", pq.transaction_msg_min_offset);
    json.field("transactionMsgMaxOffset", pq.transaction_msg_max_offset);
    json.field("transactionMsgCount", pq.transaction_msg_count);
    json.field("locked", pq.locked);
    json.field("tryUnlockTimes", pq.try_unlock_times);
    json.field("lastLockTimestamp", pq.last_lock_timestamp);
    json.field("droped", pq.dropped);
    json.field("lastPullTimestamp", pq.last_pull_timestamp);
    json.field("lastConsumeTimestamp", pq.last_consume_timestamp);
    json.w().EndObject();
  }
  json.w().EndArray();
  json.key("statusTable");
  json.w().StartObject();
  for (const auto& [topic, st] : info.status_table) {
    json.key(topic);
    json.w().StartObject();
    for (const auto& [name, value] : {std::pair{"pullRT", st.pull_rt}, {"pullTPS", st.pull_tps},
                                      {"consumeRT", st.consume_rt}, {"consumeOKTPS", st.consume_ok_tps},
                                      {"consumeFailedTPS", st.consume_failed_tps}}) {
      json.key(name);
      json.w().Double(value);
    }
    json.field("consumeFailedMsgs", st.consume_failed_msgs);
    json.w().EndObject();
  }
  json.w().EndObject();
  json.field("jstack", info.jstack);
  json.w().EndObject();
}

// RocketMQ's ConsumerRunningInfo.formatString sections, with aligned tables.
void print_details(std::ostream& out, const ConsumerRunningInfo& info) {
  out << "#Consumer Properties#\n";
  Table properties({"#Property", "#Value"});
  for (const auto& [k, v] : info.properties) properties.add({k, v});
  properties.print(out);

  out << "\n#Consumer Subscription#\n";
  Table subscriptions({"#Index", "#Topic", "#ClassFilter", "#SubExpression"});
  int index = 0;
  for (const auto& s : info.subscription_set) {
    char number[16];
    std::snprintf(number, sizeof(number), "%03d", ++index);
    subscriptions.add({number, s.topic, s.class_filter_mode ? "true" : "false", s.sub_string});
  }
  subscriptions.print(out);

  out << "\n#Consumer Offset#\n";
  Table offsets({"#Topic", "#Broker Name", "#QID", "#Consumer Offset"});
  for (const auto& [queue, pq] : info.mq_table) {
    offsets.add({queue.topic, queue.broker_name, std::to_string(queue.queue_id), std::to_string(pq.commit_offset)});
  }
  offsets.print(out);

  out << "\n#Consumer MQ Detail#\n";
  Table detail({"#Topic", "#Broker Name", "#QID", "#Cached Msgs", "#Cached Min", "#Cached Max", "#Cached MiB",
                "#Consuming (orderly)", "#Locked", "#Dropped", "#Last Pull", "#Last Consume"});
  for (const auto& [queue, pq] : info.mq_table) {
    detail.add({queue.topic, queue.broker_name, std::to_string(queue.queue_id), std::to_string(pq.cached_msg_count),
                std::to_string(pq.cached_msg_min_offset), std::to_string(pq.cached_msg_max_offset),
                std::to_string(pq.cached_msg_size_in_mib), std::to_string(pq.transaction_msg_count),
                pq.locked ? "true" : "false", pq.dropped ? "true" : "false", std::to_string(pq.last_pull_timestamp),
                std::to_string(pq.last_consume_timestamp)});
  }
  detail.print(out);

  out << "\n#Consumer RT&TPS#\n";
  Table rates({"#Topic", "#Pull RT", "#Pull TPS", "#Consume RT", "#ConsumeOK TPS", "#ConsumeFailed TPS",
               "#ConsumeFailedMsgsInHour"});
  for (const auto& [topic, st] : info.status_table) {
    rates.add({topic, fixed(st.pull_rt, 2), fixed(st.pull_tps, 2), fixed(st.consume_rt, 2),
               fixed(st.consume_ok_tps, 2), fixed(st.consume_failed_tps, 2),
               std::to_string(st.consume_failed_msgs)});
  }
  rates.print(out);
  if (!info.jstack.empty()) out << "\n#Consumer jstack#\n" << info.jstack << "\n";
}

}  // namespace

int consumer_status(AdminContext& ctx, const ConsumerStatusOptions& options) {
  const std::string what = "consumerStatus " + options.group;
  std::string address = options.broker_addr;
  if (address.empty()) {
    auto broker = group_broker(ctx, options.group);
    if (!broker) return ctx.fail(what, broker.status());
    address = std::move(broker).value();
  }
  std::vector<std::string> client_ids;
  if (!options.client_id.empty()) {
    client_ids.push_back(options.client_id);
  } else {
    auto ids = ctx.api().get_consumer_id_list(address, options.group);
    if (!ids) return ctx.fail(what + " on " + address, ids.status());
    client_ids = std::move(ids).value();
    if (client_ids.empty()) return ctx.fail(what + ": no consumer of the group is online");
  }
  RunningInfos infos;
  for (const auto& client_id : client_ids) {
    auto info = fetch_running_info(ctx, address, options.group, client_id, options.jstack);
    if (!info) return ctx.fail(what + " of " + client_id + " through " + address, info.status());
    infos.emplace(client_id, std::move(info).value());
  }

  if (!options.client_id.empty()) {
    const auto& [client_id, info] = *infos.begin();
    if (ctx.json) {
      JsonOut json;
      write_info(json, client_id, info);
      json.print(*ctx.out);
    } else {
      print_details(*ctx.out, info);
    }
    return 0;
  }

  const bool same = same_subscriptions(infos);
  std::vector<std::string> warnings;
  for (const auto& [client_id, info] : infos) {
    for (auto& warning : queue_warnings(client_id, info)) warnings.push_back(std::move(warning));
  }
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.field("group", options.group);
    json.field("sameSubscription", same);
    json.key("warnings");
    json.w().StartArray();
    for (const auto& warning : warnings) json.str(warning);
    json.w().EndArray();
    json.key("consumers");
    json.w().StartArray();
    for (const auto& [client_id, info] : infos) write_info(json, client_id, info);
    json.w().EndArray();
    json.w().EndObject();
    json.print(*ctx.out);
    return 0;
  }
  Table table({"#Index", "#ClientId", "#Version", "#Consume Type", "#Queues", "#Cached Msgs"});
  int index = 0;
  for (const auto& [client_id, info] : infos) {
    table.add({std::to_string(++index), client_id, property(info, ConsumerRunningInfo::kPropClientVersion),
               property(info, ConsumerRunningInfo::kPropConsumeType), std::to_string(info.mq_table.size()),
               std::to_string(cached_messages(info))});
  }
  table.print(*ctx.out);
  *ctx.out << "\n" << (same ? "Same subscription in the same group of consumer"
                            : "WARN: Different subscription in the same group of consumer!!!")
           << "\n";
  for (const auto& warning : warnings) *ctx.out << warning << "\n";
  *ctx.out << "\n(-i <clientId> shows one consumer's properties, subscriptions and queues)\n";
  return 0;
}

}  // namespace mqkit::admin
