// Messages: send one, pull from the beginning of every queue, look up by offset id, key, unique
// message id or queue offset, and show a message's trace.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <limits>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/trace_data.hpp"
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

// RocketMQ's queryMsgById fields, one per row.
void print_message_details(std::ostream& out, const client::MessageExt& m) {
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
  table.print(out);
}

// Found messages as queryMsgById prints one: details (a blank line between messages), or the
// JSON array.
int print_found(AdminContext& ctx, const std::vector<client::MessageExt>& messages) {
  if (ctx.json) return print_messages(ctx, messages);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) *ctx.out << "\n";
    print_message_details(*ctx.out, messages[i]);
  }
  return 0;
}

// A pull the tool makes: no long polling (it prints what is there and exits), every tag.
client::PullMessageRequest tool_pull(const std::string& group, const plugin::v1::MessageQueue& queue,
                                     std::int64_t offset, int max_count) {
  client::PullMessageRequest request;
  request.consumer_group = group;
  request.topic = queue.topic;
  request.queue_id = queue.queue_id;
  request.queue_offset = offset;
  request.max_msg_nums = max_count;
  request.sys_flag = client::pull_sys_flag::kSubscription;
  request.suspend_timeout_ms = 0;
  return request;
}

// Pulls the messages of `queue` at offsets [from, to) matching `subscription` (tags), up to
// `max_count`, into `out`; returns the offset after the last one read (what a consumer commits).
client::Result<std::int64_t> pull_range(AdminContext& ctx, const std::string& address, const std::string& group,
                                        const plugin::v1::MessageQueue& queue, std::int64_t from, std::int64_t to,
                                        const std::string& subscription, std::size_t max_count,
                                        std::vector<client::MessageExt>& out) {
  std::int64_t offset = from;
  const std::size_t limit = out.size() + max_count;
  while (offset < to && out.size() < limit) {
    auto request = tool_pull(group, queue, offset, static_cast<int>(std::min<std::size_t>(32, limit - out.size())));
    request.subscription = subscription;
    MQKIT_ASSIGN_OR_RETURN(auto pulled, ctx.api().pull_message(address, request));
    if (pulled.status == client::PullStatus::kNoNewMsg) break;
    if (pulled.status == client::PullStatus::kFound) {
      for (auto& m : pulled.messages) {
        if (m.queue_offset >= to || out.size() >= limit) break;
        offset = m.queue_offset + 1;
        m.broker_name = queue.broker_name;
        out.push_back(std::move(m));
      }
      if (out.size() >= limit) break;
    }
    // Filtered out, moved, or the rest of a batch: the broker says where to go on.
    if (pulled.next_begin_offset <= offset && pulled.status != client::PullStatus::kFound) break;
    offset = std::max(offset, pulled.next_begin_offset);
  }
  return offset;
}

// QUERY_MESSAGE to every broker of the topic, its master or, while that is down, a slave
// (RocketMQ's queryMessage): messages indexed under `key`, as a user key or, with `unique_key`,
// as a unique message id. Any store time.
client::Result<std::vector<client::MessageExt>> query_index(AdminContext& ctx, const std::string& topic,
                                                            const std::string& key, bool unique_key) {
  auto brokers = topic_readers(ctx, topic);
  if (!brokers) return brokers.status();
  client::QueryMessageRequest request;
  request.topic = topic;
  request.key = key;
  request.max_num = 64;
  request.end_timestamp_ms = std::numeric_limits<std::int64_t>::max();
  request.unique_key = unique_key;
  std::vector<client::MessageExt> messages;
  for (const auto& [name, address] : *brokers) {
    auto found = ctx.api().query_message(address, request);
    if (!found) return client::Status(found.status().code(), "on " + address + ": " + found.status().message());
    for (auto& m : found->messages) {
      m.broker_name = name;
      messages.push_back(std::move(m));
    }
  }
  return messages;
}


// One record of a message's trace, with the host that sent it (the trace message's born host).
struct TraceRow {
  client::trace::TraceContext record;
  std::string client_host;
};

