#include "tls_identity.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <stdexcept>

namespace mqkit::testing {

TlsIdentity make_tls_identity(const std::filesystem::path& dir, const std::string& name) {
  EVP_PKEY* key = EVP_EC_gen("prime256v1");
  X509* cert = X509_new();
  if (!key || !cert) throw std::runtime_error("OpenSSL could not make a key or certificate");
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* subject = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(name.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert, subject);
  // Clients that check the server's name (gRPC's) connect to 127.0.0.1 or localhost.
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert, cert, nullptr, nullptr, 0);
  if (X509_EXTENSION* names = X509V3_EXT_conf_nid(nullptr, &context, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1")) {
    X509_add_ext(cert, names, -1);
    X509_EXTENSION_free(names);
  }
  X509_sign(cert, key, EVP_sha256());
  TlsIdentity identity{(dir / (name + ".crt")).string(), (dir / (name + ".key")).string()};
  FILE* out = std::fopen(identity.cert.c_str(), "w");
  if (out) {
    PEM_write_X509(out, cert);
    std::fclose(out);
  }
  out = std::fopen(identity.key.c_str(), "w");
  if (out) {
    PEM_write_PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(out);
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  return identity;
}

}  // namespace mqkit::testing
