#include "mqkit/client/client_config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/producer_config.hpp"
#include "mqkit/kernel/bootstrap.hpp"

namespace mqkit::client {
namespace {

class ClientConfigFileTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<kernel::Bootstrap>> boot(const std::string& toml, std::vector<std::string> overrides = {}) {
    path_ = ::testing::TempDir() + "client_config_test_" + std::to_string(::getpid()) + ".toml";
    std::ofstream(path_) << "[kernel]\nplugin_dirs = [\"" MQKIT_PLUGIN_DIR "\"]\n" << toml;
    kernel::CommandLine command_line;
    command_line.config_file = path_;
    command_line.overrides = std::move(overrides);
    return kernel::Bootstrap::create(command_line);
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
};

TEST_F(ClientConfigFileTest, DefaultsMatchRocketMq) {
  auto b = boot("");
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  auto config = load_producer_config(**b);
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->group, "DEFAULT_PRODUCER");
  EXPECT_EQ(config->send_msg_timeout.count(), 3000);
  EXPECT_EQ(config->retry_times_when_send_failed, 2);
  EXPECT_EQ(config->compress_msg_body_over_howmuch, 4096u);
  EXPECT_EQ(config->max_message_size, 4u * 1024 * 1024);
  EXPECT_EQ(config->create_topic_key, "TBW102");
  EXPECT_FALSE(config->auto_batch);  // RocketMQ 5's autoBatch default
  EXPECT_EQ(config->batch_max_delay.count(), 0);
  EXPECT_EQ(config->batch_max_bytes, 256u * 1024);
  EXPECT_EQ(config->total_batch_max_bytes, 32u * 1024 * 1024);
  EXPECT_EQ(config->check_thread_pool_size, 1u);      // TransactionMQProducer's check pool
  EXPECT_EQ(config->check_request_hold_max, 2000u);
  EXPECT_EQ(config->client.instance_name, "DEFAULT");
  EXPECT_EQ(config->client.poll_name_server_interval.count(), 30000);
  EXPECT_EQ(config->client.heartbeat_broker_interval.count(), 30000);
  EXPECT_EQ(config->client.transport.name, "remoting");
  EXPECT_EQ(config->client.selector.name, "round_robin");
  EXPECT_EQ(config->client.fault_strategy.name, "latency_fault_tolerance");
  EXPECT_EQ(config->client.allocator.name, "averagely");
  EXPECT_EQ(config->client.serialize_type, plugin::v1::SerializeType::kRocketMq);
  EXPECT_TRUE((*b)->finish_validation().is_ok());
}

TEST_F(ClientConfigFileTest, ReadsSectionsAndPluginSlots) {
  auto b = boot(R"(
[client]
namesrvAddr = "10.0.0.1:9876; 10.0.0.2:9876"
instance_name = "orders"
mq_client_api_timeout = "5s"
heartbeat_broker_interval = "10s"
serialize_type = "json"

[client.transport]
plugin = "remoting"
io_threads = 2

[producer]
group = "pg"
sendMsgTimeout = 1500
retry_times_when_send_failed = 4
compress_msg_body_over_howmuch = "8KiB"
max_in_flight_async_messages = 500
autoBatch = true
batchMaxDelayMs = 5
batch_max_bytes = "64KiB"
checkThreadPoolSize = 3
check_request_hold_max = 50

[producer.selector]
plugin = "SelectMessageQueueByHash"

[producer.fault_strategy]
plugin = "latency_fault_tolerance"

[consumer.allocator]
plugin = "consistent_hash"
)",
                {"producer.max_message_size=1MiB"});
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  auto config = load_producer_config(**b);
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->client.namesrv_addresses, (std::vector<std::string>{"10.0.0.1:9876", "10.0.0.2:9876"}));
  EXPECT_EQ(config->client.instance_name, "orders");
  EXPECT_EQ(config->client.api_timeout.count(), 5000);
  EXPECT_EQ(config->client.heartbeat_broker_interval.count(), 10000);
  EXPECT_EQ(config->client.serialize_type, plugin::v1::SerializeType::kJson);
  EXPECT_EQ(config->client.client_id().substr(config->client.client_id().find('@')), "@orders");
  EXPECT_EQ(config->client.transport.settings.at("io_threads"), "2");
  EXPECT_EQ(config->client.selector.name, "SelectMessageQueueByHash");
  EXPECT_EQ(config->client.allocator.name, "consistent_hash");
  EXPECT_EQ(config->client.allocator.settings.at("virtual_nodes"), "10");  // the plugin's default, carried along
  EXPECT_EQ(config->group, "pg");
  EXPECT_EQ(config->send_msg_timeout.count(), 1500);
  EXPECT_EQ(config->retry_times_when_send_failed, 4);
  EXPECT_EQ(config->compress_msg_body_over_howmuch, 8192u);
  EXPECT_EQ(config->max_message_size, 1024u * 1024);
  EXPECT_EQ(config->max_in_flight_async_messages, 500u);
  EXPECT_TRUE(config->auto_batch);
  EXPECT_EQ(config->batch_max_delay.count(), 5);
  EXPECT_EQ(config->batch_max_bytes, 64u * 1024);
  EXPECT_EQ(config->check_thread_pool_size, 3u);
  EXPECT_EQ(config->check_request_hold_max, 50u);
  EXPECT_TRUE(config->validate().is_ok()) << config->validate().to_string();
  EXPECT_TRUE((*b)->finish_validation().is_ok()) << (*b)->finish_validation().to_string();
}

