#include "mqkit/proxy/proxy_settings.hpp"

namespace mqkit::proxy {

namespace {

using plugin::v1::ValueType;

constexpr const char* kTlsModes[] = {"disabled", "permissive", "enforcing", nullptr};

constexpr plugin::v1::ConfigField kFields[] = {
    {.key = "listen_host", .type = ValueType::kString, .default_value = "0.0.0.0",
     .description = "Address the gRPC server listens on"},
    {.key = "listen_port", .type = ValueType::kInt, .default_value = "8081",
     .description = "gRPC port for RocketMQ 5 clients (0 = any free port)", .min = 0, .max = 65535},
    {.key = "advertised_address", .type = ValueType::kString, .default_value = "",
     .description = "host:port routes send clients to; empty = the endpoints the client queried"},
    {.key = "max_message_size", .type = ValueType::kSize, .default_value = "4MiB",
     .description = "Largest message body accepted", .min = 1, .max = 1024.0 * 1024 * 1024},
    {.key = "max_user_property_size", .type = ValueType::kSize, .default_value = "16KiB",
     .description = "Largest total of user properties, tag and keys of one message", .min = 1},
    {.key = "user_property_max_num", .type = ValueType::kInt, .default_value = "128",
     .description = "Most user properties one message may carry", .min = 0},
    {.key = "max_message_group_size", .type = ValueType::kInt, .default_value = "64",
     .description = "A message group must be shorter than this many bytes", .min = 1},
    {.key = "max_delay_time", .type = ValueType::kDuration, .default_value = "24h",
     .description = "How far ahead a delivery timestamp may lie", .min = 1},
    {.key = "enable_topic_message_type_check", .type = ValueType::kBool, .default_value = "true",
     .description = "Tell clients to refuse messages of a type their topic does not accept"},
    {.key = "enable_message_body_empty_check", .type = ValueType::kBool, .default_value = "true",
     .description = "Refuse messages with an empty body (MESSAGE_BODY_EMPTY)"},
    {.key = "producer_max_attempts", .type = ValueType::kInt, .default_value = "3",
     .description = "Send attempts producers make (their retry policy)", .min = 1, .max = 100},
    {.key = "producer_backoff_initial", .type = ValueType::kDuration, .default_value = "10ms",
     .description = "Producers' first wait before another attempt", .min = 1},
    {.key = "producer_backoff_max", .type = ValueType::kDuration, .default_value = "1s",
     .description = "Producers' longest wait between attempts", .min = 1},
    {.key = "producer_backoff_multiplier", .type = ValueType::kDouble, .default_value = "2",
     .description = "Growth of producers' wait from one attempt to the next", .min = 1, .max = 100},
    {.key = "min_invisible_time", .type = ValueType::kDuration, .default_value = "10s",
     .description = "Shortest invisible time a receive may ask for (ILLEGAL_INVISIBLE_TIME below)", .min = 1},
    {.key = "max_invisible_time", .type = ValueType::kDuration, .default_value = "12h",
     .description = "Longest invisible time a receive or change may ask for", .min = 1},
    {.key = "default_invisible_time", .type = ValueType::kDuration, .default_value = "60s",
     .description = "Invisible time of a receive that names none", .min = 1},
    {.key = "max_long_polling_time", .type = ValueType::kDuration, .default_value = "30s",
     .description = "Longest a receive waits for messages to arrive", .min = 1},
    {.key = "enable_auto_renew", .type = ValueType::kBool, .default_value = "true",
     .description = "Keep push consumers' messages (auto_renew receives) invisible while they consume them"},
    {.key = "renew_ahead_time", .type = ValueType::kDuration, .default_value = "10s",
     .description = "Renew a held message when its invisible time ends within this", .min = 1},
    {.key = "renew_interval", .type = ValueType::kDuration, .default_value = "5s",
     .description = "How often held messages are looked at for renewal", .min = 10},
    {.key = "renew_max_time", .type = ValueType::kDuration, .default_value = "3h",
     .description = "Longest a message is held for one consumer; after it comes back", .min = 1},
    {.key = "invisible_time_when_clear", .type = ValueType::kDuration, .default_value = "1s",
     .description = "A push consumer that leaves: its held messages come back after this", .min = 1},
    {.key = "send_timeout", .type = ValueType::kDuration, .default_value = "3s",
     .description = "How long a send to a broker may take before PROXY_TIMEOUT", .min = 1},
    {.key = "worker_threads", .type = ValueType::kInt, .default_value = "8",
     .description = "Threads answering calls that wait on name servers or brokers (routes, settings, "
                    "transactions); sends, receives and acks never wait on one",
     .min = 1, .max = 256},
    {.key = "acl_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "Check every gRPC call against acl_file: the client's signature, account, topic and group "
                    "permissions"},
    {.key = "acl_file", .type = ValueType::kString, .default_value = "acl.toml",
     .description = "The ACL file (the broker's format, docs/acl.md); relative to this config file's directory"},
    {.key = "tls_mode", .type = ValueType::kString, .default_value = "disabled",
     .description = "gRPC clients connect over: disabled (plaintext), enforcing (TLS only), permissive (plaintext on "
                    "listen_port and TLS on tls_listen_port) (RocketMQ tlsMode)",
     .allowed = kTlsModes},
    {.key = "tls_listen_port", .type = ValueType::kInt, .default_value = "-1",
     .description = "With tls_mode permissive: the port serving TLS (0 = any free port)", .min = -1, .max = 65535},
    {.key = "tls_cert_file", .type = ValueType::kString, .default_value = "",
     .description = "PEM certificate chain shown to clients; empty (with tls_key_file): a self-signed one made at "
                    "start, as RocketMQ's tlsTestModeEnable"},
    {.key = "tls_key_file", .type = ValueType::kString, .default_value = "",
     .description = "PEM private key of tls_cert_file (not encrypted)"},
    metrics::kExporterTypeField,
    metrics::kExporterHostField,
    {.key = "metrics_prom_exporter_port", .type = ValueType::kInt, .default_value = "5559",
     .description = "Port of the Prometheus metrics exporter (0 = any free port)", .min = 0, .max = 65535},
};
constexpr plugin::v1::ConfigSchema kSchema{kFields, std::size(kFields)};

}  // namespace

const plugin::v1::ConfigSchema& proxy_schema() { return kSchema; }

plugin::v1::Result<ProxySettings> proxy_settings(const plugin::v1::ConfigValues& values,
                                                 const std::filesystem::path& base_directory) {
  using std::chrono::milliseconds;
  const auto resolved = [&](std::filesystem::path path) {
    if (!path.empty() && path.is_relative() && !base_directory.empty()) return base_directory / path;
    return path;
  };
  ProxySettings s;
  s.listen_host = values.get_string("listen_host");
  s.listen_port = static_cast<std::uint16_t>(values.get_int("listen_port"));
  s.advertised_address = values.get_string("advertised_address");
  s.max_message_size = values.get_size("max_message_size");
  s.max_user_property_size = values.get_size("max_user_property_size");
  s.user_property_max_num = values.get_int("user_property_max_num");
  s.max_message_group_size = values.get_int("max_message_group_size");
  s.max_delay_time = milliseconds(values.get_duration_ms("max_delay_time"));
  s.enable_topic_message_type_check = values.get_bool("enable_topic_message_type_check");
  s.enable_message_body_empty_check = values.get_bool("enable_message_body_empty_check");
  s.producer_max_attempts = values.get_int("producer_max_attempts");
  s.producer_backoff_initial = milliseconds(values.get_duration_ms("producer_backoff_initial"));
  s.producer_backoff_max = milliseconds(values.get_duration_ms("producer_backoff_max"));
  s.producer_backoff_multiplier = values.get_double("producer_backoff_multiplier");
  s.min_invisible_time = milliseconds(values.get_duration_ms("min_invisible_time"));
  s.max_invisible_time = milliseconds(values.get_duration_ms("max_invisible_time"));
  s.default_invisible_time = milliseconds(values.get_duration_ms("default_invisible_time"));
  s.max_long_polling_time = milliseconds(values.get_duration_ms("max_long_polling_time"));
  s.send_timeout = milliseconds(values.get_duration_ms("send_timeout"));
  s.enable_auto_renew = values.get_bool("enable_auto_renew");
  s.renew_ahead_time = milliseconds(values.get_duration_ms("renew_ahead_time"));
  s.renew_interval = milliseconds(values.get_duration_ms("renew_interval"));
  s.renew_max_time = milliseconds(values.get_duration_ms("renew_max_time"));
  s.invisible_time_when_clear = milliseconds(values.get_duration_ms("invisible_time_when_clear"));
  s.worker_threads = values.get_int("worker_threads");
  s.acl_enable = values.get_bool("acl_enable");
  s.acl_file = resolved(values.get_string("acl_file"));
  const std::string& tls_mode = values.get_string("tls_mode");
  s.tls_mode = tls_mode == "enforcing"    ? TlsMode::kEnforcing
               : tls_mode == "permissive" ? TlsMode::kPermissive
                                          : TlsMode::kDisabled;
  s.tls_listen_port = static_cast<std::int32_t>(values.get_int("tls_listen_port"));
  s.tls_cert_file = resolved(values.get_string("tls_cert_file"));
  s.tls_key_file = resolved(values.get_string("tls_key_file"));
  s.metrics_exporter = metrics::exporter_settings_from(values, "metrics_prom_exporter_port");
  if (s.tls_mode == TlsMode::kPermissive && s.tls_listen_port < 0) {
    return plugin::v1::Status::invalid_argument(
        "proxy.tls_mode permissive serves TLS on proxy.tls_listen_port: set it (0 = any free port)");
  }
  if (s.tls_mode == TlsMode::kPermissive && s.tls_listen_port != 0 && s.tls_listen_port == s.listen_port) {
    return plugin::v1::Status::invalid_argument("proxy.tls_listen_port must differ from proxy.listen_port");
  }
  if (s.tls_cert_file.empty() != s.tls_key_file.empty()) {
    return plugin::v1::Status::invalid_argument("proxy.tls_cert_file and proxy.tls_key_file go together: set both or neither");
  }
  return s;
}

}  // namespace mqkit::proxy
