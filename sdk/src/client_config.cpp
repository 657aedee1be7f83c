#include "mqkit/client/client_config.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iterator>

#include "local_address.hpp"
#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/protocol/namespace.hpp"

namespace mqkit::client {

namespace {

using plugin::v1::Category;
using plugin::v1::ConfigField;
using plugin::v1::ValueType;

constexpr double kHourMs = 3'600'000;
constexpr const char* kSerializeTypes[] = {"rocketmq", "json", nullptr};

constexpr ConfigField kClientFields[] = {
    {.key = "namesrv_addr", .type = ValueType::kString, .default_value = "",
     .description = "name server addresses, host:port separated by ';' (RocketMQ namesrvAddr); empty: $NAMESRV_ADDR"},
    {.key = "instance_name", .type = ValueType::kString, .default_value = "DEFAULT",
     .description = "second part of the client id <ip>@<instance>; DEFAULT becomes <pid>#<nanotime> so every "
                    "producer and consumer gets its own connections"},
    {.key = "client_ip", .type = ValueType::kString, .default_value = "",
     .description = "first part of the client id; empty: the first non-loopback IPv4 address"},
    {.key = "unit_name", .type = ValueType::kString, .default_value = "",
     .description = "appended to the client id when set (RocketMQ unitName)"},
    {.key = "namespace", .type = ValueType::kString, .default_value = "",
     .description = "RocketMQ namespace (Aliyun ONS instance id): topics and groups become <namespace>%<name> on "
                    "the wire, and messages and queues come back without it; empty: none"},
    {.key = "mq_client_api_timeout", .type = ValueType::kDuration, .default_value = "3s",
     .description = "timeout of every name server and broker request that has no timeout of its own",
     .min = 1, .max = kHourMs},
    {.key = "poll_name_server_interval", .type = ValueType::kDuration, .default_value = "30s",
     .description = "how often the routes of every topic in use are refreshed from the name server",
     .min = 100, .max = kHourMs},
    {.key = "heartbeat_broker_interval", .type = ValueType::kDuration, .default_value = "30s",
     .description = "how often every broker gets a heartbeat with this client's producer and consumer groups",
     .min = 100, .max = kHourMs},
    {.key = "persist_consumer_offset_interval", .type = ValueType::kDuration, .default_value = "5s",
     .description = "how often consumers persist their offsets", .min = 100, .max = kHourMs},
    {.key = "rebalance_interval", .type = ValueType::kDuration, .default_value = "20s",
     .description = "how often consumers rebalance their queues (also at once when the broker says the "
                    "group changed)",
     .min = 100, .max = kHourMs},
    {.key = "serialize_type", .type = ValueType::kString, .default_value = "rocketmq",
     .description = "header encoding of the requests this client sends: rocketmq (binary, cheaper to encode and "
                    "decode) or json (the Java client's default); brokers and name servers of RocketMQ 4.x and later "
                    "read both and answer in kind",
     .allowed = kSerializeTypes},
    {.key = "access_key", .type = ValueType::kString, .default_value = "",
     .description = "ACL account: every request is signed with it (RocketMQ's AclClientRPCHook); empty: unsigned"},
    {.key = "secret_key", .type = ValueType::kString, .default_value = "",
     .description = "secret key of access_key"},
    {.key = "security_token", .type = ValueType::kString, .default_value = "",
     .description = "sent as SecurityToken with signed requests when set"},
    {.key = "vip_channel_enabled", .type = ValueType::kBool, .default_value = "false",
     .description = "send messages, send-backs, transaction ends and offset requests to the broker's fast (VIP) "
                    "port, its port - 2 (RocketMQ's vipChannelEnabled)"},
};
constexpr plugin::v1::ConfigSchema kClientSchema{kClientFields, std::size(kClientFields)};

// A plugin slot of the document as a PluginChoice: the slot's values are validated against the
// plugin's schema here (so errors name file:line) and carried as text.
Result<PluginChoice> plugin_choice(kernel::Bootstrap& boot, Category category, std::string_view path,
                                   std::string_view default_name) {
  MQKIT_ASSIGN_OR_RETURN(std::optional<std::string> configured, boot.config().plugin_name(path));
  PluginChoice choice;
  choice.name = configured.value_or(std::string(default_name));
  auto found = boot.registry().find(category, choice.name);
  if (!found) {
    return found.status().with_context(boot.config().location_of(path, "plugin") + ": [" + std::string(path) + "]");
  }
  MQKIT_ASSIGN_OR_RETURN(auto values, boot.config().plugin_section(path, (*found)->manifest->schema()));
  for (const auto& [key, value] : values.all()) choice.settings[key] = plugin::v1::format_value(value);
  return choice;
}

// An empty namespace is none; the error names the setting.
Status checked_namespace(std::string_view name_space) {
  Status valid = name_space.empty() ? Status::ok() : protocol::validate_namespace(name_space);
  return valid ? valid : Status::invalid_argument("[client] " + valid.message());
}

bool looks_like_address(std::string_view address) {
  const auto colon = address.rfind(':');
  return colon != std::string_view::npos && colon > 0 && colon + 1 < address.size();
}

}  // namespace

std::string ClientConfig::client_id() const {
  std::string id = client_ip + "@" + instance_name;
  if (!unit_name.empty()) id += "@" + unit_name;
  return id;
}

ClientConfig ClientConfig::resolved() const {
  ClientConfig out = *this;
  if (out.namesrv_addresses.empty()) {
    if (const char* env = std::getenv("NAMESRV_ADDR"); env != nullptr) {
      out.namesrv_addresses = split_namesrv_addresses(env);
    }
  }
  if (out.client_ip.empty()) out.client_ip = local_ipv4();
  if (out.instance_name == "DEFAULT") {
    const auto nanos = std::chrono::steady_clock::now().time_since_epoch().count();
    out.instance_name = std::to_string(::getpid()) + "#" + std::to_string(nanos);
  }
  return out;
}

Status ClientConfig::validate() const {
  if (namesrv_addresses.empty()) {
    return Status::invalid_argument("no name server address: set [client] namesrv_addr or $NAMESRV_ADDR");
  }
  for (const auto& address : namesrv_addresses) {
    if (!looks_like_address(address)) {
      return Status::invalid_argument("name server address '" + address + "' is not host:port");
    }
  }
  if (instance_name.empty()) return Status::invalid_argument("instance_name is empty");
  MQKIT_RETURN_IF_ERROR(checked_namespace(name_space));
  if (api_timeout.count() <= 0) return Status::invalid_argument("mq_client_api_timeout must be positive");
  const std::chrono::milliseconds intervals[] = {poll_name_server_interval, heartbeat_broker_interval,
                                                 persist_consumer_offset_interval, rebalance_interval};
  for (const auto interval : intervals) {
    if (interval.count() <= 0) return Status::invalid_argument("periodic task intervals must be positive");
  }
  if (credentials.access_key.empty() != credentials.secret_key.empty()) {
    return Status::invalid_argument("access_key and secret_key go together: set both or neither");
  }
  if (credentials.access_key.empty() && !credentials.security_token.empty()) {
    return Status::invalid_argument("security_token needs access_key and secret_key");
  }
  for (const auto* choice : {&transport, &selector, &fault_strategy, &allocator}) {
    if (choice->name.empty()) return Status::invalid_argument("a plugin choice has an empty name");
  }
  return Status::ok();
}

const plugin::v1::ConfigSchema& client_schema() { return kClientSchema; }

Result<ClientConfig> load_client_config(kernel::Bootstrap& boot) {
  MQKIT_ASSIGN_OR_RETURN(auto values, boot.section("client", client_schema()));
  ClientConfig config;
  config.namesrv_addresses = split_namesrv_addresses(values.get_string("namesrv_addr"));
  config.instance_name = values.get_string("instance_name");
  config.client_ip = values.get_string("client_ip");
  config.unit_name = values.get_string("unit_name");
  config.name_space = values.get_string("namespace");
  MQKIT_RETURN_IF_ERROR(
      checked_namespace(config.name_space).with_context(boot.config().location_of("client", "namespace")));
  using std::chrono::milliseconds;
  config.api_timeout = milliseconds(values.get_duration_ms("mq_client_api_timeout"));
  config.poll_name_server_interval = milliseconds(values.get_duration_ms("poll_name_server_interval"));
  config.heartbeat_broker_interval = milliseconds(values.get_duration_ms("heartbeat_broker_interval"));
  config.persist_consumer_offset_interval = milliseconds(values.get_duration_ms("persist_consumer_offset_interval"));
  config.rebalance_interval = milliseconds(values.get_duration_ms("rebalance_interval"));
  config.serialize_type = values.get_string("serialize_type") == "json" ? plugin::v1::SerializeType::kJson
                                                                        : plugin::v1::SerializeType::kRocketMq;
  config.credentials = {.access_key = values.get_string("access_key"),
                        .secret_key = values.get_string("secret_key"),
                        .security_token = values.get_string("security_token")};
  config.vip_channel_enabled = values.get_bool("vip_channel_enabled");
  MQKIT_ASSIGN_OR_RETURN(config.transport,
                         plugin_choice(boot, Category::kTransport, "client.transport", config.transport.name));
  MQKIT_ASSIGN_OR_RETURN(config.selector,
                         plugin_choice(boot, Category::kSelector, "producer.selector", config.selector.name));
  MQKIT_ASSIGN_OR_RETURN(config.fault_strategy, plugin_choice(boot, Category::kFaultStrategy,
                                                              "producer.fault_strategy", config.fault_strategy.name));
  MQKIT_ASSIGN_OR_RETURN(config.allocator,
                         plugin_choice(boot, Category::kAllocator, "consumer.allocator", config.allocator.name));
  // The bootstrap already resolved [kernel] plugin_dirs against the file's directory.
  config.plugin_dirs = boot.registry().search_path();
  return config;
}

std::vector<std::string> split_namesrv_addresses(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto end = text.find(';');
    std::string_view item = text.substr(0, end);
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    if (first != std::string_view::npos) out.emplace_back(item.substr(first, last - first + 1));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

protocol::acl::Credentials credentials_or_environment(protocol::acl::Credentials given) {
  auto fill = [](std::string& value, const char* variable) {
    if (!value.empty()) return;
    if (const char* env = std::getenv(variable); env != nullptr) value = env;
  };
  fill(given.access_key, "MQKIT_ACCESS_KEY");
  fill(given.secret_key, "MQKIT_SECRET_KEY");
  return given;
}

}  // namespace mqkit::client