TEST_F(ClientConfigFileTest, ErrorsNameTheKey) {
  auto b = boot("[client]\nnamesrv_adr = \"x:1\"\n");
  ASSERT_TRUE(b.is_ok());
  const Status unknown = load_client_config(**b).status();
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("namesrv_adr"), std::string::npos) << unknown.to_string();

  auto bad_plugin = boot("[producer.selector]\nplugin = \"no_such_selector\"\n");
  ASSERT_TRUE(bad_plugin.is_ok());
  const Status missing = load_client_config(**bad_plugin).status();
  EXPECT_FALSE(missing.is_ok());
  EXPECT_NE(missing.message().find("no_such_selector"), std::string::npos) << missing.to_string();

  auto bad_setting = boot("[client.transport]\nplugin = \"remoting\"\nio_threads = 0\n");
  ASSERT_TRUE(bad_setting.is_ok());
  EXPECT_NE(load_client_config(**bad_setting).status().message().find("io_threads"), std::string::npos);
}

TEST_F(ClientConfigFileTest, MessageTraceKeysTakeRocketMqDefaultsAndSpellings) {
  auto defaults = boot("[consumer]\ngroup = \"cg\"\n");
  ASSERT_TRUE(defaults.is_ok()) << defaults.status().to_string();
  auto producer = load_producer_config(**defaults);
  ASSERT_TRUE(producer.is_ok()) << producer.status().to_string();
  EXPECT_FALSE(producer->enable_msg_trace);
  EXPECT_EQ(producer->customized_trace_topic, "RMQ_SYS_TRACE_TOPIC");
  auto consumer = load_consumer_config(**defaults);
  ASSERT_TRUE(consumer.is_ok()) << consumer.status().to_string();
  EXPECT_FALSE(consumer->enable_msg_trace);
  EXPECT_EQ(consumer->customized_trace_topic, "RMQ_SYS_TRACE_TOPIC");

  auto traced = boot(
      "[producer]\nenableMsgTrace = true\ncustomizedTraceTopic = \"MyTraces\"\n"
      "[consumer]\ngroup = \"cg\"\nenable_msg_trace = true\ncustomized_trace_topic = \"\"\n");
  ASSERT_TRUE(traced.is_ok()) << traced.status().to_string();
  producer = load_producer_config(**traced);
  ASSERT_TRUE(producer.is_ok()) << producer.status().to_string();
  EXPECT_TRUE(producer->enable_msg_trace);
  EXPECT_EQ(producer->customized_trace_topic, "MyTraces");
  consumer = load_consumer_config(**traced);
  ASSERT_TRUE(consumer.is_ok()) << consumer.status().to_string();
  EXPECT_TRUE(consumer->enable_msg_trace);
  consumer->client.namesrv_addresses = {"127.0.0.1:9876"};
  EXPECT_TRUE(consumer->validate().is_ok()) << consumer->validate().to_string();  // empty: the default topic

  producer->client.namesrv_addresses = {"127.0.0.1:9876"};
  producer->customized_trace_topic = "not a topic";
  const Status bad = producer->validate();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("customized_trace_topic"), std::string::npos) << bad.to_string();
}

// The configuration file the project ships must keep loading.
TEST(ClientConfigShippedFileTest, EtcClientTomlLoads) {
  kernel::CommandLine command_line;
  command_line.config_file = MQKIT_SOURCE_DIR "/etc/client.toml";
  command_line.overrides = {"kernel.plugin_dirs=" MQKIT_PLUGIN_DIR};
  auto boot = kernel::Bootstrap::create(command_line);
  ASSERT_TRUE(boot.is_ok()) << boot.status().to_string();
  auto config = load_producer_config(**boot);
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_TRUE((*boot)->finish_validation().is_ok()) << (*boot)->finish_validation().to_string();
}

