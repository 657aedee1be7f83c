#include "mqkit/proxy/tls_identity.hpp"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <fstream>

namespace mqkit::proxy {
namespace {

class TlsIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name) << content;
    return dir_ / name;
  }

  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("proxy-tls-" + std::to_string(::getpid()));
};

TEST_F(TlsIdentityTest, SelfSignedCertificatesNameTheirHostsAndLoadBackWithTheirKey) {
  auto made = self_signed_tls_identity({"localhost", "127.0.0.1", "::1"});
  ASSERT_TRUE(made.is_ok()) << made.status().to_string();
  BIO* bio = BIO_new_mem_buf(made->certificate_chain.data(), static_cast<int>(made->certificate_chain.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(X509_check_host(cert, "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(cert, "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(cert, "::1", 0), 1);
  EXPECT_NE(X509_check_ip_asc(cert, "10.0.0.1", 0), 1);
  EXPECT_NE(X509_check_host(cert, "example.com", 0, 0, nullptr), 1);
  X509_free(cert);

  const auto loaded = load_tls_identity(write("proxy.crt", made->certificate_chain), write("proxy.key", made->private_key));
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->certificate_chain, made->certificate_chain);
  EXPECT_FALSE(self_signed_tls_identity({}).is_ok());
}

TEST_F(TlsIdentityTest, UnusableFilesAreNamed) {
  const auto first = self_signed_tls_identity({"localhost"}).value();
  const auto second = self_signed_tls_identity({"localhost"}).value();
  const auto cert = write("a.crt", first.certificate_chain);
  const auto key = write("a.key", first.private_key);
  const auto message = [](const plugin::v1::Result<TlsIdentity>& loaded) {
    return loaded.is_ok() ? std::string("loaded") : loaded.status().message();
  };
  EXPECT_NE(message(load_tls_identity(dir_ / "missing.crt", key)).find("cannot read the TLS certificate file"),
            std::string::npos);
  EXPECT_NE(message(load_tls_identity(write("text.crt", "not a certificate"), key)).find("holds no PEM certificate"),
            std::string::npos);
  EXPECT_NE(message(load_tls_identity(cert, write("text.key", "not a key"))).find("holds no PEM private key"),
            std::string::npos);
  EXPECT_NE(message(load_tls_identity(cert, write("b.key", second.private_key))).find("is not the key of the certificate"),
            std::string::npos);
}

}  // namespace
}  // namespace mqkit::proxy
