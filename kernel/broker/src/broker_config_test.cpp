#include "mqkit/broker/broker_config.hpp"

#include <gtest/gtest.h>

#include "mqkit/kernel/config_document.hpp"

namespace mqkit::broker {
namespace {

using plugin::v1::Result;

TEST(BrokerConfigTest, DefaultsMatchRocketMq) {
  auto doc = kernel::ConfigDocument::parse("", "t").value();
  auto values = doc.section("broker", broker_schema());
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  auto c = broker_config_from(*values);
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->listen_port, 10911);
  EXPECT_EQ(c->namesrv_addrs, std::vector<std::string>{"127.0.0.1:9876"});
  ASSERT_EQ(c->delay_level_ms.size(), 18u);
  EXPECT_EQ(c->delay_level_ms[0], 1000);
  EXPECT_EQ(c->delay_level_ms[17], 2 * 3600 * 1000);
  EXPECT_EQ(c->max_message_size, 4 * 1024 * 1024);
}

// GET_BROKER_CONFIG's properties name every key the RocketMQ way, and read back as the same
// configuration.
TEST(BrokerConfigTest, PropertiesNameEveryKeyAndReadBackAsTheSameConfig) {
  auto doc = kernel::ConfigDocument::parse(
                 "[broker]\nnamesrv_addr = \"a:1;b:2\"\nmessage_delay_level = \"1s 90s 2m 1h 250ms\"\n"
                 "broker_role = \"SYNC_MASTER\"\nmax_message_size = \"1MiB\"\n",
                 "t")
                 .value();
  auto c = broker_config_from(doc.section("broker", broker_schema()).value()).value();
  const auto properties = broker_config_properties(c);
  EXPECT_EQ(properties.size(), broker_schema().count);
  EXPECT_EQ(properties.at("namesrvAddr"), "a:1;b:2");
  EXPECT_EQ(properties.at("messageDelayLevel"), "1s 90s 2m 1h 250ms");
  EXPECT_EQ(properties.at("maxMessageSize"), "1048576");
  EXPECT_EQ(properties.at("brokerRole"), "SYNC_MASTER");
  EXPECT_EQ(properties.at("brokerClusterName"), "DefaultCluster");
  // Read back as command-line overrides read text ("1048576" for a size, "30000" for a duration).
  auto again = kernel::ConfigDocument::parse("", "again").value();
  for (const auto& [key, value] : properties) ASSERT_TRUE(again.add_override("broker." + key + "=" + value).is_ok()) << key;
  auto values = again.section("broker", broker_schema());
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(broker_config_properties(broker_config_from(*values).value()), properties);
}

TEST(BrokerConfigTest, PropertiesAddThePluginsSettingsTheBrokerDoesNotHave) {
  auto c = broker_config_from(kernel::ConfigDocument::parse("[broker]\nmax_message_size = \"1MiB\"\n", "t")
                                  .value()
                                  .section("broker", broker_schema())
                                  .value())
               .value();
  plugin::v1::ConfigValues store;
  store.set("flush_disk_type", std::string("SYNC_FLUSH"));
  store.set("max_message_size", std::int64_t{42});
  plugin::v1::ConfigValues transport;
  transport.set("worker_threads", std::int64_t{4});
  c.plugin_settings = {store, transport};
  const auto properties = broker_config_properties(c);
  EXPECT_EQ(properties.size(), broker_schema().count + 2);
  EXPECT_EQ(properties.at("flushDiskType"), "SYNC_FLUSH");
  EXPECT_EQ(properties.at("workerThreads"), "4");
  EXPECT_EQ(properties.at("maxMessageSize"), "1048576");  // the broker's, not the store's
}

TEST(BrokerConfigTest, LiveSettingsChangeAllOrNothing) {
  const BrokerConfig c;
  ASSERT_TRUE(update_live_settings(c, {{"broker_permission", "2"}, {"slaveReadEnable", "true"}}).is_ok());
  EXPECT_EQ(c.broker_permission, 2);
  EXPECT_TRUE(c.slave_read_enable);
  const BrokerConfig copy = c;  // a copy takes the current values
  EXPECT_EQ(copy.broker_permission, 2);
  auto refused = update_live_settings(c, {{"rejectTransactionMessage", "true"}, {"brokerName", "other"}});
  EXPECT_EQ(refused.code(), plugin::v1::StatusCode::kPermissionDenied);
  EXPECT_FALSE(c.reject_transaction_message);  // nothing changed
  EXPECT_EQ(update_live_settings(c, {{"brokerPermision", "6"}}).code(), plugin::v1::StatusCode::kInvalidArgument);
  EXPECT_EQ(update_live_settings(c, {{"brokerPermission", "8"}}).code(), plugin::v1::StatusCode::kInvalidArgument);
}

TEST(BrokerConfigTest, RocketMqSpellingsAndNameServerList) {
  auto doc = kernel::ConfigDocument::parse(
                 "[broker]\nbrokerName = \"b1\"\nnamesrvAddr = \"10.0.0.1:9876; 10.0.0.2:9876\"\nbrokerIP1 = \"10.0.0.9\"\n",
                 "t")
                 .value();
  auto c = broker_config_from(doc.section("broker", broker_schema()).value());
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->broker_name, "b1");
  EXPECT_EQ(c->namesrv_addrs, (std::vector<std::string>{"10.0.0.1:9876", "10.0.0.2:9876"}));
  EXPECT_EQ(c->address(), "10.0.0.9:10911");
}

