// Send round-trip checks, as RocketMQ's tools run them: checkMsgSendRT (one topic, queue after
// queue), clusterRT (every broker of a cluster, through the topic named after the broker, which
// every broker serves) and sendMsgStatus (one broker, each send's result). Times are
// milliseconds from the send call to its answer.
#include <chrono>
#include <iostream>
#include <thread>

#include "admin.hpp"
#include "json_output.hpp"
#include "mqkit/client/producer.hpp"

namespace mqkit::admin {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// A producer of its own group, on the tool's client instance.
client::Result<std::unique_ptr<client::Producer>> started_producer(AdminContext& ctx) {
  client::ProducerConfig config;
  config.client = ctx.instance->config();
  config.group = "mqadmin_rt_producer";
  auto producer = std::make_unique<client::Producer>(config, ctx.instance);
  MQKIT_RETURN_IF_ERROR(producer->start());
  return producer;
}

// Sends made, the ones that failed with the first failure, and the average time of every send
// but the first (which also connects and looks the route up), as RocketMQ averages.
struct RoundTrips {
  std::int64_t sent = 0;
  std::int64_t failed = 0;
  std::string first_error;
  double total_after_first_ms = 0;

  void add(const client::Result<client::SendResult>& result, double ms) {
    if (sent++ > 0) total_after_first_ms += ms;
    if (result) return;
    if (failed++ == 0) first_error = result.status().to_string();
  }
  double average_ms() const { return sent > 1 ? total_after_first_ms / static_cast<double>(sent - 1) : 0.0; }
};

}  // namespace

int check_msg_send_rt(AdminContext& ctx, const SendRtOptions& options) {
  auto producer = started_producer(ctx);
  if (!producer) return ctx.fail("checkMsgSendRT: start producer", producer.status());
  auto queues = (*producer)->fetch_publish_message_queues(options.topic);
  if (!queues) return ctx.fail("checkMsgSendRT " + options.topic, queues.status());
  if (queues->empty()) return ctx.fail("checkMsgSendRT: topic " + options.topic + " has no writable queue");
  const std::string body(static_cast<std::size_t>(options.size), 'a');
  RoundTrips trips;
  Table table({"#Broker Name", "#QID", "#Send Result", "#RT(ms)"});
  JsonOut json;
  json.w().StartObject();
  json.key("sends");
  json.w().StartArray();
  for (std::int64_t i = 0; i < options.amount; ++i) {
    const client::MessageQueue& queue = (*queues)[static_cast<std::size_t>(i) % queues->size()];
    const auto start = Clock::now();
    auto sent = (*producer)->send(client::Message(options.topic, body), {.queue = queue});
    const double ms = elapsed_ms(start);
    trips.add(sent, ms);
    if (ctx.json) {
      json.w().StartObject();
      json.field("brokerName", queue.broker_name);
      json.field("queueId", queue.queue_id);
      json.field("ok", sent.is_ok());
      json.field("rtMs", ms);
      json.w().EndObject();
    } else {
      table.add({queue.broker_name, std::to_string(queue.queue_id), sent ? "true" : "false", fixed(ms, 3)});
    }
  }
  (*producer)->shutdown();
  json.w().EndArray();
  json.field("avgRtMs", trips.average_ms());
  json.w().EndObject();
  if (ctx.json) {
    json.print(*ctx.out);
  } else {
    table.print(*ctx.out);
    *ctx.out << "Avg RT: " << fixed(trips.average_ms(), 3) << "\n";
  }
  if (trips.failed == 0) return 0;
  return ctx.fail("checkMsgSendRT: " + std::to_string(trips.failed) + " of " + std::to_string(trips.sent) +
                  " sends failed; the first: " + trips.first_error);
}

