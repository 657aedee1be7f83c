#include "transports/remoting/tls.hpp"

#include <openssl/ssl.h>

#include <string>

namespace mqkit::plugins::transports::remoting {

namespace ssl = boost::asio::ssl;
using v1::Status;

namespace {

Status file_error(const char* key, const std::string& path, const boost::system::error_code& error) {
  return Status::invalid_argument(std::string(key) + " '" + path + "': " + error.message());
}

// TLS 1.2 and later only: older versions have known breaks.
std::unique_ptr<ssl::context> new_context(ssl::context::method method) {
  auto context = std::make_unique<ssl::context>(method);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  return context;
}

// The certificate this side presents and its key, checked to belong together.
Status load_identity(ssl::context& context, const Options& options) {
  boost::system::error_code error;
  context.use_certificate_chain_file(options.tls_cert_file, error);
  if (error) return file_error("tls_cert_file", options.tls_cert_file, error);
  context.use_private_key_file(options.tls_key_file, ssl::context::pem, error);
  if (error) return file_error("tls_key_file", options.tls_key_file, error);
  if (SSL_CTX_check_private_key(context.native_handle()) != 1) {
    return Status::invalid_argument("tls_key_file '" + options.tls_key_file + "' is not the key of tls_cert_file '" +
                                    options.tls_cert_file + "'");
  }
  return Status::ok();
}

// The CAs peers' certificates are checked against, and how: `mode` is 0 (no check) or
// ssl::verify_peer, with verify_fail_if_no_peer_cert to refuse a peer without one.
Status load_trust(ssl::context& context, const Options& options, ssl::verify_mode mode) {
  context.set_verify_mode(mode);
  if (mode == ssl::verify_none) return Status::ok();
  boost::system::error_code error;
  context.load_verify_file(options.tls_ca_file, error);
  if (error) return file_error("tls_ca_file", options.tls_ca_file, error);
  return Status::ok();
}

}  // namespace

v1::Result<std::shared_ptr<const TlsContexts>> TlsContexts::create(const Options& options) try {
  auto contexts = std::make_shared<TlsContexts>();
  if (options.tls_mode != Options::TlsServerMode::kDisabled) {
    if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
      return Status::invalid_argument("tls_mode " +
                                      std::string(options.tls_mode == Options::TlsServerMode::kEnforcing ? "enforcing"
                                                                                                          : "permissive") +
                                      " needs tls_cert_file and tls_key_file (the server's certificate and key)");
    }
    contexts->server = new_context(ssl::context::tls_server);
    MQKIT_RETURN_IF_ERROR(load_identity(*contexts->server, options));
    using ClientAuth = Options::ClientAuth;
    if (options.tls_need_client_auth != ClientAuth::kNone && options.tls_ca_file.empty()) {
      return Status::invalid_argument("tls_need_client_auth " +
                                      std::string(options.tls_need_client_auth == ClientAuth::kRequire ? "require"
                                                                                                         : "optional") +
                                      " needs tls_ca_file (the CAs client certificates are verified with)");
    }
    const ssl::verify_mode client_check = options.tls_need_client_auth == ClientAuth::kNone ? ssl::verify_none
                                          : options.tls_need_client_auth == ClientAuth::kOptional
                                              ? ssl::verify_peer
                                              : ssl::verify_peer | ssl::verify_fail_if_no_peer_cert;
    MQKIT_RETURN_IF_ERROR(load_trust(*contexts->server, options, client_check));
  }
  if (options.tls_enable) {
    contexts->client = new_context(ssl::context::tls_client);
    if (!options.tls_cert_file.empty() || !options.tls_key_file.empty()) {
      MQKIT_RETURN_IF_ERROR(load_identity(*contexts->client, options));
    }
    MQKIT_RETURN_IF_ERROR(
        load_trust(*contexts->client, options, options.tls_ca_file.empty() ? ssl::verify_none : ssl::verify_peer));
  }
  return std::shared_ptr<const TlsContexts>(std::move(contexts));
} catch (const std::exception& e) {
  return Status::internal(std::string("setting up TLS: ") + e.what());
}

}  // namespace mqkit::plugins::transports::remoting