TEST(ClientConfigTest, ResolvedFillsNameServersClientIpAndInstance) {
  ::setenv("NAMESRV_ADDR", "1.2.3.4:9876;5.6.7.8:9876", 1);
  ClientConfig config;
  const ClientConfig resolved = config.resolved();
  ::unsetenv("NAMESRV_ADDR");
  EXPECT_EQ(resolved.namesrv_addresses, (std::vector<std::string>{"1.2.3.4:9876", "5.6.7.8:9876"}));
  EXPECT_FALSE(resolved.client_ip.empty());
  EXPECT_NE(resolved.instance_name, "DEFAULT");
  EXPECT_EQ(resolved.instance_name.find(std::to_string(::getpid()) + "#"), 0u);
  EXPECT_TRUE(resolved.validate().is_ok());
  EXPECT_EQ(resolved.client_id(), resolved.client_ip + "@" + resolved.instance_name);

  ClientConfig named;
  named.instance_name = "fixed";
  named.client_ip = "10.1.1.1";
  named.unit_name = "u1";
  named.namesrv_addresses = {"n:1"};
  EXPECT_EQ(named.resolved().client_id(), "10.1.1.1@fixed@u1");
}

TEST(ClientConfigTest, ValidateNamesTheProblem) {
  ClientConfig config;
  config.client_ip = "10.0.0.1";
  EXPECT_NE(config.validate().message().find("name server"), std::string::npos);
  config.namesrv_addresses = {"nohost"};
  EXPECT_NE(config.validate().message().find("nohost"), std::string::npos);
  config.namesrv_addresses = {"host:9876"};
  EXPECT_TRUE(config.validate().is_ok());
  ProducerConfig producer;
  producer.client = config;
  producer.group = "bad group";
  EXPECT_EQ(producer.validate().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(split_namesrv_addresses(" a:1 ;;b:2;"), (std::vector<std::string>{"a:1", "b:2"}));
}

TEST_F(ClientConfigFileTest, ReadsTheAclAccount) {
  auto b = boot("[client]\nnamesrv_addr = \"10.0.0.1:9876\"\naccessKey = \"app-user\"\nsecret_key = \"app-secret\"\n");
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  auto config = load_client_config(**b);
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->credentials.access_key, "app-user");
  EXPECT_EQ(config->credentials.secret_key, "app-secret");
  EXPECT_TRUE(config->credentials.security_token.empty());
}

TEST(ClientConfigTest, AclKeysGoTogether) {
  ClientConfig config;
  config.namesrv_addresses = {"host:9876"};
  config.credentials.access_key = "app-user";
  EXPECT_EQ(config.validate().message(), "access_key and secret_key go together: set both or neither");
  config.credentials.secret_key = "app-secret";
  config.credentials.security_token = "token";
  EXPECT_TRUE(config.validate().is_ok());
  config.credentials = {.security_token = "token"};
  EXPECT_EQ(config.validate().message(), "security_token needs access_key and secret_key");
}

TEST_F(ClientConfigFileTest, ReadsTheNamespace) {
  auto b = boot("[client]\nnamesrv_addr = \"10.0.0.1:9876\"\nnamespace = \"MQ_INST_1_abc\"\n");
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  auto config = load_client_config(**b);
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->name_space, "MQ_INST_1_abc");
}

TEST_F(ClientConfigFileTest, ABadNamespaceIsRefusedWithItsKeyAndLine) {
  auto b = boot("[client]\nnamesrv_addr = \"10.0.0.1:9876\"\nnamespace = \"ns.1\"\n");
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  auto config = load_client_config(**b);
  ASSERT_FALSE(config.is_ok());
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(config.status().message().find(":5:"), std::string::npos) << config.status().message();
  EXPECT_NE(config.status().message().find("[client] namespace 'ns.1' contains '.'"), std::string::npos)
      << config.status().message();
}

TEST(ClientConfigTest, ValidateChecksTheNamespace) {
  ClientConfig config;
  config.namesrv_addresses = {"host:9876"};
  EXPECT_TRUE(config.validate().is_ok());  // none
  config.name_space = "ns1";
  EXPECT_TRUE(config.validate().is_ok());
  config.name_space = "ns%1";
  EXPECT_NE(config.validate().message().find("[client] namespace 'ns%1'"), std::string::npos);
  config.name_space = std::string(126, 'n');
  EXPECT_NE(config.validate().message().find("longer than 125"), std::string::npos);
}

}  // namespace
}  // namespace mqkit::client
