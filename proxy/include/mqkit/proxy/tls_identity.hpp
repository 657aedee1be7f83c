// What mqproxy presents to gRPC clients over TLS: a certificate chain and its private key, in PEM,
// read from the configured files, or made at start when none are configured (RocketMQ's proxy
// does the same in its tlsTestModeEnable, its default: RocketMQ 5's Java client connects with TLS
// by default and trusts any certificate).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::proxy {

struct TlsIdentity {
  std::string certificate_chain;  // PEM
  std::string private_key;        // PEM
};

// The files' identity. InvalidArgument naming the file when one cannot be read, holds no PEM
// certificate or key, or when the key is not the certificate's.
plugin::v1::Result<TlsIdentity> load_tls_identity(const std::filesystem::path& cert_file,
                                                  const std::filesystem::path& key_file);

// A new P-256 key and a certificate for it signed by itself, valid from a minute ago for
// `valid_days`, naming `hosts` (DNS names or IP addresses) as subject alternative names and the
// first as its common name.
plugin::v1::Result<TlsIdentity> self_signed_tls_identity(const std::vector<std::string>& hosts, int valid_days = 365);

}  // namespace mqkit::proxy
