#include "mqkit/namesrv/namesrv_processor.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/java_properties.hpp"

namespace mqkit::namesrv {
namespace {

namespace code = protocol::request_code;
namespace rc = protocol::response_code;

std::string body_of(const RemotingCommand& c) { return {c.body.begin(), c.body.end()}; }

class NameServerProcessorTest : public ::testing::Test {
 protected:
  RouteInfoManager routes_;
  KvConfigManager kv_;
  std::int64_t now_ = 1000;
  std::shared_ptr<NamesrvSettings> settings_ = settings_from("[namesrv]\norder_message_enable = true\n");
  NameServerProcessor processor_{routes_, kv_, settings_, [this] { return now_; }};

  static std::shared_ptr<NamesrvSettings> settings_from(std::string_view toml) {
    auto document = kernel::ConfigDocument::parse(toml, "namesrv.toml");
    EXPECT_TRUE(document.is_ok());
    auto values = document->section("namesrv", namesrv_schema());
    EXPECT_TRUE(values.is_ok());
    return std::make_shared<NamesrvSettings>(std::move(values).value());
  }

  RemotingCommand request(std::int32_t c, std::initializer_list<std::pair<const char*, std::string>> fields,
                          std::string body = "") {
    auto r = RemotingCommand::request(c);
    r.opaque = 42;
    for (const auto& [k, v] : fields) r.ext_fields.set(k, v);
    r.body.assign(body.begin(), body.end());
    return r;
  }

