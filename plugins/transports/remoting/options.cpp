#include "transports/remoting/options.hpp"

namespace mqkit::plugins::transports::remoting {

namespace {

using v1::ConfigField;
using v1::ValueType;

constexpr double kHour = 3'600'000;

constexpr const char* kTlsModes[] = {"disabled", "permissive", "enforcing", nullptr};
constexpr const char* kClientAuth[] = {"none", "optional", "require", nullptr};

constexpr ConfigField kSchema[] = {
    {.key = "io_threads", .type = ValueType::kInt, .default_value = "1",
     .description = "threads running the io_context that owns every socket", .min = 1, .max = 64},
    {.key = "worker_threads", .type = ValueType::kInt, .default_value = "4",
     .description = "threads running request handlers", .min = 1, .max = 1024},
    {.key = "max_frame_size", .type = ValueType::kSize, .default_value = "16MiB",
     .description = "largest frame (the length field's value) sent or accepted; a peer exceeding it is "
                    "disconnected (RocketMQ com.rocketmq.remoting.frameMaxLength)",
     .min = 1024, .max = 2147483647},
    {.key = "read_timeout", .type = ValueType::kDuration, .default_value = "30s",
     .description = "a frame started but not complete within this closes the connection; 0 = off",
     .min = 0, .max = kHour},
    {.key = "idle_timeout", .type = ValueType::kDuration, .default_value = "120s",
     .description = "a connection without traffic either way for this long is closed; 0 = off "
                    "(RocketMQ serverChannelMaxIdleTimeSeconds)",
     .min = 0, .max = 24 * kHour},
    {.key = "max_in_flight_per_connection", .type = ValueType::kInt, .default_value = "256",
     .description = "requests of one connection queued or running in handlers; at the bound the "
                    "connection is not read until half of them have finished (TCP back-pressure)",
     .min = 1, .max = 1'000'000},
    {.key = "max_queue_wait", .type = ValueType::kDuration, .default_value = "200ms",
     .description = "a request that waited longer for a worker is answered SYSTEM_BUSY instead of "
                    "being handled; 0 = off (RocketMQ waitTimeMillsInSendQueue)",
     .min = 0, .max = kHour},
    {.key = "max_queue_wait_pull", .type = ValueType::kDuration, .default_value = "5s",
     .description = "the same for pull requests, which a burst of sends must not turn away: a refused pull "
                    "costs its consumer a retry pause; 0 = off (RocketMQ waitTimeMillsInPullQueue)",
     .min = 0, .max = kHour},
    {.key = "max_send_queue_bytes", .type = ValueType::kSize, .default_value = "64MiB",
     .description = "bytes queued for sending on one connection before Channel::send refuses more",
     .min = 1024, .max = 68719476736.0},
    {.key = "connect_timeout", .type = ValueType::kDuration, .default_value = "3s",
     .description = "time allowed to open a client connection (RocketMQ connectTimeoutMillis)",
     .min = 1, .max = kHour},
    {.key = "inline_max_requests", .type = ValueType::kInt, .default_value = "4",
     .description = "a read that brings at most this many requests, all of quick kinds (send, pull, consumer "
                    "offset, heartbeat, queue lock, min/max offset, route query), runs them on the io thread "
                    "instead of waking a worker; a read that brings more goes to the workers; 0 = never",
     .min = 0, .max = 1024},
    {.key = "tls_mode", .type = ValueType::kString, .default_value = "disabled",
     .description = "accepted connections: disabled (plain TCP), permissive (TLS or plain, whichever the client "
                    "starts with), enforcing (TLS only) (RocketMQ tls.server.mode)",
     .allowed = kTlsModes},
    {.key = "tls_enable", .type = ValueType::kBool, .default_value = "false",
     .description = "connections this side opens (to name servers, brokers) use TLS (RocketMQ tls.enable)"},
    {.key = "tls_cert_file", .type = ValueType::kString, .default_value = "",
     .description = "PEM certificate (chain) presented by this side; required with tls_mode permissive or "
                    "enforcing, optional for clients (a client certificate)"},
    {.key = "tls_key_file", .type = ValueType::kString, .default_value = "",
     .description = "PEM private key of tls_cert_file"},
    {.key = "tls_ca_file", .type = ValueType::kString, .default_value = "",
     .description = "PEM CA certificates this side verifies peers with: a client the server's certificate "
                    "(empty: not verified, RocketMQ's tls.test.mode.enable), a server the clients' (see "
                    "tls_need_client_auth)"},
    {.key = "tls_need_client_auth", .type = ValueType::kString, .default_value = "none",
     .description = "accepted TLS connections: none (no client certificate asked), optional (verified against "
                    "tls_ca_file when presented), require (refused without one) (RocketMQ tls.server.need.client.auth)",
     .allowed = kClientAuth},
};

}  // namespace

std::span<const ConfigField> config_schema() noexcept { return kSchema; }

Options Options::from_config(const v1::ConfigValues& config) {
  using std::chrono::milliseconds;
  Options o;
  o.io_threads = static_cast<std::size_t>(config.get_int("io_threads"));
  o.worker_threads = static_cast<std::size_t>(config.get_int("worker_threads"));
  o.max_frame_size = static_cast<std::size_t>(config.get_size("max_frame_size"));
  o.read_timeout = milliseconds(config.get_duration_ms("read_timeout"));
  o.idle_timeout = milliseconds(config.get_duration_ms("idle_timeout"));
  o.max_in_flight_per_connection = static_cast<std::size_t>(config.get_int("max_in_flight_per_connection"));
  o.max_queue_wait = milliseconds(config.get_duration_ms("max_queue_wait"));
  o.max_queue_wait_pull = milliseconds(config.get_duration_ms("max_queue_wait_pull"));
  o.max_send_queue_bytes = static_cast<std::size_t>(config.get_size("max_send_queue_bytes"));
  o.connect_timeout = milliseconds(config.get_duration_ms("connect_timeout"));
  o.inline_max_requests = static_cast<std::size_t>(config.get_int("inline_max_requests"));
  const std::string& mode = config.get_string("tls_mode");
  o.tls_mode = mode == "enforcing"    ? TlsServerMode::kEnforcing
               : mode == "permissive" ? TlsServerMode::kPermissive
                                      : TlsServerMode::kDisabled;
  o.tls_enable = config.get_bool("tls_enable");
  o.tls_cert_file = config.get_string("tls_cert_file");
  o.tls_key_file = config.get_string("tls_key_file");
  o.tls_ca_file = config.get_string("tls_ca_file");
  const std::string& client_auth = config.get_string("tls_need_client_auth");
  o.tls_need_client_auth = client_auth == "require"    ? ClientAuth::kRequire
                           : client_auth == "optional" ? ClientAuth::kOptional
                                                       : ClientAuth::kNone;
  return o;
}

std::chrono::milliseconds Options::queue_wait_budget(std::int32_t request_code) const noexcept {
  // RocketMQ request codes PULL_MESSAGE and LITE_PULL_MESSAGE (rocketmq-facts §1).
  constexpr std::int32_t kPullMessage = 11;
  constexpr std::int32_t kLitePullMessage = 361;
  return request_code == kPullMessage || request_code == kLitePullMessage ? max_queue_wait_pull : max_queue_wait;
}

bool Options::is_quick_request(std::int32_t request_code) const noexcept {
  // RocketMQ request codes (rocketmq-facts §1) whose handlers touch memory or append and
  // answer later through the channel, never waiting: SEND_MESSAGE, PULL_MESSAGE,
  // QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET, GET_MAX_OFFSET, GET_MIN_OFFSET, HEART_BEAT,
  // GET_CONSUMER_LIST_BY_GROUP, LOCK_BATCH_MQ, UNLOCK_BATCH_MQ, GET_ROUTEINFO_BY_TOPIC,
  // SEND_MESSAGE_V2, SEND_BATCH_MESSAGE, LITE_PULL_MESSAGE. Not END_TRANSACTION, which waits
  // for its appends, nor queries that search files.
  switch (request_code) {
    case 10: case 11: case 14: case 15: case 30: case 31: case 34: case 38: case 41: case 42:
    case 105: case 310: case 320: case 361:
      return true;
    default:
      return false;
  }
}

}  // namespace mqkit::plugins::transports::remoting