int cluster_rt(AdminContext& ctx, const ClusterRtOptions& options) {
  auto producer = started_producer(ctx);
  if (!producer) return ctx.fail("clusterRT: start producer", producer.status());
  const std::string body(static_cast<std::size_t>(options.size), 'a');
  for (bool first = true;; first = false) {
    if (!first) std::this_thread::sleep_for(std::chrono::seconds(options.interval_s));
    auto info = ctx.api().get_cluster_info();
    if (!info) return ctx.fail("clusterRT", info.status());
    if (!options.cluster.empty() && !info->cluster_addr_table.contains(options.cluster)) {
      return ctx.fail("clusterRT: cluster " + options.cluster + " does not exist");
    }
    int code = 0;
    Table table({"#Cluster Name", "#Broker Name", "#RT(ms)", "#successCount", "#failCount"});
    JsonOut json;
    json.w().StartArray();
    for (const auto& [cluster, broker_names] : info->cluster_addr_table) {
      if (!options.cluster.empty() && cluster != options.cluster) continue;
      for (const std::string& broker_name : broker_names) {
        RoundTrips trips;
        for (std::int64_t i = 0; i < options.amount; ++i) {
          const auto start = Clock::now();
          auto sent = (*producer)->send(client::Message(broker_name, body));
          trips.add(sent, elapsed_ms(start));
        }
        if (trips.failed > 0) {
          code = ctx.fail("clusterRT: " + std::to_string(trips.failed) + " sends to broker " + broker_name +
                          " failed; the first: " + trips.first_error);
        }
        const std::int64_t succeeded = trips.sent - trips.failed;
        if (ctx.json) {
          json.w().StartObject();
          json.field("cluster", cluster);
          json.field("brokerName", broker_name);
          json.field("avgRtMs", trips.average_ms());
          json.field("successCount", succeeded);
          json.field("failCount", trips.failed);
          json.w().EndObject();
        } else {
          table.add({cluster, broker_name, fixed(trips.average_ms(), 3), std::to_string(succeeded),
                     std::to_string(trips.failed)});
        }
      }
    }
    json.w().EndArray();
    if (ctx.json) {
      json.print(*ctx.out);
    } else {
      table.print(*ctx.out);
    }
    ctx.out->flush();
    if (options.interval_s <= 0) {
      (*producer)->shutdown();
      return code;
    }
  }
}

int send_msg_status(AdminContext& ctx, const SendStatusOptions& options) {
  // A mistyped name would otherwise create a topic of that name on a broker that creates topics
  // on demand (RocketMQ's tool sends regardless).
  auto info = ctx.api().get_cluster_info();
  if (!info) return ctx.fail("sendMsgStatus", info.status());
  if (!info->broker_addr_table.contains(options.broker_name)) {
    return ctx.fail("sendMsgStatus: the name servers know no broker named " + options.broker_name);
  }
  auto producer = started_producer(ctx);
  if (!producer) return ctx.fail("sendMsgStatus: start producer", producer.status());
  // As RocketMQ's tool: one small message first, so the timed sends find the route and the
  // connection ready.
  if (auto warm = (*producer)->send(client::Message(options.broker_name, std::string(16, 'a'))); !warm) {
    return ctx.fail("sendMsgStatus: send to broker " + options.broker_name, warm.status());
  }
  const std::string body(static_cast<std::size_t>(options.size), 'a');
  int code = 0;
  JsonOut json;
  json.w().StartArray();
  for (std::int64_t i = 0; i < options.count; ++i) {
    const auto start = Clock::now();
    auto sent = (*producer)->send(client::Message(options.broker_name, body));
    const double ms = elapsed_ms(start);
    if (!sent) code = ctx.fail("sendMsgStatus: send to broker " + options.broker_name, sent.status());
    if (ctx.json) {
      json.w().StartObject();
      json.field("rtMs", ms);
      json.field("ok", sent.is_ok());
      if (sent) write_send_result(json, *sent);
      json.w().EndObject();
    } else if (sent) {
      const auto& queue = sent->message_queue;
      *ctx.out << "rt=" << static_cast<std::int64_t>(ms) << "ms, SendResult=SendResult [sendStatus="
               << client::to_string(sent->status) << ", msgId=" << sent->msg_id << ", offsetMsgId="
               << sent->offset_msg_id << ", messageQueue=MessageQueue [topic=" << queue.topic
               << ", brokerName=" << queue.broker_name << ", queueId=" << queue.queue_id
               << "], queueOffset=" << sent->queue_offset << "]\n";
    }
  }
  json.w().EndArray();
  (*producer)->shutdown();
  if (ctx.json) json.print(*ctx.out);
  return code;
}

}  // namespace mqkit::admin