void write_trace_row(JsonOut& json, const TraceRow& row) {
  const client::trace::TraceContext& r = row.record;
  const client::trace::TraceBean& bean = r.beans.front();
  json.w().StartObject();
  json.field("type", client::trace::to_string(r.type));
  json.field("timestamp", r.timestamp_ms);
  json.field("regionId", r.region_id);
  json.field("group", r.group);
  json.field("clientHost", row.client_host);
  json.field("costTime", r.cost_ms);
  json.field("success", r.success);
  json.field("requestId", r.request_id);
  json.field("contextCode", r.context_code);
  json.field("msgId", bean.msg_id);
  json.field("offsetMsgId", bean.offset_msg_id);
  json.field("topic", bean.topic);
  json.field("tags", bean.tags);
  json.field("keys", bean.keys);
  json.field("storeHost", bean.store_host);
  json.field("bodyLength", bean.body_length);
  json.field("msgType", static_cast<std::int32_t>(bean.msg_type));
  json.field("retryTimes", bean.retry_times);
  json.field("transactionId", bean.transaction_id);
  json.field("transactionState", bean.transaction_state);
  json.field("fromTransactionCheck", bean.from_transaction_check);
  json.w().EndObject();
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
    write_send_result(json, *sent);
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
    const auto left = static_cast<std::size_t>(options.max_count) - messages.size();
    if (left == 0) break;
    // With -g the offsets reached are committed, which only a master takes.
    const bool commits = !options.group.empty();
    const auto address = commits ? ctx.instance->find_broker_master(queue.broker_name) : reader_address(ctx, queue.broker_name);
    if (address.empty()) {
      return ctx.fail("consumeMessage: no " + std::string(commits ? "master (-g commits offsets)" : "address") +
                      " for broker " + queue.broker_name);
    }
    auto min_offset = ctx.api().get_min_offset(address, queue);
    if (!min_offset) return ctx.fail("consumeMessage: min offset of queue " + std::to_string(queue.queue_id), min_offset.status());
    auto reached = pull_range(ctx, address, group, queue, *min_offset, std::numeric_limits<std::int64_t>::max(), "*",
                              left, messages);
    if (!reached) return ctx.fail("consumeMessage: pull queue " + std::to_string(queue.queue_id), reached.status());
    // With a named group, what was printed counts as consumed: commit it so consumerProgress
    // and later consumers see it.
    if (!options.group.empty() && *reached > *min_offset) {
      if (auto committed = ctx.api().update_consumer_offset(address, group, queue, *reached); !committed) {
        return ctx.fail("consumeMessage: commit offset of queue " + std::to_string(queue.queue_id), committed);
      }
    }
  }
  return print_messages(ctx, messages);
}

namespace {

// RocketMQ's printMsg line of one message (mqkit's fields, not Java's toString).
void print_message_line(std::ostream& out, const client::MessageExt& m, bool print_body) {
  out << "MSGID: " << m.msg_id() << " MessageExt [brokerName=" << m.broker_name << ", queueId=" << m.queue_id
      << ", storeSize=" << m.store_size << ", queueOffset=" << m.queue_offset << ", sysFlag=" << m.sys_flag
      << ", bornTimestamp=" << m.born_timestamp << ", bornHost=" << m.born_host << ", storeTimestamp=" << m.store_timestamp
      << ", storeHost=" << m.store_host << ", commitLogOffset=" << m.commit_log_offset
      << ", reconsumeTimes=" << m.reconsume_times << ", topic=" << m.topic() << ", tags=" << m.tags()
      << ", keys=" << m.keys() << "] BODY: " << (print_body ? m.body() : std::string("NOT PRINT BODY")) << "\n";
}

// The queue's offsets at the two times, or its ends.
client::Result<std::pair<std::int64_t, std::int64_t>> offset_range(AdminContext& ctx, const std::string& address,
                                                                    const plugin::v1::MessageQueue& queue,
                                                                    const PrintMsgOptions& options) {
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t from, options.begin_ms ? ctx.api().search_offset(address, queue, *options.begin_ms)
                                                                   : ctx.api().get_min_offset(address, queue));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t to, options.end_ms ? ctx.api().search_offset(address, queue, *options.end_ms)
                                                               : ctx.api().get_max_offset(address, queue));
  return std::pair{from, to};
}

}  // namespace

