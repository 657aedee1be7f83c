// The plugin's configuration: the schema declared once, and the typed values read from it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mqkit/plugin/v1/config.hpp"

namespace mqkit::plugins::transports::remoting {

namespace v1 = ::mqkit::plugin::v1;

struct Options {
  std::size_t io_threads = 1;
  std::size_t worker_threads = 4;
  std::size_t max_frame_size = 16 * 1024 * 1024;
  std::chrono::milliseconds read_timeout{30'000};  // 0 = off
  std::chrono::milliseconds idle_timeout{120'000};  // 0 = off
  std::size_t max_in_flight_per_connection = 256;
  std::chrono::milliseconds max_queue_wait{200};  // 0 = off
  std::chrono::milliseconds max_queue_wait_pull{5'000};  // PULL_MESSAGE / LITE_PULL_MESSAGE; 0 = off
  std::size_t max_send_queue_bytes = 64 * 1024 * 1024;
  std::chrono::milliseconds connect_timeout{3'000};
  std::size_t inline_max_requests = 4;  // 0 = every request goes to the workers

  // TLS (RocketMQ's tls.server.mode / tls.enable). Accepted connections: kDisabled speaks plain
  // TCP, kEnforcing only TLS, kPermissive whichever the peer starts with.
  enum class TlsServerMode : std::uint8_t { kDisabled, kPermissive, kEnforcing };
  TlsServerMode tls_mode = TlsServerMode::kDisabled;
  bool tls_enable = false;       // connections this transport opens use TLS
  std::string tls_cert_file;     // PEM certificate chain this side presents (server: required)
  std::string tls_key_file;      // PEM private key of that certificate
  std::string tls_ca_file;       // PEM CAs this side verifies peers' certificates with: a client
                                 // the server's; a server clients' (tls_need_client_auth)
  enum class ClientAuth : std::uint8_t { kNone, kOptional, kRequire };
  ClientAuth tls_need_client_auth = ClientAuth::kNone;  // RocketMQ tls.server.need.client.auth

  static Options from_config(const v1::ConfigValues& config);

  // How long a request with this code may wait for a worker before it is answered SYSTEM_BUSY.
  std::chrono::milliseconds queue_wait_budget(std::int32_t request_code) const noexcept;
  // Whether a request with this code is of a quick kind, which may run on the io thread when its
  // read brought at most inline_max_requests requests.
  bool is_quick_request(std::int32_t request_code) const noexcept;
};

std::span<const v1::ConfigField> config_schema() noexcept;

}  // namespace mqkit::plugins::transports::remoting
