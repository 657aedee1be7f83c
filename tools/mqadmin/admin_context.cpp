// The shared pieces of mqadmin: connecting, error reporting, tables and broker lookup.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "admin.hpp"
#include "json_output.hpp"

namespace mqkit::admin {

int AdminContext::fail(const std::string& what, const client::Status& status) const {
  *err << "mqadmin: " << what << ": " << status.message() << "\n";
  return 1;
}

int AdminContext::fail(const std::string& message) const {
  *err << "mqadmin: " << message << "\n";
  return 1;
}

client::Result<std::shared_ptr<client::ClientInstance>> connect(
    const std::string& namesrv_addr, std::chrono::milliseconds timeout, const protocol::acl::Credentials& credentials,
    const std::map<std::string, std::string>& transport_settings) {
  client::ClientConfig config;
  config.namesrv_addresses = client::split_namesrv_addresses(namesrv_addr);
  config.credentials = credentials;
  config.transport.settings = transport_settings;
  // The tool's own instance name, so it never shares a client id with an application.
  config.instance_name = "mqadmin";
  config.api_timeout = timeout;
  config = config.resolved();
  if (config.namesrv_addresses.empty()) {
    return client::Status::invalid_argument("no name server: pass -n host:port or set NAMESRV_ADDR");
  }
  if (auto valid = config.validate(); !valid) return valid;
  return client::ClientInstance::create(config);
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

int print_tables(AdminContext& ctx, const std::string& what, const std::vector<BrokerAddr>& targets,
                 const std::function<client::Result<KeyValues>(const std::string&)>& fetch,
                 const std::function<void(const BrokerAddr&, const KeyValues&)>& print) {
  int code = 0;
  JsonOut json;
  json.w().StartObject();
  for (const auto& target : targets) {
    client::Result<KeyValues> table = fetch(target.address);
    if (!table) {
      code = ctx.fail(what + " " + target.address, table.status());
      continue;
    }
    if (ctx.json) {
      json.key(target.address);
      json.w().StartObject();
      for (const auto& [key, value] : *table) json.field(key, value);
      json.w().EndObject();
    } else {
      print(target, *table);
    }
  }
  json.w().EndObject();
  if (ctx.json) json.print(*ctx.out);
  return code;
}

std::string local_time(std::int64_t ms, bool with_millis) {
  if (ms <= 0) return "";
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  if (!with_millis) return std::string(text, n);
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03d", static_cast<int>(ms % 1000));
  return std::string(text, n) + millis;
}

void write_send_result(JsonOut& json, const client::SendResult& sent) {
  json.field("sendStatus", client::to_string(sent.status));
  json.field("msgId", sent.msg_id);
  json.field("offsetMsgId", sent.offset_msg_id);
  json.field("brokerName", sent.message_queue.broker_name);
  json.field("queueId", sent.message_queue.queue_id);
  json.field("queueOffset", sent.queue_offset);
}

client::Result<std::string> read_json_array_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return client::Status::not_found("cannot read " + file);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return client::Status::io_error("cannot read " + file);
  const std::string content = text.str();
  const auto first = content.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || content[first] != '[') {
    return client::Status::invalid_argument(file + " does not hold a JSON array");
  }
  return content;
}

client::Result<std::int64_t> parse_tool_time(const std::string& text) {
  std::int64_t ms = 0;
  const char* end = text.data() + text.size();
  if (auto [ptr, ec] = std::from_chars(text.data(), end, ms); ec == std::errc() && ptr == end && ms >= 0) return ms;
  std::tm tm{};
  tm.tm_isdst = -1;
  int millis = 0;
  int consumed = 0;
  const char* rest = strptime(text.c_str(), "%Y-%m-%d#%H:%M:%S", &tm);
  if (rest != nullptr && std::sscanf(rest, ":%3d%n", &millis, &consumed) == 1 && rest[consumed] == '\0') {
    const std::time_t seconds = std::mktime(&tm);
    if (seconds != -1) return static_cast<std::int64_t>(seconds) * 1000 + millis;
  }
  return client::Status::invalid_argument("\"" + text + "\" is neither milliseconds since the epoch nor yyyy-MM-dd#HH:mm:ss:SSS");
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t i = 0; i < headers_.size(); ++i) widths[i] = headers_[i].size();
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
      text += cells[i];
      if (i + 1 < cells.size()) text.append(widths[i] - cells[i].size() + 2, ' ');
    }
    out << text << "\n";
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
}

namespace {

// Every broker of `cluster` in `info`, masters and slaves, by name then id.
std::vector<BrokerAddr> brokers_of(const protocol::ClusterInfo& info, const std::set<std::string>& names) {
  std::vector<BrokerAddr> brokers;
  for (const auto& name : names) {
    auto broker = info.broker_addr_table.find(name);
    if (broker == info.broker_addr_table.end()) continue;
    for (const auto& [id, address] : broker->second.broker_addrs) brokers.push_back({name, id, address});
  }
  return brokers;
}

}  // namespace

client::Result<std::vector<BrokerAddr>> cluster_brokers(AdminContext& ctx, const std::string& cluster) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return info.status();
  auto names = info->cluster_addr_table.find(cluster);
  if (names == info->cluster_addr_table.end()) return client::Status::not_found("no cluster named " + cluster);
  std::vector<BrokerAddr> brokers = brokers_of(*info, names->second);
  if (brokers.empty()) return client::Status::not_found("cluster " + cluster + " has no broker");
  return brokers;
}