int print_msg_by_queue(AdminContext& ctx, const PrintMsgOptions& options, const std::string& broker_name,
                       std::int32_t queue_id, bool show_messages, bool count_by_tag) {
  auto route = ctx.instance->route(options.topic);
  if (!route) return ctx.fail("printMsgByQueue " + options.topic, route.status());
  const plugin::v1::MessageQueue queue{options.topic, broker_name, queue_id};
  const std::string what = "printMsgByQueue: queue " + std::to_string(queue_id) + " of " + broker_name;
  const auto address = reader_address(ctx, broker_name);
  if (address.empty()) return ctx.fail(what + ": no address for the broker");
  auto range = offset_range(ctx, address, queue, options);
  if (!range) return ctx.fail(what, range.status());
  std::vector<client::MessageExt> messages;
  if (auto pulled = pull_range(ctx, address, kToolsConsumerGroup, queue, range->first, range->second,
                               options.sub_expression, std::numeric_limits<std::size_t>::max(), messages);
      !pulled) {
    return ctx.fail(what, pulled.status());
  }
  if (ctx.json) return print_messages(ctx, messages);
  if (show_messages) {
    for (const auto& m : messages) print_message_line(*ctx.out, m, options.print_body);
  }
  if (count_by_tag) {
    std::map<std::string, std::int64_t> counts;
    for (const auto& m : messages) {
      if (!m.tags().empty()) ++counts[std::string(m.tags())];
    }
    std::vector<std::pair<std::string, std::int64_t>> sorted(counts.begin(), counts.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [tag, count] : sorted) *ctx.out << "Tag: " << padded(tag, 30) << " Count: " << count << "\n";
  }
  return 0;
}

