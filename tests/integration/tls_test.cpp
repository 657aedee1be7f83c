// TLS end to end: a name server and a broker that accept TLS only (tls_mode enforcing, the
// broker's own connection to the name server with tls_enable), an SDK producer and push consumer
// that verify the servers' certificate, and a client without TLS that gets no route.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "tls_identity.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;

constexpr int kMessages = 10;

class TlsIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>("tls");
    server_ = mqkit::testing::make_tls_identity(cluster_->directory(), "server");
    const std::vector<std::string> tls = {
        "transport.tls_mode=enforcing",       "transport.tls_cert_file=" + server_.cert,
        "transport.tls_key_file=" + server_.key, "transport.tls_enable=true",
        "transport.tls_ca_file=" + server_.cert};
    ASSERT_TRUE(cluster_->add_namesrv(tls).is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = "memory", .overrides = tls}).is_ok());
  }

  ClientConfig client_config(bool tls, const std::string& instance) const {
    ClientConfig config = mqkit::testing::fast_client_config(*cluster_);
    config.instance_name = instance;
    if (tls) {
      config.transport.settings["tls_enable"] = "true";
      config.transport.settings["tls_ca_file"] = server_.cert;
    }
    return config;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  mqkit::testing::TlsIdentity server_;
};

TEST_F(TlsIntegrationTest, MessagesFlowOverTlsAndAPlainClientIsTurnedAway) {
  ProducerConfig producer_config;
  producer_config.group = "TlsP";
  producer_config.client = client_config(true, "tls-producer");
  Producer producer(producer_config);
  ASSERT_TRUE(producer.start().is_ok());
  // The broker registered with the name server over TLS, or there would be no broker to create
  // the topic on.
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(producer.instance()->api(), *cluster_, 1, "TlsTopic", 2).is_ok());

  mqkit::testing::ReceivedBodies received;
  ConsumerConfig consumer_config = mqkit::testing::fast_consumer_config(*cluster_, "TlsG");
  consumer_config.client = client_config(true, "tls-consumer");
  PushConsumer consumer(consumer_config);
  ASSERT_TRUE(consumer.subscribe("TlsTopic", "*").is_ok());
  ASSERT_TRUE(consumer.register_listener(received.listener()).is_ok());
  ASSERT_TRUE(consumer.start().is_ok());

  std::set<std::string> sent;
  for (int i = 0; i < kMessages; ++i) {
    auto result = producer.send(Message("TlsTopic", "secret-" + std::to_string(i)));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    sent.insert("secret-" + std::to_string(i));
  }
  ASSERT_TRUE(eventually([&] {
    return received.bodies() == sent;
  }));

  ProducerConfig plain_config;
  plain_config.group = "PlainP";
  plain_config.client = client_config(false, "plain-producer");
  plain_config.send_msg_timeout = std::chrono::milliseconds(1500);
  Producer plain(plain_config);
  ASSERT_TRUE(plain.start().is_ok());
  auto refused = plain.send(Message("TlsTopic", "in the clear"));
  EXPECT_FALSE(refused.is_ok()) << "a plain client reached a TLS-only cluster";
  consumer.shutdown();
  producer.shutdown();
  plain.shutdown();
}

}  // namespace
}  // namespace mqkit::client