TEST(BrokerConfigTest, TransactionKeysTakeRocketMqDefaultsAndSpellings) {
  auto defaults = broker_config_from(
      kernel::ConfigDocument::parse("", "t").value().section("broker", broker_schema()).value());
  ASSERT_TRUE(defaults.is_ok());
  EXPECT_FALSE(defaults->reject_transaction_message);
  EXPECT_EQ(defaults->transaction_timeout_ms, 6000);
  EXPECT_EQ(defaults->transaction_check_max, 15);
  EXPECT_EQ(defaults->transaction_check_interval_ms, 60'000);

  auto doc = kernel::ConfigDocument::parse("[broker]\nrejectTransactionMessage = true\ntransactionTimeOut = 3000\n"
                                           "transactionCheckMax = 5\ntransactionCheckInterval = \"30s\"\n",
                                           "t")
                 .value();
  auto c = broker_config_from(doc.section("broker", broker_schema()).value());
  ASSERT_TRUE(c.is_ok());
  EXPECT_TRUE(c->reject_transaction_message);
  EXPECT_EQ(c->transaction_timeout_ms, 3000);
  EXPECT_EQ(c->transaction_check_max, 5);
  EXPECT_EQ(c->transaction_check_interval_ms, 30'000);

  auto zero_checks = kernel::ConfigDocument::parse("[broker]\ntransaction_check_max = 0\n", "t").value();
  EXPECT_FALSE(zero_checks.section("broker", broker_schema()).is_ok());
}

TEST(BrokerConfigTest, TraceTopicKeysTakeRocketMqDefaultsAndSpellings) {
  auto defaults = broker_config_from(
      kernel::ConfigDocument::parse("", "t").value().section("broker", broker_schema()).value());
  ASSERT_TRUE(defaults.is_ok());
  EXPECT_FALSE(defaults->trace_topic_enable);
  EXPECT_EQ(defaults->msg_trace_topic_name, "RMQ_SYS_TRACE_TOPIC");
  EXPECT_EQ(broker_config_properties(*defaults).at("traceTopicEnable"), "false");
  EXPECT_EQ(broker_config_properties(*defaults).at("msgTraceTopicName"), "RMQ_SYS_TRACE_TOPIC");
  EXPECT_EQ(defaults->region_id, "DefaultRegion");
  EXPECT_TRUE(defaults->trace_on);
  EXPECT_EQ(broker_config_properties(*defaults).at("regionId"), "DefaultRegion");
  EXPECT_EQ(broker_config_properties(*defaults).at("traceOn"), "true");

  auto doc = kernel::ConfigDocument::parse(
                 "[broker]\ntraceTopicEnable = true\nmsgTraceTopicName = \"MyTraces\"\nregionId = \"eu\"\ntraceOn = false\n",
                 "t")
                 .value();
  auto c = broker_config_from(doc.section("broker", broker_schema()).value());
  ASSERT_TRUE(c.is_ok());
  EXPECT_TRUE(c->trace_topic_enable);
  EXPECT_EQ(c->msg_trace_topic_name, "MyTraces");
  EXPECT_EQ(c->region_id, "eu");
  EXPECT_FALSE(c->trace_on);

  auto bad = kernel::ConfigDocument::parse("[broker]\nmsg_trace_topic_name = \"no spaces\"\n", "t").value();
  const auto rejected = broker_config_from(bad.section("broker", broker_schema()).value());
  ASSERT_FALSE(rejected.is_ok());
  EXPECT_NE(rejected.status().message().find("msg_trace_topic_name"), std::string::npos);
}

TEST(BrokerConfigTest, SlaveReadKeysTakeRocketMqDefaultsSpellingsAndBounds) {
  auto defaults = broker_config_from(
      kernel::ConfigDocument::parse("", "t").value().section("broker", broker_schema()).value());
  ASSERT_TRUE(defaults.is_ok());
  EXPECT_FALSE(defaults->slave_read_enable);
  EXPECT_EQ(defaults->access_message_in_memory_max_ratio, 40);

  auto doc = kernel::ConfigDocument::parse("[broker]\nslaveReadEnable = true\naccessMessageInMemoryMaxRatio = 0\n", "t")
                 .value();
  auto c = broker_config_from(doc.section("broker", broker_schema()).value());
  ASSERT_TRUE(c.is_ok());
  EXPECT_TRUE(c->slave_read_enable);
  EXPECT_EQ(c->access_message_in_memory_max_ratio, 0);

  auto over = kernel::ConfigDocument::parse("[broker]\naccess_message_in_memory_max_ratio = 101\n", "t").value();
  EXPECT_FALSE(over.section("broker", broker_schema()).is_ok());
}

TEST(BrokerConfigTest, BadDelayLevelsAreRejected) {
  EXPECT_EQ(parse_delay_levels("1s soon").status().message(),
            "message_delay_level: expected a duration, got \"soon\"");
  EXPECT_FALSE(parse_delay_levels("").is_ok());
  EXPECT_EQ(parse_delay_levels("500ms 2h")->at(1), 7'200'000);
}

Result<BrokerConfig> config_of(const std::string& text) {
  auto doc = kernel::ConfigDocument::parse(text, "t");
  if (!doc) return doc.status();
  auto values = doc->section("broker", broker_schema());
  if (!values) return values.status();
  return broker_config_from(*values);
}

TEST(BrokerConfigTest, ReplicationKeysTakeRocketMqDefaults) {
  auto c = config_of("");
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->broker_role, BrokerRole::kAsyncMaster);
  EXPECT_EQ(c->ha_listen_port, -1);  // listen_port + 1
  EXPECT_EQ(c->ha_send_heartbeat_interval_ms, 5000);
  EXPECT_EQ(c->ha_housekeeping_interval_ms, 20'000);
  EXPECT_EQ(c->ha_transfer_batch_size, 32 * 1024);
  EXPECT_EQ(c->ha_max_gap_not_in_sync, 256LL * 1024 * 1024);
  EXPECT_EQ(c->ha_slave_timeout_ms, 3000);
  EXPECT_TRUE(c->ha_master_address.empty());
}

TEST(BrokerConfigTest, RoleAndBrokerIdMustAgree) {
  auto slave = config_of("[broker]\nbrokerRole = \"SLAVE\"\nbrokerId = 1\nhaMasterAddress = \"10.0.0.1:10912\"\n");
  ASSERT_TRUE(slave.is_ok()) << slave.status().to_string();
  EXPECT_TRUE(slave->is_slave());
  EXPECT_EQ(slave->ha_master_address, "10.0.0.1:10912");

  auto slave_as_zero = config_of("[broker]\nbroker_role = \"SLAVE\"\n");
  ASSERT_FALSE(slave_as_zero.is_ok());
  EXPECT_NE(slave_as_zero.status().message().find("broker_id"), std::string::npos);
  auto master_not_zero = config_of("[broker]\nbroker_role = \"SYNC_MASTER\"\nbroker_id = 2\n");
  ASSERT_FALSE(master_not_zero.is_ok());
  EXPECT_NE(master_not_zero.status().message().find("SYNC_MASTER"), std::string::npos);
  EXPECT_FALSE(config_of("[broker]\nbroker_role = \"MASTER\"\n").is_ok());
  EXPECT_FALSE(config_of("[broker]\nbroker_role = \"SLAVE\"\nbroker_id = 1\nha_master_address = \"nohost\"\n").is_ok());
}

TEST(BrokerConfigTest, AclIsOffAndItsFileSitsBesideTheConfigFile) {
  auto doc = kernel::ConfigDocument::parse("", "t").value();
  const auto values = doc.section("broker", broker_schema()).value();
  auto c = broker_config_from(values, "/etc/mqkit");
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_FALSE(c->acl_enable);
  EXPECT_EQ(c->acl_file, std::filesystem::path("/etc/mqkit/acl.toml"));
  EXPECT_TRUE(c->acl_credentials.empty());
  EXPECT_EQ(broker_config_from(values)->acl_file, std::filesystem::path("acl.toml"));  // no file: working directory
  auto absolute = config_of("[broker]\nacl_enable = true\nacl_file = \"/srv/acl.toml\"\n");
  ASSERT_TRUE(absolute.is_ok());
  EXPECT_TRUE(absolute->acl_enable);
  EXPECT_EQ(absolute->acl_file, std::filesystem::path("/srv/acl.toml"));
}

TEST(BrokerConfigTest, TheBrokersOwnAccountNeedsBothKeysAndHidesItsSecret) {
  EXPECT_EQ(config_of("[broker]\nacl_access_key = \"broker-a\"\n").status().message(),
            "acl_access_key and acl_secret_key go together: set both or neither");
  auto c = config_of("[broker]\naclAccessKey = \"broker-a\"\naclSecretKey = \"s3cret-key\"\n");
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->acl_credentials.access_key, "broker-a");
  EXPECT_EQ(c->acl_credentials.secret_key, "s3cret-key");
  const auto properties = broker_config_properties(*c);
  EXPECT_EQ(properties.at("aclAccessKey"), "broker-a");
  EXPECT_EQ(properties.at("aclSecretKey"), "***");
}

// The Prometheus exporter keys (docs/metrics.md): off by default on RocketMQ's port, taken in
// RocketMQ's spellings, and checked like every key.
TEST(BrokerConfigTest, MetricsExporterKeys) {
  const auto parse = [](const std::string& toml) {
    auto doc = kernel::ConfigDocument::parse(toml, "t").value();
    auto values = doc.section("broker", broker_schema());
    if (!values) return Result<BrokerConfig>(values.status());
    return broker_config_from(*values);
  };
  auto defaults = parse("");
  ASSERT_TRUE(defaults.is_ok());
  EXPECT_FALSE(defaults->metrics_exporter.enabled);
  EXPECT_EQ(defaults->metrics_exporter.host, "");
  EXPECT_EQ(defaults->metrics_exporter.port, 5557);
  EXPECT_EQ(broker_config_properties(*defaults).at("metricsExporterType"), "DISABLE");

  auto prom = parse("[broker]\nmetricsExporterType = \"PROM\"\nmetricsPromExporterHost = \"127.0.0.1\"\n"
                    "metricsPromExporterPort = 0\n");
  ASSERT_TRUE(prom.is_ok()) << prom.status().to_string();
  EXPECT_TRUE(prom->metrics_exporter.enabled);
  EXPECT_EQ(prom->metrics_exporter.host, "127.0.0.1");
  EXPECT_EQ(prom->metrics_exporter.port, 0);
  EXPECT_EQ(broker_config_properties(*prom).at("metricsExporterType"), "PROM");
  EXPECT_EQ(broker_config_properties(*prom).at("metricsPromExporterPort"), "0");

  auto otlp = parse("[broker]\nmetrics_exporter_type = \"OTLP_GRPC\"\n");
  ASSERT_FALSE(otlp.is_ok());
  EXPECT_NE(otlp.status().message().find("metrics_exporter_type"), std::string::npos) << otlp.status().message();
  EXPECT_FALSE(parse("[broker]\nmetrics_prom_exporter_port = 70000\n").is_ok());
  EXPECT_FALSE(parse("[broker]\nmetrics_prom_exporter_prot = 1\n").is_ok());
  // Restart-only, like every listener.
  EXPECT_EQ(update_live_settings(BrokerConfig{}, {{"metricsExporterType", "PROM"}}).code(),
            plugin::v1::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace mqkit::broker