int print_msg(AdminContext& ctx, const PrintMsgOptions& options) {
  auto route = ctx.instance->route(options.topic);
  if (!route) return ctx.fail("printMsg " + options.topic, route.status());
  JsonOut json;
  json.w().StartArray();
  for (const auto& queue : (*route)->subscribe_queues) {
    const auto address = reader_address(ctx, queue.broker_name);
    if (address.empty()) return ctx.fail("printMsg: no address for broker " + queue.broker_name);
    const std::string what = "printMsg: queue " + std::to_string(queue.queue_id) + " of " + queue.broker_name;
    auto range = offset_range(ctx, address, queue, options);
    if (!range) return ctx.fail(what, range.status());
    const auto [from, to] = *range;
    std::vector<client::MessageExt> messages;
    if (auto pulled = pull_range(ctx, address, kToolsConsumerGroup, queue, from, to, options.sub_expression,
                                 std::numeric_limits<std::size_t>::max(), messages);
        !pulled) {
      return ctx.fail(what, pulled.status());
    }
    if (ctx.json) {
      json.w().StartObject();
      json.field("brokerName", queue.broker_name);
      json.field("queueId", queue.queue_id);
      json.field("minOffset", from);
      json.field("maxOffset", to);
      json.key("messages"), json.w().StartArray();
      for (const auto& m : messages) write_message(json, m);
      json.w().EndArray();
      json.w().EndObject();
      continue;
    }
    *ctx.out << "minOffset=" << from << ", maxOffset=" << to << ", MessageQueue [topic=" << queue.topic
             << ", brokerName=" << queue.broker_name << ", queueId=" << queue.queue_id << "]\n";
    for (const auto& m : messages) print_message_line(*ctx.out, m, options.print_body);
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return 0;
}

int query_msg_by_id(AdminContext& ctx, const std::string& offset_msg_id) {
  auto message = ctx.api().view_message_by_id(offset_msg_id);
  if (!message) return ctx.fail("queryMsgById " + offset_msg_id, message.status());
  return print_found(ctx, {*message});
}

int query_msg_by_key(AdminContext& ctx, const std::string& topic, const std::string& key) {
  auto messages = query_index(ctx, topic, key, false);
  if (!messages) return ctx.fail("queryMsgByKey " + topic, messages.status());
  return print_messages(ctx, *messages);
}

int query_msg_by_unique_key(AdminContext& ctx, const std::string& topic, const std::string& msg_id, bool show_all) {
  const std::string what = "queryMsgByUniqueKey " + msg_id;
  auto found = query_index(ctx, topic, msg_id, true);
  if (!found) return ctx.fail(what + " in topic " + topic, found.status());
  // The index holds user keys too: only the message with this id is it (RocketMQ filters so).
  std::vector<client::MessageExt> messages;
  for (auto& m : *found) {
    if (m.msg_id() == msg_id) messages.push_back(std::move(m));
  }
  if (messages.empty()) return ctx.fail(what + ": no message of topic " + topic + " has this message id");
  std::stable_sort(messages.begin(), messages.end(),
                   [](const auto& a, const auto& b) { return a.store_timestamp < b.store_timestamp; });
  if (!show_all) messages.resize(1);
  return print_found(ctx, messages);
}

int query_msg_by_offset(AdminContext& ctx, const QueryByOffsetOptions& options) {
  const std::string queue_name = options.topic + " " + options.broker_name + ":" + std::to_string(options.queue_id);
  const std::string what = "queryMsgByOffset " + queue_name + " offset " + std::to_string(options.offset);
  auto route = ctx.instance->route(options.topic);
  if (!route) return ctx.fail(what, route.status());
  const auto& queues = (*route)->subscribe_queues;
  const bool broker_serves_topic = std::any_of(queues.begin(), queues.end(), [&](const auto& q) {
    return q.broker_name == options.broker_name;
  });
  if (!broker_serves_topic) return ctx.fail(what + ": no broker named " + options.broker_name + " serves the topic");
  const plugin::v1::MessageQueue queue{options.topic, options.broker_name, options.queue_id};
  if (std::find(queues.begin(), queues.end(), queue) == queues.end()) {
    return ctx.fail(what + ": the topic has no readable queue " + std::to_string(options.queue_id) + " on " +
                    options.broker_name);
  }
  const std::string address = reader_address(ctx, options.broker_name);
  if (address.empty()) return ctx.fail(what + ": no address for broker " + options.broker_name);
  auto pulled = ctx.api().pull_message(address, tool_pull(kToolsConsumerGroup, queue, options.offset, 1));
  if (!pulled) return ctx.fail(what, pulled.status());
  if (pulled->status != client::PullStatus::kFound || pulled->messages.empty()) {
    // Say where the queue's messages are, which is what a wrong offset needs.
    auto min_offset = ctx.api().get_min_offset(address, queue);
    auto max_offset = ctx.api().get_max_offset(address, queue);
    std::string range;
    if (min_offset && max_offset) {
      range = " (the queue holds offsets " + std::to_string(*min_offset) + " to " + std::to_string(*max_offset - 1) + ")";
      if (*min_offset == *max_offset) range = " (the queue is empty)";
    }
    return ctx.fail(what + ": no message at this offset" + range);
  }
  auto& message = pulled->messages.front();
  message.broker_name = options.broker_name;
  return print_found(ctx, {message});
}

int query_msg_trace_by_id(AdminContext& ctx, const std::string& msg_id, const std::string& trace_topic) {
  const std::string topic = trace_topic.empty() ? std::string(client::trace::kDefaultTraceTopic) : trace_topic;
  const std::string what = "queryMsgTraceById " + msg_id;
  // Trace messages are indexed under the message ids and keys of their records (RocketMQ asks the
  // same way: a key query on the trace topic, 64 messages at most per broker).
  auto found = query_index(ctx, topic, msg_id, false);
  if (!found) return ctx.fail(what + " in trace topic " + topic, found.status());
  std::vector<TraceRow> rows;
  for (const auto& message : *found) {
    auto records = client::trace::decode_trace_data(message.body());
    if (!records) {
      // One unreadable trace message does not hide the others.
      *ctx.err << "mqadmin: " << what << ": skipping trace message " << message.offset_msg_id << ": "
               << records.status().message() << "\n";
      continue;
    }
    for (auto& record : *records) {
      if (record.beans.empty() || record.beans.front().msg_id != msg_id) continue;
      rows.push_back({std::move(record), message.born_host});
    }
  }
  // In time order; the records without a time (cloud-layout SubAfter) last, in the order found.
  std::stable_sort(rows.begin(), rows.end(), [](const TraceRow& a, const TraceRow& b) {
    const auto key = [](const TraceRow& row) {
      return row.record.timestamp_ms > 0 ? row.record.timestamp_ms : std::numeric_limits<std::int64_t>::max();
    };
    return key(a) < key(b);
  });
  if (ctx.json) {
    JsonOut json;
    json.w().StartArray();
    for (const auto& row : rows) write_trace_row(json, row);
    json.w().EndArray();
    json.print(*ctx.out);
    return 0;
  }
  if (rows.empty()) {
    *ctx.out << "no trace of message " << msg_id << " in " << topic << "\n";
    return 0;
  }
  Table table({"#Type", "#Group", "#ClientHost", "#Time", "#CostTime", "#Status", "#Topic", "#StoreHost"});
  for (const auto& row : rows) {
    const auto& r = row.record;
    const auto& bean = r.beans.front();
    const bool has_outcome = r.type != client::trace::TraceType::kSubBefore;
    std::string status = has_outcome ? (r.success ? "success" : "failed") : "";
    if (r.type == client::trace::TraceType::kEndTransaction) status = bean.transaction_state;
    table.add({std::string(client::trace::to_string(r.type)), r.group, row.client_host, local_time(r.timestamp_ms, true),
               has_outcome && r.type != client::trace::TraceType::kEndTransaction ? std::to_string(r.cost_ms) + "ms" : "",
               status, bean.topic, bean.store_host});
  }
  table.print(*ctx.out);
  return 0;
}

}  // namespace mqkit::admin
