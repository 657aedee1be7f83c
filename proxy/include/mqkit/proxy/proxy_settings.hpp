// The [proxy] section of etc/proxy.toml: where mqproxy serves RocketMQ 5's gRPC protocol and
// what it tells gRPC clients in their settings (RocketMQ's ProxyConfig keys, snake_case).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "mqkit/metrics/exporter_settings.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::proxy {

// How gRPC clients connect (RocketMQ's proxy tlsMode). RocketMQ's permissive mode tells TLS from
// plaintext on one port; gRPC's C++ server cannot, so permissive serves plaintext on listen_port
// and TLS on tls_listen_port.
enum class TlsMode { kDisabled, kPermissive, kEnforcing };

struct ProxySettings {
  std::string listen_host = "0.0.0.0";
  std::uint16_t listen_port = 8081;  // RocketMQ's grpcServerPort
  // The address routes send clients to. Empty: the access point the client itself queried
  // (QueryRoute's endpoints), as RocketMQ's cluster-mode proxy does behind a load balancer.
  std::string advertised_address{};
  std::int64_t max_message_size = 4 * 1024 * 1024;  // body bytes at most (maxMessageSize)
  std::int64_t max_user_property_size = 16 * 1024;  // user properties, tag and keys (maxUserPropertySize)
  std::int64_t user_property_max_num = 128;         // userPropertyMaxNum
  std::int64_t max_message_group_size = 64;         // maxMessageGroupSize
  std::chrono::milliseconds max_delay_time{std::chrono::hours(24)};  // maxDelayTimeMills
  bool enable_topic_message_type_check = true;  // clients refuse a type the topic does not accept
  bool enable_message_body_empty_check = true;
  // The retry policy producers get (grpcClientProducer*): attempts and exponential backoff.
  std::int64_t producer_max_attempts = 3;
  std::chrono::milliseconds producer_backoff_initial{10};
  std::chrono::milliseconds producer_backoff_max{1000};
  double producer_backoff_multiplier = 2.0;
  // Consumers (RocketMQ's minInvisibleTimeMillsForRecv, maxInvisibleTimeMills,
  // defaultInvisibleTimeMills): the invisible times a receive may ask for, and the one it gets
  // when it names none; the longest a receive is held waiting for messages.
  std::chrono::milliseconds min_invisible_time{std::chrono::seconds(10)};
  std::chrono::milliseconds max_invisible_time{std::chrono::hours(12)};
  std::chrono::milliseconds default_invisible_time{std::chrono::seconds(60)};
  std::chrono::milliseconds max_long_polling_time{std::chrono::seconds(30)};
  // Push consumers' deliveries (auto_renew) held invisible while they consume (RocketMQ's
  // enableProxyAutoRenew, renewAheadTimeMillis, renewSchedulePeriodMillis, renewMaxTimeMillis,
  // invisibleTimeMillisWhenClear): renewed when their invisible time ends within
  // renew_ahead_time, looked at every renew_interval, for at most renew_max_time; made visible
  // after invisible_time_when_clear when their client leaves.
  bool enable_auto_renew = true;
  std::chrono::milliseconds renew_ahead_time{std::chrono::seconds(10)};
  std::chrono::milliseconds renew_interval{std::chrono::seconds(5)};
  std::chrono::milliseconds renew_max_time{std::chrono::hours(3)};
  std::chrono::milliseconds invisible_time_when_clear{std::chrono::seconds(1)};
  // How long a send to a broker may take before the client is answered PROXY_TIMEOUT.
  std::chrono::milliseconds send_timeout{3000};
  // Threads answering the calls that wait on name servers or brokers (a route or group not
  // cached yet, settings, transactions); sends, receives and acks are asynchronous.
  std::int64_t worker_threads = 8;
  // Check every gRPC call against acl_file (RocketMQ's enableACL): the client's signature,
  // account, and its permissions on the topics and groups the call names (docs/acl.md).
  bool acl_enable = false;
  TlsMode tls_mode = TlsMode::kDisabled;
  std::int32_t tls_listen_port = -1;  // permissive: the TLS port (0 = any free one)
  // PEM certificate chain and private key clients are shown; both empty with TLS on: a
  // self-signed certificate made at start. Resolved against the config file's directory.
  std::filesystem::path tls_cert_file{};
  std::filesystem::path tls_key_file{};
  // Prometheus metrics (metrics_exporter_type, metrics_prom_exporter_host/port; docs/metrics.md).
  metrics::ExporterSettings metrics_exporter{};
  std::filesystem::path acl_file = "acl.toml";  // resolved against the config file's directory
};

const plugin::v1::ConfigSchema& proxy_schema();
// The settings; InvalidArgument naming the keys when they do not fit together (permissive
// without tls_listen_port, one of tls_cert_file and tls_key_file without the other).
// `base_directory`: the config file's directory, where a relative acl_file lies (empty: the
// working directory).
plugin::v1::Result<ProxySettings> proxy_settings(const plugin::v1::ConfigValues& values,
                                                 const std::filesystem::path& base_directory = {});

}  // namespace mqkit::proxy
