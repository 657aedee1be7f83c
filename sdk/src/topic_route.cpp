#include "mqkit/client/topic_route.hpp"

#include <algorithm>
#include <charconv>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::client {

namespace {

const protocol::BrokerData* find_broker(const protocol::TopicRouteData& route, std::string_view name) {
  for (const auto& broker : route.broker_datas) {
    if (broker.broker_name == name) return &broker;
  }
  return nullptr;
}

constexpr std::int64_t kMasterId = 0;

void add_queues(std::vector<MessageQueue>& out, std::string_view topic, const std::string& broker, std::int32_t count) {
  for (std::int32_t i = 0; i < count; ++i) out.push_back(MessageQueue{std::string(topic), broker, i});
}

}  // namespace

TopicPublishInfo to_publish_info(std::string_view topic, const protocol::TopicRouteData& route) {
  TopicPublishInfo info;
  if (!route.order_topic_conf.empty()) {
    // "broker-a:4;broker-b:4": the queues an ordered topic is written to, in this order.
    std::string_view conf = route.order_topic_conf;
    while (!conf.empty()) {
      const auto end = conf.find(';');
      const std::string_view item = conf.substr(0, end);
      const auto colon = item.find(':');
      std::int32_t count = 0;
      if (colon != std::string_view::npos &&
          std::from_chars(item.data() + colon + 1, item.data() + item.size(), count).ec == std::errc() &&
          count <= protocol::kMaxQueueNums) {
        add_queues(info.queues, topic, std::string(item.substr(0, colon)), count);
      }
      if (end == std::string_view::npos) break;
      conf.remove_prefix(end + 1);
    }
    info.order_topic = true;
    return info;
  }
  std::vector<const protocol::QueueData*> sorted;
  for (const auto& queue : route.queue_datas) sorted.push_back(&queue);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* a, const auto* b) { return a->broker_name < b->broker_name; });
  for (const auto* queue : sorted) {
    if (!protocol::perm::writeable(queue->perm)) continue;
    const auto* broker = find_broker(route, queue->broker_name);
    if (broker == nullptr || !broker->broker_addrs.contains(kMasterId)) continue;
    add_queues(info.queues, topic, queue->broker_name, queue->write_queue_nums);
  }
  return info;
}

std::vector<MessageQueue> to_subscribe_queues(std::string_view topic, const protocol::TopicRouteData& route) {
  std::vector<MessageQueue> queues;
  for (const auto& queue : route.queue_datas) {
    if (protocol::perm::readable(queue.perm)) add_queues(queues, topic, queue.broker_name, queue.read_queue_nums);
  }
  std::sort(queues.begin(), queues.end());
  queues.erase(std::unique(queues.begin(), queues.end()), queues.end());
  return queues;
}

TopicRouteInfo make_route_info(std::string_view topic, protocol::TopicRouteData route, bool from_default_topic) {
  TopicRouteInfo info;
  info.topic = std::string(topic);
  info.publish = to_publish_info(topic, route);
  info.subscribe_queues = to_subscribe_queues(topic, route);
  info.route = std::move(route);
  info.from_default_topic = from_default_topic;
  info.updated_at = std::chrono::steady_clock::now();
  return info;
}

protocol::TopicRouteData route_from_default_topic(protocol::TopicRouteData default_route, int default_queue_nums) {
  for (auto& queue : default_route.queue_datas) {
    const std::int32_t count = std::min(default_queue_nums, queue.read_queue_nums);
    queue.read_queue_nums = count;
    queue.write_queue_nums = count;
  }
  return default_route;
}

bool same_route(const protocol::TopicRouteData& a, const protocol::TopicRouteData& b) {
  const auto sorted_queues = [](std::vector<protocol::QueueData> q) {
    std::sort(q.begin(), q.end(), [](const auto& x, const auto& y) { return x.broker_name < y.broker_name; });
    return q;
  };
  const auto sorted_brokers = [](std::vector<protocol::BrokerData> d) {
    std::sort(d.begin(), d.end(), [](const auto& x, const auto& y) { return x.broker_name < y.broker_name; });
    return d;
  };
  return a.order_topic_conf == b.order_topic_conf && sorted_queues(a.queue_datas) == sorted_queues(b.queue_datas) &&
         sorted_brokers(a.broker_datas) == sorted_brokers(b.broker_datas);
}

}  // namespace mqkit::client
