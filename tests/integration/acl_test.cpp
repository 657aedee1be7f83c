// Plain ACL end to end: a real mqbroker with acl_enable and an ACL file written here. SDK clients
// signing with an account produce and consume; a wrong secret and a DENY topic are refused with
// errors that say so; once the file (re-read while the broker runs) white-lists the client's
// address, unsigned clients get in; a slave signs its synchronization. Every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "child_process.hpp"
#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "remoting_client.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;

constexpr const char* kTopic = "AclOrders";
constexpr const char* kClosedTopic = "AclClosed";

const protocol::acl::Credentials kUser{.access_key = "it-user", .secret_key = "it-user-secret"};
const protocol::acl::Credentials kAdmin{.access_key = "it-admin", .secret_key = "it-admin-secret"};

std::string acl_file(const std::string& global_white_addresses) {
  return "global_white_remote_addresses = [" + global_white_addresses + R"(]

[[accounts]]
access_key = "it-user"
secret_key = "it-user-secret"
default_topic_perm = "PUB|SUB"
default_group_perm = "SUB"
topic_perms = ["AclClosed=DENY"]

[[accounts]]
access_key = "it-admin"
secret_key = "it-admin-secret"
admin = true

# The slave's own account: its synchronization requests need only a valid signature.
[[accounts]]
access_key = "it-broker"
secret_key = "it-broker-secret"
)";
}

class AclIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    acl_path_ = cluster_->directory() / "acl.toml";
    write_acl_file("");
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    const auto started = cluster_->add_broker(
        {.name = "broker-a", .store = "memory",
         .overrides = {"broker.acl_enable=true", "broker.acl_file=" + acl_path_.string()}});
    ASSERT_TRUE(started.is_ok()) << started.to_string();
    admin_ = producer("acl_it_admin", kAdmin);
    ASSERT_TRUE(admin_->start().is_ok());
    for (const char* topic : {kTopic, kClosedTopic}) {
      const auto created =
          mqkit::testing::create_topic_on_brokers(admin_->instance()->api(), *cluster_, 1, topic, 2);
      ASSERT_TRUE(created.is_ok()) << created.to_string() << "\n" << cluster_->broker(0).log_tail();
    }
  }

  void TearDown() override {
    admin_.reset();
    cluster_.reset();
  }

  void write_acl_file(const std::string& global_white_addresses) {
    std::ofstream(acl_path_, std::ios::trunc) << acl_file(global_white_addresses);
  }

  std::unique_ptr<Producer> producer(const std::string& group, const protocol::acl::Credentials& credentials) const {
    ProducerConfig config;
    config.group = group;
    config.client = mqkit::testing::fast_client_config(*cluster_);
    config.client.credentials = credentials;
    return std::make_unique<Producer>(config);
  }

  // Exit code and output of a tool run to its end (bounded).
  static std::pair<int, std::string> run(const std::string& tool, const std::vector<std::string>& args) {
    auto child = mqkit::testing::ChildProcess::spawn(tool, args, "acl-" + tool);
    if (!child) return {-1, child.status().to_string()};
    const int code = child->run_to_end(std::chrono::seconds(60)).value_or(-1);
    return {code, child->output() + child->log_tail()};
  }
  static std::vector<std::string> with_keys(std::vector<std::string> args, const protocol::acl::Credentials& account) {
    args.insert(args.end(), {"--access-key", account.access_key, "--secret-key", account.secret_key});
    return args;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::filesystem::path acl_path_;
  std::unique_ptr<Producer> admin_;
};

TEST_F(AclIntegrationTest, ASignedProducerAndConsumerWork) {
  auto sender = producer("acl_it_producer", kUser);
  ASSERT_TRUE(sender->start().is_ok());
  std::set<std::string> sent;
  for (int i = 0; i < 10; ++i) {
    const std::string body = "signed-" + std::to_string(i);
    auto result = sender->send(Message(kTopic, "TagA", body));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string() << "\n" << cluster_->broker(0).log_tail();
    sent.insert(body);
  }

  ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, "acl_it_consumer");
  config.client.credentials = kUser;
  mqkit::testing::ReceivedBodies received;  // outlives the consumer that calls into it
  PushConsumer consumer(config);
  ASSERT_TRUE(consumer.subscribe(kTopic, MessageSelector::by_tag("*")).is_ok());
  ASSERT_TRUE(consumer.register_listener(received.listener()).is_ok());
  ASSERT_TRUE(consumer.start().is_ok());
  EXPECT_TRUE(eventually([&] {
    return received.bodies() == sent;
  })) << "received " << received.bodies().size() << " of " << sent.size() << "\n" << cluster_->broker(0).log_tail();
  consumer.shutdown();
}

