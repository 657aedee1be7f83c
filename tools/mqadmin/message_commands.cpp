// Messages: send one, pull from the beginning of every queue, look up by offset id or key.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::admin {
namespace {

// RocketMQ's MixAll.TOOLS_CONSUMER_GROUP: the group pulls use when the user names none.
constexpr const char* kToolsConsumerGroup = "TOOLS_CONSUMER";

void write_message(JsonOut& json, const client::MessageExt& m) {
  json.w().StartObject();
  json.field("msgId", m.msg_id());
  json.field("offsetMsgId", m.offset_msg_id);
  json.field("topic", m.topic());
  json.field("brokerName", m.broker_name);
  json.field("queueId", m.queue_id);
  json.field("queueOffset", m.queue_offset);
  json.field("tags", m.tags());
  json.field("keys", m.keys());
  json.field("bornTimestamp", m.born_timestamp);
  json.field("storeTimestamp", m.store_timestamp);
  json.field("storeHost", m.store_host);
  json.field("body", m.body());
  json.w().EndObject();
}

std::vector<std::string> message_row(const client::MessageExt& m) {
  return {m.msg_id(), m.broker_name, std::to_string(m.queue_id), std::to_string(m.queue_offset),
          std::string(m.tags()), std::string(m.keys()), m.body()};
}

const std::vector<std::string> kMessageHeaders = {"#Message ID", "#Broker Name", "#QID", "#Offset",
                                                  "#Tags",       "#Keys",        "#Body"};

int print_messages(AdminContext& ctx, const std::vector<client::MessageExt>& messages) {
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const auto& m : messages) write_message(json, m);
    json.w().EndArray();
    json.print(*ctx.out);
  } else {
    Table table(kMessageHeaders);
    for (const auto& m : messages) table.add(message_row(m));
    table.print(*ctx.out);
  }
  return 0;
}

}  // namespace

int send_message(AdminContext& ctx, const SendOptions& options) {
  client::ProducerConfig config;
  config.client = ctx.instance->config();
  config.group = "mqadmin_producer";
  client::Producer producer(config, ctx.instance);
  if (auto started = producer.start(); !started) return ctx.fail("start producer", started);
  client::Message message(options.topic, options.body);
  if (!options.tags.empty()) message.set_tags(options.tags);
  if (!options.keys.empty()) message.set_keys(options.keys);
  auto sent = producer.send(std::move(message));
  producer.shutdown();
  if (!sent) return ctx.fail("sendMessage to " + options.topic, sent.status());
  const auto status = std::string(client::to_string(sent->status));
  if (ctx.json) {
    JsonOut json;
    json.w().StartObject();
    json.field("sendStatus", status);
    json.field("msgId", sent->msg_id);
    json.field("offsetMsgId", sent->offset_msg_id);
    json.field("brokerName", sent->message_queue.broker_name);
    json.field("queueId", sent->message_queue.queue_id);
    json.field("queueOffset", sent->queue_offset);
    json.w().EndObject();
    json.print(*ctx.out);
  } else {
    Table table({"#Broker Name", "#QID", "#Send Result", "#MsgId", "#OffsetMsgId", "#Queue Offset"});
    table.add({sent->message_queue.broker_name, std::to_string(sent->message_queue.queue_id), status, sent->msg_id,
               sent->offset_msg_id, std::to_string(sent->queue_offset)});
    table.print(*ctx.out);
  }
  return 0;
}

