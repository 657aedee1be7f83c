// The remoting plugin with TLS: enforcing and permissive servers, clients that verify the
// server's certificate or present their own, and the configuration errors that name the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "raw_client.hpp"
#include "tls_identity.hpp"
#include "plugin_fixture.hpp"
#include "transport_test_util.hpp"
#include "transports/remoting/tests/codec_test_util.hpp"

namespace mqkit::transport_testing {
namespace {

using namespace std::chrono_literals;
using v1::RemotingCommand;

using Identity = mqkit::testing::TlsIdentity;

class RemotingTls : public ::testing::Test {
 protected:
  RemotingTls() {
    dir_ = std::filesystem::temp_directory_path() /
           ("mqkit-tls-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    server_ = mqkit::testing::make_tls_identity(dir_, "server");
    client_ = mqkit::testing::make_tls_identity(dir_, "client");
    stranger_ = mqkit::testing::make_tls_identity(dir_, "stranger");
  }
  ~RemotingTls() override {
    for (auto& t : transports_) t->shutdown();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::shared_ptr<v1::Transport> transport(const std::map<std::string, std::string>& config) {
    auto t = load_transport("remoting", config);
    EXPECT_TRUE(t);
    if (t) transports_.push_back(t);
    return t;
  }
  std::uint16_t serve(const std::map<std::string, std::string>& config) {
    auto server = transport(config);
    if (!server) return 0;
    auto port = server->listen({.host = "127.0.0.1", .port = 0}, echo_handler());
    EXPECT_TRUE(port.is_ok()) << port.status().to_string();
    return port.is_ok() ? *port : 0;
  }
  std::map<std::string, std::string> server_config(const std::string& mode) const {
    return {{"tls_mode", mode}, {"tls_cert_file", server_.cert}, {"tls_key_file", server_.key}};
  }
  // One request through a new client transport; the echoed body or the error.
  v1::Result<RemotingCommand> call(std::uint16_t port, const std::map<std::string, std::string>& config) {
    auto client = transport(config);
    if (!client) return v1::Status::internal("no client transport");
    Outcome outcome;
    client->invoke(loopback(port), request_with_body(7, "over tls?"), 3s, outcome.callback());
    return outcome.wait();
  }

  std::filesystem::path dir_;
  Identity server_;
  Identity client_;
  Identity stranger_;
  std::vector<std::shared_ptr<v1::Transport>> transports_;
};

TEST_F(RemotingTls, AnEnforcingServerAnswersTlsClientsAndDropsPlainOnes) {
  const std::uint16_t port = serve(server_config("enforcing"));
  auto verified = call(port, {{"tls_enable", "true"}, {"tls_ca_file", server_.cert}});
  ASSERT_TRUE(verified.is_ok()) << verified.status().to_string();
  EXPECT_EQ(text_of(verified->body), "over tls?");
  auto unverified = call(port, {{"tls_enable", "true"}});
  ASSERT_TRUE(unverified.is_ok()) << unverified.status().to_string();

  auto plain = call(port, {});
  EXPECT_FALSE(plain.is_ok()) << "a plain request is not a TLS handshake";
  // Not a crash either: the server goes on serving.
  EXPECT_TRUE(call(port, {{"tls_enable", "true"}}).is_ok());
}

TEST_F(RemotingTls, TheBytesOnTheWireAreEncrypted) {
  const std::uint16_t port = serve(server_config("enforcing"));
  RawClient raw(port);
  // What a plain RocketMQ client sends first: the server must not answer it as a request.
  raw.write(plugins::transports::remoting::testing::json_frame(R"({"code":105,"language":"JAVA","opaque":1,"flag":0,"version":1})"));
  EXPECT_FALSE(raw.read_frame(3s)) << "answered a plain frame";
}

TEST_F(RemotingTls, APermissiveServerAnswersBoth) {
  const std::uint16_t port = serve(server_config("permissive"));
  auto tls = call(port, {{"tls_enable", "true"}, {"tls_ca_file", server_.cert}});
  ASSERT_TRUE(tls.is_ok()) << tls.status().to_string();
  auto plain = call(port, {});
  ASSERT_TRUE(plain.is_ok()) << plain.status().to_string();
  EXPECT_EQ(text_of(plain->body), "over tls?");
}

TEST_F(RemotingTls, AClientRefusesAServerItsCaDidNotSign) {
  const std::uint16_t port = serve(server_config("enforcing"));
  auto refused = call(port, {{"tls_enable", "true"}, {"tls_ca_file", stranger_.cert}});
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), v1::StatusCode::kUnavailable) << refused.status().to_string();
}

TEST_F(RemotingTls, AServerThatRequiresClientCertificatesRefusesThoseItsCaDidNotSign) {
  auto config = server_config("enforcing");
  config["tls_ca_file"] = client_.cert;
  config["tls_need_client_auth"] = "require";
  const std::uint16_t port = serve(config);
  EXPECT_FALSE(call(port, {{"tls_enable", "true"}}).is_ok()) << "no client certificate";
  EXPECT_FALSE(call(port, {{"tls_enable", "true"}, {"tls_cert_file", stranger_.cert}, {"tls_key_file", stranger_.key}})
                   .is_ok())
      << "a certificate the server's CA did not sign";
  auto admitted = call(port, {{"tls_enable", "true"}, {"tls_cert_file", client_.cert}, {"tls_key_file", client_.key}});
  ASSERT_TRUE(admitted.is_ok()) << admitted.status().to_string();
}

TEST_F(RemotingTls, AServerWithACaFileForItsOwnClientsStillServesClientsWithoutCertificates) {
  // The CA file of a broker that verifies its name servers: clients need no certificate unless
  // tls_need_client_auth asks for one; with "optional", one presented must verify.
  auto config = server_config("enforcing");
  config["tls_ca_file"] = stranger_.cert;
  EXPECT_TRUE(call(serve(config), {{"tls_enable", "true"}}).is_ok());
  config["tls_need_client_auth"] = "optional";
  const std::uint16_t port = serve(config);
  EXPECT_TRUE(call(port, {{"tls_enable", "true"}}).is_ok()) << "no certificate presented";
  EXPECT_FALSE(call(port, {{"tls_enable", "true"}, {"tls_cert_file", client_.cert}, {"tls_key_file", client_.key}})
                   .is_ok())
      << "a certificate its CA did not sign";
}

TEST_F(RemotingTls, LargeFramesAndManyRequestsCrossIntact) {
  const std::uint16_t port = serve(server_config("enforcing"));
  auto client = transport({{"tls_enable", "true"}, {"tls_ca_file", server_.cert}});
  ASSERT_TRUE(client);
  std::vector<std::unique_ptr<Outcome>> outcomes;
  std::vector<std::string> bodies;
  for (int i = 0; i < 200; ++i) {
    bodies.push_back(std::string(static_cast<std::size_t>(i % 7 == 0 ? 300'000 : 100 + i), static_cast<char>('a' + i % 26)));
    outcomes.push_back(std::make_unique<Outcome>());
    client->invoke(loopback(port), request_with_body(i, bodies.back()), 10s, outcomes.back()->callback());
  }
  for (int i = 0; i < 200; ++i) {
    auto response = outcomes[static_cast<std::size_t>(i)]->wait();
    ASSERT_TRUE(response.is_ok()) << i << ": " << response.status().to_string();
    EXPECT_EQ(text_of(response->body), bodies[static_cast<std::size_t>(i)]) << i;
  }
}

TEST_F(RemotingTls, BadSettingsAreRefusedNamingTheKeyAndFile) {
  auto missing = mqkit::testing::try_load_plugin_object(v1::Category::kTransport, "remoting", {{"tls_mode", "enforcing"}});
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("needs tls_cert_file and tls_key_file"), std::string::npos)
      << missing.status().to_string();

  auto absent = mqkit::testing::try_load_plugin_object(
      v1::Category::kTransport, "remoting",
      {{"tls_mode", "enforcing"}, {"tls_cert_file", (dir_ / "nope.crt").string()}, {"tls_key_file", server_.key}});
  ASSERT_FALSE(absent.is_ok());
  EXPECT_NE(absent.status().message().find("tls_cert_file '" + (dir_ / "nope.crt").string() + "'"), std::string::npos)
      << absent.status().to_string();

  auto mismatched = mqkit::testing::try_load_plugin_object(
      v1::Category::kTransport, "remoting",
      {{"tls_mode", "enforcing"}, {"tls_cert_file", server_.cert}, {"tls_key_file", client_.key}});
  ASSERT_FALSE(mismatched.is_ok());
  EXPECT_NE(mismatched.status().message().find("tls_key_file '" + client_.key + "'"), std::string::npos)
      << mismatched.status().to_string();
  EXPECT_NE(mismatched.status().message().find("mismatch"), std::string::npos) << mismatched.status().to_string();

  auto no_ca = mqkit::testing::try_load_plugin_object(
      v1::Category::kTransport, "remoting",
      {{"tls_mode", "enforcing"}, {"tls_cert_file", server_.cert}, {"tls_key_file", server_.key},
       {"tls_need_client_auth", "require"}});
  ASSERT_FALSE(no_ca.is_ok());
  EXPECT_NE(no_ca.status().message().find("needs tls_ca_file"), std::string::npos) << no_ca.status().to_string();

  auto unknown_mode = mqkit::testing::try_load_plugin_object(v1::Category::kTransport, "remoting", {{"tls_mode", "strict"}});
  EXPECT_FALSE(unknown_mode.is_ok());
}

}  // namespace
}  // namespace mqkit::transport_testing