TEST_F(AclIntegrationTest, AWrongSecretIsRefusedWithAClearError) {
  auto sender = producer("acl_it_wrong", {.access_key = "it-user", .secret_key = "not-the-secret"});
  ASSERT_TRUE(sender->start().is_ok());
  auto result = sender->send(Message(kTopic, "TagA", "never stored"));
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().code(), StatusCode::kPermissionDenied) << result.status().to_string();
  EXPECT_NE(result.status().message().find("AclException: signature check failed for AccessKey it-user"),
            std::string::npos)
      << result.status().message();
}

TEST_F(AclIntegrationTest, ADenyTopicIsRefused) {
  auto sender = producer("acl_it_deny", kUser);
  ASSERT_TRUE(sender->start().is_ok());
  auto result = sender->send(Message(kClosedTopic, "TagA", "never stored"));
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(result.status().message().find("AccessKey it-user has no PUB permission on topic AclClosed"),
            std::string::npos)
      << result.status().message();
  EXPECT_TRUE(sender->send(Message(kTopic, "TagA", "allowed")).is_ok());
}

TEST_F(AclIntegrationTest, AWhiteListedAddressNeedsNoSignature) {
  auto unsigned_sender = producer("acl_it_unsigned", {});
  ASSERT_TRUE(unsigned_sender->start().is_ok());
  auto refused = unsigned_sender->send(Message(kTopic, "TagA", "refused"));
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("the request carries no AccessKey"), std::string::npos)
      << refused.status().message();

  // The broker checks the file every 5 s and takes the new content.
  write_acl_file("\"127.0.0.*\"");
  EXPECT_TRUE(eventually([&] { return unsigned_sender->send(Message(kTopic, "TagA", "white")).is_ok(); },
                         std::chrono::seconds(20)))
      << cluster_->broker(0).log_tail();
}

