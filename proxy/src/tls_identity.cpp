#include "mqkit/proxy/tls_identity.hpp"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

namespace mqkit::proxy {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

struct FreeBio {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct FreeX509 {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct FreeKey {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using BioPtr = std::unique_ptr<BIO, FreeBio>;
using X509Ptr = std::unique_ptr<X509, FreeX509>;
using KeyPtr = std::unique_ptr<EVP_PKEY, FreeKey>;

// OpenSSL's last error, for messages.
std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no detail from OpenSSL";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

Result<std::string> read_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::invalid_argument("cannot read the TLS " + std::string(what) + " file " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

BioPtr bio_of(const std::string& pem) { return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }

Result<std::string> pem_of(const std::function<int(BIO*)>& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || write(bio.get()) != 1) return Status::internal("writing PEM: " + openssl_error());
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

Result<TlsIdentity> load_tls_identity(const std::filesystem::path& cert_file, const std::filesystem::path& key_file) {
  TlsIdentity identity;
  MQKIT_ASSIGN_OR_RETURN(identity.certificate_chain, read_file(cert_file, "certificate"));
  MQKIT_ASSIGN_OR_RETURN(identity.private_key, read_file(key_file, "private key"));
  const X509Ptr cert(PEM_read_bio_X509(bio_of(identity.certificate_chain).get(), nullptr, nullptr, nullptr));
  if (cert == nullptr) {
    return Status::invalid_argument("the TLS certificate file " + cert_file.string() +
                                    " holds no PEM certificate: " + openssl_error());
  }
  const KeyPtr key(PEM_read_bio_PrivateKey(bio_of(identity.private_key).get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return Status::invalid_argument("the TLS private key file " + key_file.string() +
                                    " holds no PEM private key (an encrypted key is not supported): " + openssl_error());
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return Status::invalid_argument("the TLS private key " + key_file.string() + " is not the key of the certificate " +
                                    cert_file.string());
  }
  return identity;
}

Result<TlsIdentity> self_signed_tls_identity(const std::vector<std::string>& hosts, int valid_days) {
  if (hosts.empty()) return Status::invalid_argument("a certificate needs a host name");
  const KeyPtr key(EVP_EC_gen("prime256v1"));
  const X509Ptr cert(X509_new());
  if (key == nullptr || cert == nullptr) return Status::internal("making a TLS key: " + openssl_error());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), static_cast<long>(std::time(nullptr)));
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(valid_days) * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* subject = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(hosts.front().c_str()),
                             -1, -1, 0);
  X509_set_issuer_name(cert.get(), subject);
  std::string names;
  for (const auto& host : hosts) {
    unsigned char address[16];
    const bool is_ip = inet_pton(AF_INET, host.c_str(), address) == 1 || inet_pton(AF_INET6, host.c_str(), address) == 1;
    if (!names.empty()) names += ',';
    names += is_ip ? "IP:" : "DNS:";
    names += host;
  }
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert.get(), cert.get(), nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, NID_subject_alt_name, names.c_str());
  if (extension == nullptr) return Status::invalid_argument("certificate names " + names + ": " + openssl_error());
  X509_add_ext(cert.get(), extension, -1);
  X509_EXTENSION_free(extension);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return Status::internal("signing a certificate: " + openssl_error());
  TlsIdentity identity;
  MQKIT_ASSIGN_OR_RETURN(identity.certificate_chain, pem_of([&](BIO* bio) { return PEM_write_bio_X509(bio, cert.get()); }));
  MQKIT_ASSIGN_OR_RETURN(identity.private_key, pem_of([&](BIO* bio) {
                           return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
                         }));
  return identity;
}

}  // namespace mqkit::proxy
