// The stock ali-ons client (pure JavaScript RocketMQ 4.x remoting client) produces and consumes
// against real mqnamesrv + mqbroker processes, signed too against an ACL-enabled broker. The
// scenarios live in tests/interop/ali-ons/scenarios.js; tools/test.sh installs ali-ons there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "local_cluster.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/codes.hpp"
#include "remoting_client.hpp"

namespace mqkit::testing {
namespace {

const std::filesystem::path kScenarioDir = std::filesystem::path(MQKIT_SOURCE_DIR) / "tests/interop/ali-ons";

class AliOnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::filesystem::exists(kScenarioDir / "node_modules/ali-ons")) return;
    if (std::getenv("MQKIT_REQUIRE_INTEROP") != nullptr) {
      FAIL() << "ali-ons is not installed in " << kScenarioDir << " (run tools/test.sh, which installs it)";
    }
    GTEST_SKIP() << "ali-ons not installed in " << kScenarioDir << "; tools/test.sh installs it";
  }

  // Like a stock broker, mqkit answers routes only for existing topics: ali-ons users create
  // them with the admin tool first, as the scenarios do here (signed when the broker checks ACL).
  static void create_topic(LocalCluster& cluster, const std::string& topic,
                           const protocol::acl::Credentials& admin = {}) {
    auto create = plugin::v1::RemotingCommand::request(protocol::request_code::kUpdateAndCreateTopic);
    for (const auto& [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
             {"defaultTopic", "TBW102"}, {"readQueueNums", "4"}, {"writeQueueNums", "4"}, {"perm", "6"},
             {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}}) {
      create.ext_fields.set(k, v);
    }
    create.ext_fields.set("topic", topic);
    if (!admin.empty()) {
      ASSERT_TRUE(protocol::acl::sign(create, admin).is_ok());
    }
    RemotingClient client;
    auto created = client.call(cluster.broker_addr(0), std::move(create));
    ASSERT_TRUE(created.is_ok() && created->code == 0)
        << (created ? created->remark.value_or("") : created.status().to_string());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the broker re-registers the new topic
  }

  // Runs one scenario of scenarios.js to its end; a failure shows its output and the broker's log.
  static void run_scenario(LocalCluster& cluster, const std::string& scenario, const std::string& topic,
                           const std::vector<std::string>& extra_args = {}) {
    std::vector<std::string> args{(kScenarioDir / "scenarios.js").string(), scenario, cluster.namesrv_addr(0), topic,
                                  "AliOnsGroup_" + scenario};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    auto node = ChildProcess::spawn("/usr/bin/node", args, "alions-node-" + scenario);
    ASSERT_TRUE(node.is_ok()) << node.status().to_string();
    const auto status = node->wait_exit(std::chrono::seconds(150));
    ASSERT_TRUE(status.has_value()) << "node did not finish; its log:\n" << node->log_tail();
    EXPECT_EQ(*status, 0) << "scenario output:\n" << node->output() << "\nnode log:\n" << node->log_tail()
                          << "\nbroker log:\n" << cluster.broker(0).log_tail();
  }
};

class AliOnsInteropTest : public AliOnsTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(AliOnsInteropTest, Scenario) {
  const std::string scenario = GetParam();
  LocalCluster cluster("alions-" + scenario);
  ASSERT_TRUE(cluster.add_namesrv().is_ok());
  // Short delay levels so a redelivery (level 3) arrives in a second, not ten.
  auto started = cluster.add_broker({.name = "broker-a", .store = "commitlog",
                                     .overrides = {"broker.message_delay_level=100ms 200ms 500ms 1s 1s 1s"}});
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  const std::string topic = "AliOns_" + scenario;
  create_topic(cluster, topic);
  run_scenario(cluster, scenario, topic);
}

INSTANTIATE_TEST_SUITE_P(AliOns, AliOnsInteropTest,
                         ::testing::Values("basic", "clustering", "broadcasting", "redelivery", "resume"),
                         [](const auto& param_info) { return std::string(param_info.param); });

// ali-ons signs with accessKeyId/accessKeySecret the way RocketMQ's AclClientRPCHook does, so an
// ACL-enabled broker serves it; its wrong-secret send is refused for the signature.
TEST_F(AliOnsTest, AclSignedClientsAgainstAnAclBroker) {
  LocalCluster cluster("alions-acl");
  const auto acl_file = cluster.directory() / "acl.toml";
  std::ofstream(acl_file) << R"([[accounts]]
access_key = "ons-user"
secret_key = "ons-user-secret"
default_topic_perm = "PUB|SUB"
default_group_perm = "SUB"

[[accounts]]
access_key = "ons-admin"
secret_key = "ons-admin-secret"
admin = true
)";
  ASSERT_TRUE(cluster.add_namesrv().is_ok());
  auto started = cluster.add_broker(
      {.name = "broker-a", .store = "memory",
       .overrides = {"broker.acl_enable=true", "broker.acl_file=" + acl_file.string()}});
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  create_topic(cluster, "AliOns_acl", {.access_key = "ons-admin", .secret_key = "ons-admin-secret"});
  run_scenario(cluster, "acl", "AliOns_acl", {"ons-user", "ons-user-secret"});
  EXPECT_NE(cluster.broker(0).log_tail(200'000).find("signature check failed for AccessKey ons-user"),
            std::string::npos)
      << "the wrong-secret send was not refused for its signature:\n" << cluster.broker(0).log_tail();
}

}  // namespace
}  // namespace mqkit::testing
