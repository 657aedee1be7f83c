// TLS for the remoting transport (RocketMQ's tls.server.mode and tls.enable): the OpenSSL
// contexts, built once from the options when the transport is created, so a missing or
// mismatched certificate is a configuration error naming the file, not a failure per connection.
//
// Threads: the contexts are read-only once built; every connection's stream shares them.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <cstdint>
#include <memory>

#include "mqkit/plugin/v1/status.hpp"
#include "transports/remoting/options.hpp"

namespace mqkit::plugins::transports::remoting {

struct TlsContexts {
  std::unique_ptr<boost::asio::ssl::context> server;  // null: tls_mode disabled
  std::unique_ptr<boost::asio::ssl::context> client;  // null: tls_enable false

  static v1::Result<std::shared_ptr<const TlsContexts>> create(const Options& options);
};

// Whether a connection's first byte starts a TLS handshake (a record of content type 22), which
// is how a permissive server tells TLS clients from plain ones: a remoting frame starts with its
// length's high byte, which is 0 for any frame under 16 MiB.
constexpr bool starts_tls_handshake(std::uint8_t first_byte) noexcept { return first_byte == 22; }

}  // namespace mqkit::plugins::transports::remoting