// A slave signs its synchronization from the master with its own account (acl_access_key), so the
// master's ACL lets the topic configs through; replication itself has its own port, without ACL.
TEST_F(AclIntegrationTest, ASlaveSignsItsSynchronizationFromAnAclMaster) {
  const auto started = cluster_->add_broker({.name = "broker-a", .store = "memory",
                                             .overrides = {"broker.ha_send_heartbeat_interval=200ms",
                                                           "broker.acl_access_key=it-broker",
                                                           "broker.acl_secret_key=it-broker-secret"},
                                             .broker_id = 1, .role = "SLAVE"});
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  mqkit::testing::RemotingClient client;
  // The slave has no ACL of its own: its topic table can be read unsigned.
  EXPECT_TRUE(eventually([&] {
    auto r = client.call(cluster_->broker_addr(1),
                         plugin::v1::RemotingCommand::request(protocol::request_code::kGetAllTopicConfig));
    return r.is_ok() && r->code == 0 && protocol::body_text(*r).find(kClosedTopic) != std::string_view::npos;
  })) << "slave:\n" << cluster_->broker(1).log_tail() << "\nmaster:\n" << cluster_->broker(0).log_tail();
  EXPECT_EQ(cluster_->broker(0).log_tail(100'000).find("refused"), std::string::npos) << cluster_->broker(0).log_tail();
}

// The tools sign with --access-key/--secret-key, or with $MQKIT_ACCESS_KEY/$MQKIT_SECRET_KEY.
TEST_F(AclIntegrationTest, ToolsSignWithTheirOptionsOrTheEnvironment) {
  const std::vector<std::string> create = {"updateTopic", "-t", "AclToolTopic", "-c", "DefaultCluster",
                                           "-n", cluster_->namesrv_addrs()};

  auto unsigned_run = run("mqadmin", create);
  EXPECT_NE(unsigned_run.first, 0) << unsigned_run.second;
  auto user_run = run("mqadmin", with_keys(create, kUser));  // not an admin account
  EXPECT_NE(user_run.first, 0) << user_run.second;
  auto admin_run = run("mqadmin", with_keys(create, kAdmin));
  EXPECT_EQ(admin_run.first, 0) << admin_run.second;

  ::setenv("MQKIT_ACCESS_KEY", kUser.access_key.c_str(), 1);
  ::setenv("MQKIT_SECRET_KEY", kUser.secret_key.c_str(), 1);
  auto bench = run("mqbench", {"--namesrv", cluster_->namesrv_addrs(), "--topic", kTopic, "--no-create-topics",
                               "--messages", "200", "--mode", "sync", "--warmup", "0"});
  ::unsetenv("MQKIT_ACCESS_KEY");
  ::unsetenv("MQKIT_SECRET_KEY");
  EXPECT_EQ(bench.first, 0) << bench.second;
  EXPECT_NE(bench.second.find("\"errors\":0"), std::string::npos) << bench.second;
  auto unsigned_bench = run("mqbench", {"--namesrv", cluster_->namesrv_addrs(), "--topic", kTopic,
                                        "--no-create-topics", "--messages", "200", "--mode", "sync", "--warmup", "0"});
  EXPECT_NE(unsigned_bench.first, 0) << unsigned_bench.second;
}

// mqadmin updateAclConfig / deleteAcl / updateGlobalWhiteAddr change the running broker's ACL
// (and its file); only an admin account may.
TEST_F(AclIntegrationTest, AdminToolsChangeTheAclWhileTheBrokerRuns) {
  const protocol::acl::Credentials newcomer{.access_key = "it-newcomer", .secret_key = "it-newcomer-secret"};
  const std::vector<std::string> add = {"updateAclConfig", "-a", newcomer.access_key, "-s", newcomer.secret_key,
                                        "-i", "PUB|SUB", "-u", "SUB", "-c", "DefaultCluster",
                                        "-n", cluster_->namesrv_addrs()};
  auto by_user = run("mqadmin", with_keys(add, kUser));
  EXPECT_NE(by_user.first, 0) << by_user.second;  // not an admin account
  EXPECT_NE(by_user.second.find("needs an admin account"), std::string::npos) << by_user.second;
  auto by_admin = run("mqadmin", with_keys(add, kAdmin));
  ASSERT_EQ(by_admin.first, 0) << by_admin.second;
  EXPECT_NE(by_admin.second.find("create or update plain access config to " + cluster_->broker_addr(0) + " success."),
            std::string::npos)
      << by_admin.second;
  auto sender = producer("acl_it_newcomer", newcomer);
  ASSERT_TRUE(sender->start().is_ok());
  ASSERT_TRUE(sender->send(Message(kTopic, "TagA", "from the new account")).is_ok());

  // Closing the topic to it-user: its sends are refused from the next request on.
  auto closed = run("mqadmin", with_keys({"updateAclConfig", "-a", kUser.access_key, "-t", "AclClosed=DENY,AclOrders=DENY",
                                          "-b", cluster_->broker_addr(0), "-n", cluster_->namesrv_addrs()},
                                         kAdmin));
  ASSERT_EQ(closed.first, 0) << closed.second;
  auto user = producer("acl_it_user_closed", kUser);
  ASSERT_TRUE(user->start().is_ok());
  const auto refused = user->send(Message(kTopic, "TagA", "never stored"));
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied) << refused.status().to_string();

  auto deleted = run("mqadmin", with_keys({"deleteAcl", "-a", newcomer.access_key, "-c", "DefaultCluster", "-n",
                                           cluster_->namesrv_addrs()},
                                          kAdmin));
  ASSERT_EQ(deleted.first, 0) << deleted.second;
  const auto gone = sender->send(Message(kTopic, "TagA", "never stored"));
  EXPECT_EQ(gone.status().code(), StatusCode::kPermissionDenied) << gone.status().to_string();
  EXPECT_NE(run("mqadmin", with_keys({"deleteAcl", "-a", newcomer.access_key, "-c", "DefaultCluster", "-n",
                                      cluster_->namesrv_addrs()},
                                     kAdmin))
                .first,
            0);

  // White-listing this host lets unsigned clients in.
  auto white = run("mqadmin", with_keys({"updateGlobalWhiteAddr", "-g", "127.0.0.1", "-c", "DefaultCluster", "-n",
                                         cluster_->namesrv_addrs()},
                                        kAdmin));
  ASSERT_EQ(white.first, 0) << white.second;
  auto anonymous = producer("acl_it_anonymous", {});
  ASSERT_TRUE(anonymous->start().is_ok());
  EXPECT_TRUE(anonymous->send(Message(kTopic, "TagA", "white-listed")).is_ok());
  std::ifstream in(acl_path_);
  const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(on_disk.find(R"(global_white_remote_addresses = ["127.0.0.1"])"), std::string::npos) << on_disk;
  EXPECT_EQ(on_disk.find(newcomer.access_key), std::string::npos) << on_disk;

  // Four changes went through (add, close, delete, white list): the file's version counts them.
  auto version = run("mqadmin", with_keys({"clusterAclConfigVersion", "-c", "DefaultCluster", "-n",
                                           cluster_->namesrv_addrs()},
                                          kUser));
  ASSERT_EQ(version.first, 0) << version.second;
  EXPECT_NE(version.second.find("#AclConfigVersionNum"), std::string::npos) << version.second;
  EXPECT_NE(version.second.find(cluster_->broker_addr(0)), std::string::npos) << version.second;
  EXPECT_NE(version.second.find(acl_path_.string()), std::string::npos) << version.second;
  EXPECT_NE(version.second.find("get cluster's plain access config version success."), std::string::npos)
      << version.second;
  auto version_json = run("mqadmin", with_keys({"clusterAclConfigVersion", "-b", cluster_->broker_addr(0), "--json",
                                                "-n", cluster_->namesrv_addrs()},
                                               kUser));
  ASSERT_EQ(version_json.first, 0) << version_json.second;
  EXPECT_NE(version_json.second.find(R"("counter":4,)"), std::string::npos) << version_json.second;
}

}  // namespace
}  // namespace mqkit::client
