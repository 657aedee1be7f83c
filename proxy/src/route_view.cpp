#include "route_view.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::proxy {

std::vector<v2::MessageType> accepted_message_types(const protocol::TopicConfig& topic) {
  const auto it = topic.attributes.find("message.type");
  const std::string_view type = it == topic.attributes.end() ? "NORMAL" : std::string_view(it->second);
  if (type == "NORMAL") return {v2::NORMAL};
  if (type == "FIFO") return {v2::FIFO};
  if (type == "DELAY") return {v2::DELAY};
  if (type == "TRANSACTION") return {v2::TRANSACTION};
  if (type == "MIXED") return {v2::NORMAL, v2::FIFO, v2::DELAY, v2::TRANSACTION};
  return {v2::MESSAGE_TYPE_UNSPECIFIED};
}

namespace {

void add_queues(std::vector<v2::MessageQueue>& out, int count, v2::Permission permission, int& next_id,
                const v2::Resource& topic, const v2::Broker& broker, const std::vector<v2::MessageType>& accepted) {
  for (int i = 0; i < count; ++i) {
    auto& queue = out.emplace_back();
    *queue.mutable_topic() = topic;
    queue.set_id(next_id++);
    queue.set_permission(permission);
    *queue.mutable_broker() = broker;
    for (const auto type : accepted) queue.add_accept_message_types(type);
  }
}

}  // namespace

std::vector<v2::MessageQueue> message_queues(const protocol::TopicRouteData& route, const v2::Resource& topic,
                                             const v2::Endpoints& proxy_endpoints,
                                             const std::vector<v2::MessageType>& accepted) {
  std::map<std::string_view, const protocol::BrokerData*> brokers;
  for (const auto& b : route.broker_datas) brokers.emplace(b.broker_name, &b);
  std::vector<v2::MessageQueue> out;
  for (const auto& queue_data : route.queue_datas) {
    const auto found = brokers.find(queue_data.broker_name);
    if (found == brokers.end()) continue;  // a broker the route lists no address for serves nothing
    const bool readable = protocol::perm::readable(queue_data.perm);
    const bool writeable = protocol::perm::writeable(queue_data.perm);
    int read_only = 0, write_only = 0, read_write = 0, inaccessible = 0;
    if (readable && writeable) {
      read_write = std::min(queue_data.read_queue_nums, queue_data.write_queue_nums);
      read_only = queue_data.read_queue_nums - read_write;
      write_only = queue_data.write_queue_nums - read_write;
    } else if (writeable) {
      write_only = queue_data.write_queue_nums;
    } else if (readable) {
      read_only = queue_data.read_queue_nums;
    } else {
      inaccessible = std::max(1, std::max(queue_data.read_queue_nums, queue_data.write_queue_nums));
    }
    for (const auto& [broker_id, address] : found->second->broker_addrs) {
      v2::Broker broker;
      broker.set_name(queue_data.broker_name);
      broker.set_id(static_cast<std::int32_t>(broker_id));
      *broker.mutable_endpoints() = proxy_endpoints;
      int next_id = 0;
      add_queues(out, read_only, v2::READ, next_id, topic, broker, accepted);
      add_queues(out, write_only, v2::WRITE, next_id, topic, broker, accepted);
      add_queues(out, read_write, v2::READ_WRITE, next_id, topic, broker, accepted);
      add_queues(out, inaccessible, v2::NONE, next_id, topic, broker, accepted);
    }
  }
  return out;
}

std::optional<v2::Endpoints> parse_endpoints(std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view host = address.substr(0, colon);
  const std::string_view port_text = address.substr(colon + 1);
  int port = 0;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc() || end != port_text.data() + port_text.size() || port <= 0 || port > 65535) {
    return std::nullopt;
  }
  v2::Endpoints endpoints;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    endpoints.set_scheme(v2::IPv6);
  } else if (std::all_of(host.begin(), host.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); })) {
    endpoints.set_scheme(v2::IPv4);
  } else {
    endpoints.set_scheme(v2::DOMAIN_NAME);
  }
  auto* entry = endpoints.add_addresses();
  entry->set_host(std::string(host));
  entry->set_port(port);
  return endpoints;
}

}  // namespace mqkit::proxy