int consume_message(AdminContext& ctx, const ConsumeOptions& options) {
  if (options.max_count <= 0) return ctx.fail("consumeMessage: -c must be positive");
  auto route = ctx.instance->route(options.topic);
  if (!route) return ctx.fail("consumeMessage " + options.topic, route.status());
  const std::string group = options.group.empty() ? kToolsConsumerGroup : options.group;
  std::vector<client::MessageExt> messages;
  for (const auto& queue : (*route)->subscribe_queues) {
    if (static_cast<int>(messages.size()) >= options.max_count) break;
    const auto address = ctx.instance->find_broker_master(queue.broker_name);
    if (address.empty()) return ctx.fail("consumeMessage: no master address for broker " + queue.broker_name);
    auto min_offset = ctx.api().get_min_offset(address, queue);
    if (!min_offset) return ctx.fail("consumeMessage: min offset of queue " + std::to_string(queue.queue_id), min_offset.status());
    std::int64_t offset = *min_offset;
    bool advanced = false;
    while (static_cast<int>(messages.size()) < options.max_count) {
      client::PullMessageRequest request;
      request.consumer_group = group;
      request.topic = options.topic;
      request.queue_id = queue.queue_id;
      request.queue_offset = offset;
      request.max_msg_nums = std::min(32, options.max_count - static_cast<int>(messages.size()));
      // No long polling: the tool prints what is there and exits.
      request.sys_flag = client::pull_sys_flag::kSubscription;
      request.suspend_timeout_ms = 0;
      auto pulled = ctx.api().pull_message(address, request);
      if (!pulled) return ctx.fail("consumeMessage: pull queue " + std::to_string(queue.queue_id), pulled.status());
      if (pulled->status == client::PullStatus::kOffsetIllegal) {
        offset = pulled->next_begin_offset;
        continue;
      }
      if (pulled->status != client::PullStatus::kFound || pulled->messages.empty()) break;
      for (auto& m : pulled->messages) {
        m.broker_name = queue.broker_name;
        if (static_cast<int>(messages.size()) < options.max_count) {
          offset = m.queue_offset + 1;
          messages.push_back(std::move(m));
        }
      }
      advanced = true;
    }
    // With a named group, what was printed counts as consumed: commit it so consumerProgress
    // and later consumers see it.
    if (!options.group.empty() && advanced) {
      if (auto committed = ctx.api().update_consumer_offset(address, group, queue, offset); !committed) {
        return ctx.fail("consumeMessage: commit offset of queue " + std::to_string(queue.queue_id), committed);
      }
    }
  }
  return print_messages(ctx, messages);
}

int query_msg_by_id(AdminContext& ctx, const std::string& offset_msg_id) {
  auto message = ctx.api().view_message_by_id(offset_msg_id);
  if (!message) return ctx.fail("queryMsgById " + offset_msg_id, message.status());
  if (ctx.json) return print_messages(ctx, {*message});
  const auto& m = *message;
  Table table({"#Field", "#Value"});
  table.add({"Topic", m.topic()});
  table.add({"Tags", std::string(m.tags())});
  table.add({"Keys", std::string(m.keys())});
  table.add({"Queue ID", std::to_string(m.queue_id)});
  table.add({"Queue Offset", std::to_string(m.queue_offset)});
  table.add({"CommitLog Offset", std::to_string(m.commit_log_offset)});
  table.add({"Reconsume Times", std::to_string(m.reconsume_times)});
  table.add({"Born Timestamp", std::to_string(m.born_timestamp)});
  table.add({"Store Timestamp", std::to_string(m.store_timestamp)});
  table.add({"Born Host", m.born_host});
  table.add({"Store Host", m.store_host});
  table.add({"Msg ID", m.msg_id()});
  table.add({"Offset Msg ID", m.offset_msg_id});
  table.add({"Body", m.body()});
  table.print(*ctx.out);
  return 0;
}

int query_msg_by_key(AdminContext& ctx, const std::string& topic, const std::string& key) {
  auto masters = topic_masters(ctx, topic);
  if (!masters) return ctx.fail("queryMsgByKey " + topic, masters.status());
  client::QueryMessageRequest request;
  request.topic = topic;
  request.key = key;
  request.max_num = 64;
  request.end_timestamp_ms = kernel::wall_clock_ms();
  std::vector<client::MessageExt> messages;
  for (const auto& [name, address] : *masters) {
    auto found = ctx.api().query_message(address, request);
    if (!found) return ctx.fail("queryMsgByKey on " + address, found.status());
    for (auto& m : found->messages) {
      m.broker_name = name;
      messages.push_back(std::move(m));
    }
  }
  return print_messages(ctx, messages);
}

}  // namespace mqkit::admin