  // broker-a's master registering `topics` at data version `version`; `full_table` sends mqkit's
  // mark of a whole table (a stock RocketMQ broker sends none).
  RemotingCommand register_a(const std::vector<std::string>& topics = {"T"}, std::int64_t version = 1,
                             bool full_table = false) {
    protocol::RegisterBrokerBody body;
    body.topic_config_wrapper.data_version = {1, version, 0};
    for (const auto& topic : topics) {
      protocol::TopicConfig t;
      t.topic_name = topic;
      t.read_queue_nums = t.write_queue_nums = 4;
      body.topic_config_wrapper.topic_config_table[topic] = t;
    }
    auto r = request(code::kRegisterBroker,
                     {{"brokerName", "broker-a"},
                      {"brokerAddr", "10.0.0.1:10911"},
                      {"clusterName", "DefaultCluster"},
                      {"haServerAddr", "10.0.0.1:10912"},
                      {"brokerId", "0"}},
                     protocol::encode(body));
    if (full_table) r.ext_fields.set(std::string(protocol::kFullTopicTableField), true);
    return processor_.handle(r, 1);
  }
};

TEST_F(NameServerProcessorTest, RegisterThenRouteInBothJsonStyles) {
  const auto registered = register_a();
  EXPECT_EQ(registered.code, rc::kSuccess);
  EXPECT_TRUE(registered.is_response());
  EXPECT_EQ(registered.opaque, 42);
  EXPECT_EQ(body_of(registered), R"({"table":{}})");

  auto standard = request(code::kGetRouteInfoByTopic, {{"topic", "T"}});
  standard.version = 401;
  const auto r1 = processor_.handle(standard, 1);
  EXPECT_EQ(r1.code, rc::kSuccess);
  EXPECT_NE(body_of(r1).find(R"("brokerAddrs":{"0":"10.0.0.1:10911"})"), std::string::npos) << body_of(r1);

  auto old = request(code::kGetRouteInfoByTopic, {{"topic", "T"}});
  old.version = 333;  // the old C++ client
  const auto r2 = processor_.handle(old, 1);
  EXPECT_NE(body_of(r2).find(R"("brokerAddrs":{0:"10.0.0.1:10911"})"), std::string::npos) << body_of(r2);

  auto asks_standard = request(code::kGetRouteInfoByTopic, {{"topic", "T"}, {"acceptStandardJsonOnly", "true"}});
  asks_standard.version = 121;  // ali-ons
  EXPECT_NE(body_of(processor_.handle(asks_standard, 1)).find(R"({"0":)"), std::string::npos);
}

// A registration without mqkit's whole-table mark (a RocketMQ broker's incremental one after a
// topic was created) adds its topics; one with the mark is the broker's whole table.
TEST_F(NameServerProcessorTest, OnlyAWholeTableRegistrationDropsTopics) {
  ASSERT_EQ(register_a({"T"}, 1, true).code, rc::kSuccess);
  ASSERT_EQ(register_a({"U"}, 2).code, rc::kSuccess);
  EXPECT_EQ(routes_.topics(), (std::set<std::string>{"T", "U"}));
  ASSERT_EQ(register_a({"U"}, 3, true).code, rc::kSuccess);
  EXPECT_EQ(routes_.topics(), (std::set<std::string>{"U"}));
}

TEST_F(NameServerProcessorTest, UnknownTopicAndMissingFields) {
  const auto r = processor_.handle(request(code::kGetRouteInfoByTopic, {{"topic", "Nope"}}), 1);
  EXPECT_EQ(r.code, rc::kTopicNotExist);
  EXPECT_EQ(r.remark, "No topic route info in name server for the topic: Nope");
  const auto missing = processor_.handle(request(code::kGetRouteInfoByTopic, {}), 1);
  EXPECT_EQ(missing.code, rc::kSystemError);
  EXPECT_EQ(missing.remark, "the custom field <topic> is null");
  const auto bad_body = processor_.handle(request(code::kRegisterBroker,
                                                  {{"brokerName", "b"}, {"brokerAddr", "1.1.1.1:1"}, {"clusterName", "c"},
                                                   {"haServerAddr", ""}, {"brokerId", "zero"}}),
                                          1);
  EXPECT_EQ(bad_body.remark, "header field 'brokerId' is not an integer: 'zero'");
}

TEST_F(NameServerProcessorTest, UnknownCodeIsNotSupported) {
  const auto r = processor_.handle(request(9999, {}), 1);
  EXPECT_EQ(r.code, rc::kRequestCodeNotSupported);
  EXPECT_EQ(r.remark, " request type 9999 not supported");
}

TEST_F(NameServerProcessorTest, BodyCrcIsCheckedWhenGiven) {
  auto req = request(code::kRegisterBroker, {{"brokerName", "b"}, {"brokerAddr", "1.1.1.1:1"}, {"clusterName", "c"},
                                             {"haServerAddr", ""}, {"brokerId", "0"}, {"bodyCrc32", "12345"}},
                     "{}");
  EXPECT_EQ(processor_.handle(req, 1).remark.value().rfind("crc32 not match", 0), 0u);
}

TEST_F(NameServerProcessorTest, KvConfigAndOrderTopicConf) {
  EXPECT_EQ(processor_.handle(request(code::kPutKvConfig, {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "T"},
                                                           {"value", "broker-a:4"}}),
                              1)
                .code,
            rc::kSuccess);
  const auto got = processor_.handle(request(code::kGetKvConfig, {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "T"}}), 1);
  EXPECT_EQ(got.ext_fields.get("value"), "broker-a:4");
  register_a();
  const auto route = processor_.handle(request(code::kGetRouteInfoByTopic, {{"topic", "T"}}), 1);
  EXPECT_NE(body_of(route).find(R"("orderTopicConf":"broker-a:4")"), std::string::npos);
  const auto missing = processor_.handle(request(code::kGetKvConfig, {{"namespace", "N"}, {"key", "K"}}), 1);
  EXPECT_EQ(missing.code, rc::kQueryNotFound);
  EXPECT_EQ(missing.remark, "No config item, Namespace: N Key: K");

  // Turned off while running (UPDATE_NAMESRV_CONFIG), the next route has no orderTopicConf.
  auto update = request(code::kUpdateNamesrvConfig, {}, "orderMessageEnable=false\n");
  ASSERT_EQ(processor_.handle(update, 1).code, rc::kSuccess);
  EXPECT_EQ(body_of(processor_.handle(request(code::kGetRouteInfoByTopic, {{"topic", "T"}}), 1)).find("orderTopicConf\":\"broker"),
            std::string::npos);
}