client::Result<std::vector<BrokerAddr>> command_targets(AdminContext& ctx, const std::string& broker_addr,
                                                        const std::string& cluster, bool with_slaves) {
  if (broker_addr.empty() == cluster.empty()) {
    return client::Status::invalid_argument("give exactly one of -b broker-addr and -c cluster");
  }
  if (!broker_addr.empty()) return std::vector<BrokerAddr>{{"", 0, broker_addr}};
  auto brokers = cluster_brokers(ctx, cluster);
  if (!brokers || with_slaves) return brokers;
  std::erase_if(*brokers, [](const BrokerAddr& b) { return b.id != 0; });
  if (brokers->empty()) return client::Status::not_found("cluster " + cluster + " has no master broker");
  return brokers;
}

client::Result<std::vector<BrokerAddr>> every_broker(AdminContext& ctx) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return info.status();
  std::vector<BrokerAddr> brokers;
  for (const auto& [cluster, names] : info->cluster_addr_table) {
    const std::vector<BrokerAddr> members = brokers_of(*info, names);
    if (members.empty()) return client::Status::not_found("cluster " + cluster + " has no broker");
    brokers.insert(brokers.end(), members.begin(), members.end());
  }
  if (brokers.empty()) return client::Status::not_found("the name servers know no broker");
  return brokers;
}

int on_every_broker(AdminContext& ctx, const std::string& what, const std::vector<BrokerAddr>& targets,
                    const std::string& done, const BrokerAction& act) {
  int code = 0;
  JsonOut json;
  json.w().StartArray();
  for (const auto& broker : targets) {
    const client::Result<std::string> result = act(broker.address);
    if (!result) code = ctx.fail(what + " on " + broker.address, result.status());
    if (ctx.json) {
      json.w().StartObject();
      json.field("brokerAddr", broker.address);
      json.field("ok", result.is_ok());
      if (result) json.field("result", *result);
      json.w().EndObject();
    } else if (result) {
      *ctx.out << done << broker.address << " success." << (result->empty() ? "" : " " + *result) << "\n";
    }
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return code;
}

client::Result<std::vector<std::pair<std::string, std::string>>> cluster_masters(AdminContext& ctx,
                                                                                  const std::string& cluster) {
  auto masters = command_targets(ctx, "", cluster, false);
  if (!masters) return masters.status();
  std::vector<std::pair<std::string, std::string>> named;
  for (auto& broker : *masters) named.emplace_back(std::move(broker.name), std::move(broker.address));
  return named;
}

client::Result<std::vector<std::pair<std::string, std::string>>> topic_masters(AdminContext& ctx,
                                                                                const std::string& topic) {
  auto route = ctx.api().get_topic_route(topic);
  if (!route) return route.status();
  return route_masters(*route, topic);
}

namespace {

// broker_addrs is ordered by broker id: the first entry is the master (0) when it is up, else
// the lowest slave.
client::Result<std::vector<std::pair<std::string, std::string>>> route_brokers(const protocol::TopicRouteData& route,
                                                                                const std::string& topic,
                                                                                bool slave_when_master_down) {
  std::vector<std::pair<std::string, std::string>> brokers;
  for (const auto& broker : route.broker_datas) {
    if (broker.broker_addrs.empty()) continue;
    const auto& [id, address] = *broker.broker_addrs.begin();
    if (id == 0 || slave_when_master_down) brokers.emplace_back(broker.broker_name, address);
  }
  if (brokers.empty()) {
    return client::Status::not_found("topic " + topic + (slave_when_master_down ? " has no broker online" : " has no master broker"));
  }
  return brokers;
}

}  // namespace

client::Result<std::vector<std::pair<std::string, std::string>>> route_masters(const protocol::TopicRouteData& route,
                                                                                const std::string& topic) {
  return route_brokers(route, topic, false);
}

client::Result<std::vector<std::pair<std::string, std::string>>> topic_readers(AdminContext& ctx,
                                                                                const std::string& topic) {
  auto route = ctx.api().get_topic_route(topic);
  if (!route) return route.status();
  return route_brokers(*route, topic, true);
}

std::string reader_address(const AdminContext& ctx, const std::string& broker_name) {
  const auto found = ctx.instance->find_broker(broker_name, 0, false);
  return found ? found->address : std::string();
}

std::set<std::string> groups_consuming(AdminContext& ctx, const Masters& masters, const std::string& topic, bool& ok) {
  std::set<std::string> all;
  for (const auto& [name, address] : masters) {
    auto groups = ctx.api().topic_consumed_by(address, topic);
    if (!groups) {
      ctx.fail("groups consuming " + topic + " on " + address, groups.status());
      ok = false;
      continue;
    }
    all.merge(*groups);
  }
  return all;
}

client::Result<std::string> group_broker(AdminContext& ctx, const std::string& group) {
  const std::string retry_topic = "%RETRY%" + group;
  auto masters = topic_masters(ctx, retry_topic);
  if (!masters && masters.status().code() == client::StatusCode::kNotFound) {
    return client::Status::not_found("no broker serves consumer group " + group + " (no route of " + retry_topic +
                                     "): " + masters.status().message());
  }
  if (!masters) return masters.status();
  return masters->front().second;
}

}  // namespace mqkit::admin
