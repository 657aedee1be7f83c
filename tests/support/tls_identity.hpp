// Test support: a self-signed certificate and its key, written as PEM files, for TLS tests. The
// certificate is its own CA, so a peer that trusts the file accepts exactly this certificate.
#pragma once

#include <filesystem>
#include <string>

namespace mqkit::testing {

struct TlsIdentity {
  std::string cert;  // PEM certificate path
  std::string key;   // PEM private key path
};

// Writes `<name>.crt` and `<name>.key` (P-256, valid for a day) into `dir`.
TlsIdentity make_tls_identity(const std::filesystem::path& dir, const std::string& name);

}  // namespace mqkit::testing