TEST_F(NameServerProcessorTest, ConfigIsListedAndItsLiveKeysChange) {
  const auto got = processor_.handle(request(code::kGetNamesrvConfig, {}), 1);
  ASSERT_EQ(got.code, rc::kSuccess);
  auto properties = protocol::decode_java_properties(body_of(got));
  ASSERT_TRUE(properties.is_ok()) << properties.status().to_string();
  EXPECT_EQ(properties->at("listenPort"), "9876");
  EXPECT_EQ(properties->at("brokerExpiry"), "120000");  // milliseconds, as RocketMQ's keys hold them
  EXPECT_EQ(properties->at("orderMessageEnable"), "true");

  const auto update = [&](std::string body) {
    return processor_.handle(request(code::kUpdateNamesrvConfig, {}, std::move(body)), 1);
  };
  ASSERT_EQ(update("brokerExpiry=30000\nscan_interval=5s\n").code, rc::kSuccess);
  EXPECT_EQ(settings_->broker_expiry_ms(), 30'000);
  EXPECT_EQ(settings_->scan_interval_ms(), 5'000);

  // All or nothing: a key that needs a restart, an unknown key or a value out of bounds changes
  // nothing, and says why.
  const auto restart = update("listenPort=9000\nbrokerExpiry=60000\n");
  EXPECT_EQ(restart.code, rc::kNoPermission);
  EXPECT_NE(restart.remark.value_or("").find("namesrv.toml"), std::string::npos) << restart.remark.value_or("");
  EXPECT_EQ(update("noSuchKey=1\n").code, rc::kInvalidParameter);
  EXPECT_EQ(update("brokerExpiry=10\n").code, rc::kInvalidParameter);  // below 1 s
  EXPECT_EQ(update("orderMessageEnable=maybe\n").code, rc::kInvalidParameter);
  EXPECT_EQ(settings_->broker_expiry_ms(), 30'000);
  EXPECT_EQ(protocol::decode_java_properties(body_of(processor_.handle(request(code::kGetNamesrvConfig, {}), 1)))
                ->at("listenPort"),
            "9876");
}

TEST_F(NameServerProcessorTest, ClusterInfoTopicListAndDataVersion) {
  // A first registration without the whole-table mark may hold one new topic only: its version
  // is not taken as the broker's, so the broker is asked to register again.
  register_a({"T"});
  const auto query = request(code::kQueryDataVersion,
                             {{"brokerName", "broker-a"}, {"brokerAddr", "10.0.0.1:10911"},
                              {"clusterName", "DefaultCluster"}, {"brokerId", "0"}},
                             protocol::encode(protocol::DataVersion{1, 1, 0}));
  EXPECT_EQ(processor_.handle(query, 1).ext_fields.get("changed"), "true");
  register_a({"T"});
  const auto cluster = processor_.handle(request(code::kGetBrokerClusterInfo, {}), 1);
  EXPECT_NE(body_of(cluster).find(R"("clusterAddrTable":{"DefaultCluster":["broker-a"]})"), std::string::npos);
  EXPECT_EQ(body_of(processor_.handle(request(code::kGetAllTopicListFromNameServer, {}), 1)), R"({"topicList":["T"]})");
  const auto same = processor_.handle(request(code::kQueryDataVersion,
                                              {{"brokerName", "broker-a"}, {"brokerAddr", "10.0.0.1:10911"},
                                               {"clusterName", "DefaultCluster"}, {"brokerId", "0"}},
                                              protocol::encode(protocol::DataVersion{1, 1, 0})),
                                      1);
  EXPECT_EQ(same.ext_fields.get("changed"), "false");
}

TEST(KvConfigManagerTest, PersistsAndReloads) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "kv" / "kvConfig.json";
  std::filesystem::remove_all(path.parent_path());
  {
    KvConfigManager kv(path);
    ASSERT_TRUE(kv.load().is_ok());
    ASSERT_TRUE(kv.put("ns", "a", "1").is_ok());
    ASSERT_TRUE(kv.put("ns", "b", "2").is_ok());
    ASSERT_TRUE(kv.remove("ns", "a").is_ok());
  }
  KvConfigManager again(path);
  ASSERT_TRUE(again.load().is_ok());
  EXPECT_EQ(again.list("ns"), (std::map<std::string, std::string>{{"b", "2"}}));
  std::ofstream(path) << "{broken";
  KvConfigManager corrupt(path);
  EXPECT_EQ(corrupt.load().message(), "KV config file " + path.string() + " is not valid");
}

}  // namespace
}  // namespace mqkit::namesrv
