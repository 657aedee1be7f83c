// The stock ali-ons client (pure JavaScript RocketMQ 4.x remoting client) produces and consumes
// against real mqnamesrv + mqbroker processes. The scenarios live in
// tests/interop/ali-ons/scenarios.js; tools/test.sh installs ali-ons there with npm.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "local_cluster.hpp"
#include "mqkit/protocol/codes.hpp"
#include "remoting_client.hpp"

namespace mqkit::testing {
namespace {

const std::filesystem::path kScenarioDir = std::filesystem::path(MQKIT_SOURCE_DIR) / "tests/interop/ali-ons";

class AliOnsInteropTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AliOnsInteropTest, Scenario) {
  if (!std::filesystem::exists(kScenarioDir / "node_modules/ali-ons")) {
    if (std::getenv("MQKIT_REQUIRE_INTEROP") != nullptr) {
      FAIL() << "ali-ons is not installed in " << kScenarioDir << " (run tools/test.sh, which installs it)";
    }
    GTEST_SKIP() << "ali-ons not installed in " << kScenarioDir << "; tools/test.sh installs it";
  }
  const std::string scenario = GetParam();
  LocalCluster cluster("alions-" + scenario);
  ASSERT_TRUE(cluster.add_namesrv().is_ok());
  // Short delay levels so a redelivery (level 3) arrives in a second, not ten.
  auto started = cluster.add_broker({.name = "broker-a", .store = "commitlog",
                                     .overrides = {"broker.message_delay_level=100ms 200ms 500ms 1s 1s 1s"}});
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  // Like a stock broker, mqkit answers routes only for existing topics: ali-ons users create
  // them with the admin tool first, as the scenario does here.
  const std::string topic = "AliOns_" + scenario;
  auto create = plugin::v1::RemotingCommand::request(protocol::request_code::kUpdateAndCreateTopic);
  for (const auto& [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
           {"defaultTopic", "TBW102"}, {"readQueueNums", "4"}, {"writeQueueNums", "4"}, {"perm", "6"},
           {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}}) {
    create.ext_fields.set(k, v);
  }
  create.ext_fields.set("topic", topic);
  RemotingClient admin;
  auto created = admin.call(cluster.broker_addr(0), std::move(create));
  ASSERT_TRUE(created.is_ok() && created->code == 0) << (created ? created->remark.value_or("") : created.status().to_string());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the broker re-registers the new topic
  auto node = ChildProcess::spawn("/usr/bin/node",
                                  {(kScenarioDir / "scenarios.js").string(), scenario, cluster.namesrv_addr(0),
                                   topic, "AliOnsGroup_" + scenario},
                                  "alions-node-" + scenario);
  ASSERT_TRUE(node.is_ok()) << node.status().to_string();
  const auto status = node->wait_exit(std::chrono::seconds(150));
  ASSERT_TRUE(status.has_value()) << "node did not finish; its log:\n" << node->log_tail();
  EXPECT_EQ(*status, 0) << "scenario output:\n" << node->output() << "\nnode log:\n" << node->log_tail()
                        << "\nbroker log:\n" << cluster.broker(0).log_tail();
}

INSTANTIATE_TEST_SUITE_P(AliOns, AliOnsInteropTest,
                         ::testing::Values("basic", "clustering", "broadcasting", "redelivery", "resume"),
                         [](const auto& param_info) { return std::string(param_info.param); });

}  // namespace
}  // namespace mqkit::testing
