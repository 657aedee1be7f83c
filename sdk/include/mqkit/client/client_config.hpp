// ClientConfig: what every client (producer, consumer, admin tool) shares — where the name
// servers are, who the client is (client id "<ip>@<instance>"), RPC timeouts, the intervals of
// the periodic tasks, the ACL account requests are signed with, and which plugins it loads (transport, queue selector, fault strategy,
// queue allocator) with their settings.
//
// Built in code (tests, examples) or loaded from TOML through the kernel (load_client_config):
//
//   [client]                  keys of client_schema()
//   [client.transport]        plugin slot, default "remoting"
//   [producer.selector]       plugin slot, default "round_robin"
//   [producer.fault_strategy] plugin slot, default "latency_fault_tolerance"
//   [consumer.allocator]      plugin slot, default "averagely"
//
// A plain value type: copy it freely; not synchronized.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/types.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"
#include "mqkit/protocol/acl_signature.hpp"

namespace mqkit::kernel {
class Bootstrap;
}

namespace mqkit::client {

// A plugin picked by name (canonical name or alias such as a RocketMQ class name) with its own
// settings, each value written as on the command line ("20", "30s", "64KiB", "a,b"). The plugin
// validates them against its schema when it is created.
struct PluginChoice {
  std::string name{};
  std::map<std::string, std::string> settings{};
};

struct ClientConfig {
  // "host:port" of every name server. Empty: taken from $NAMESRV_ADDR by resolved().
  std::vector<std::string> namesrv_addresses{};
  // "DEFAULT" is replaced by "<pid>#<nanotime>" in resolved(), as RocketMQ does, so that every
  // producer and consumer gets its own ClientInstance unless the application names one.
  std::string instance_name = "DEFAULT";
  std::string client_ip{};   // empty: the first non-loopback IPv4 address (resolved())
  std::string unit_name{};   // appended to the client id when set
  // RocketMQ's namespace (ClientConfig#setNamespace; Aliyun ONS's instance id): when set, every
  // topic and group this client names is NS%name on the wire (%RETRY%NS%group, %DLQ%NS%group;
  // system topics stay as they are), and the topics of messages and queues it hands back are
  // without it. Producers and consumers read their own config's, also when sharing an instance.
  // Empty: none. Letters, digits, |, _ and -, at most 125 (protocol/namespace.hpp).
  std::string name_space{};
  std::chrono::milliseconds api_timeout{3000};  // mqClientApiTimeout: every RPC without its own timeout
  std::chrono::milliseconds poll_name_server_interval{30000};
  std::chrono::milliseconds heartbeat_broker_interval{30000};
  std::chrono::milliseconds persist_consumer_offset_interval{5000};
  std::chrono::milliseconds rebalance_interval{20000};
  // Header encoding of requests (RocketMQ's rocketmq.serialize.type); responses come back in kind.
  plugin::v1::SerializeType serialize_type = plugin::v1::SerializeType::kRocketMq;
  // For brokers that check ACL (docs/acl.md): with an access key, every request is signed as
  // RocketMQ's AclClientRPCHook signs it (AccessKey, SecurityToken when set, Signature).
  protocol::acl::Credentials credentials{};
  // vipChannelEnabled: sends, send-backs, END_TRANSACTION and offset requests go to the broker's
  // fast port (its port - 2; RocketMQ's default was true up to 4.3, false since 4.7).
  bool vip_channel_enabled = false;

  PluginChoice transport{"remoting"};
  PluginChoice selector{"round_robin"};
  PluginChoice fault_strategy{"latency_fault_tolerance"};
  PluginChoice allocator{"averagely"};
  // Searched for mqkit-*.so before $MQKIT_PLUGIN_PATH and <exe>/../plugins.
  std::vector<std::filesystem::path> plugin_dirs{};

  // "<client_ip>@<instance_name>[@<unit_name>]" (RocketMQ's buildMQClientId).
  std::string client_id() const;
  // A copy with the name servers, client ip and instance name filled in as described above.
  ClientConfig resolved() const;
  // InvalidArgument naming the first bad value (no name server, "host:port" without a port, ...).
  Status validate() const;
};

// Schema of the [client] section (keys in snake_case; RocketMQ's camelCase names are accepted).
const plugin::v1::ConfigSchema& client_schema();

// Reads [client] and the plugin slots listed above from the bootstrap's document. Plugin slot
// settings are validated against the chosen plugin's schema now, so errors name file:line.
Result<ClientConfig> load_client_config(kernel::Bootstrap& boot);

// "a:1;b:2" (RocketMQ namesrvAddr) → {"a:1", "b:2"}; blanks and empty entries are dropped.
std::vector<std::string> split_namesrv_addresses(std::string_view text);

// `given`, its empty access key and secret key taken from $MQKIT_ACCESS_KEY and $MQKIT_SECRET_KEY
// (for command-line tools: a secret in the environment stays out of the process list). The SDK
// never reads these itself.
protocol::acl::Credentials credentials_or_environment(protocol::acl::Credentials given);

}  // namespace mqkit::client
