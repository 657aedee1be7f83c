// The ACL in front of the broker's real processors: requests go through BrokerRequestHandler as
// the transport hands them over, with the access check the controller installs.
#include <gtest/gtest.h>

#include <fstream>

#include "../consume/consume_test_support.hpp"
#include "../send/send_test_support.hpp"
#include "child_process.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/broker/broker_controller.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker::testing {
namespace {

namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using plugin::v1::RemotingCommand;

constexpr const char* kAclFile = R"(
global_white_remote_addresses = ["10.1.1.*"]

[[accounts]]
access_key = "app-user"
secret_key = "app-secret"
default_topic_perm = "PUB|SUB"
default_group_perm = "SUB"
topic_perms = ["Secret=DENY"]

[[accounts]]
access_key = "operator"
secret_key = "operator-secret"
admin = true
)";

class AclRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "acl.toml") << kAclFile;
    auto control = acl::AccessControl::load(dir_ / "acl.toml");
    ASSERT_TRUE(control.is_ok()) << control.status().to_string();
    auto services = install_processors(handler_, harness_.context(), harness_.files());
    ASSERT_TRUE(services.is_ok());
    services_ = *services;
    handler_.set_access_check([control = *control](const plugin::v1::Channel& channel, const RemotingCommand& r) {
      return control->check(r, channel.remote_address());
    });
    handler_.open();
    create_topic(harness_.context(), "Orders", 1);
    create_topic(harness_.context(), "Secret", 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RemotingCommand call(RemotingCommand request, const std::string& from = "127.0.0.1:40000") {
    auto channel = std::make_shared<FakeChannel>(1, from);
    handler_.on_request(channel, std::move(request));
    if (!channel->wait_for(1)) {
      ADD_FAILURE() << "no answer";
      return {};
    }
    return channel->last();
  }
  static RemotingCommand signed_by(RemotingCommand request, const std::string& access_key, const std::string& secret) {
    EXPECT_TRUE(protocol::acl::sign(request, {.access_key = access_key, .secret_key = secret}).is_ok());
    return request;
  }
  static RemotingCommand send_to(const std::string& topic) {
    SendRequest send;
    send.topic = topic;
    return send.build();
  }

  std::filesystem::path dir_ = mqkit::testing::fresh_directory("acl-request");
  BrokerHarness harness_;
  BrokerRequestHandler handler_;
  std::shared_ptr<void> services_;
};

TEST_F(AclRequestTest, ASignedSendIsStoredAndAnUnsignedOneRefused) {
  const auto stored = call(signed_by(send_to("Orders"), "app-user", "app-secret"));
  EXPECT_EQ(stored.code, rc::kSuccess) << stored.remark.value_or("");
  const auto refused = call(send_to("Orders"));
  EXPECT_EQ(refused.code, rc::kSystemError);
  EXPECT_TRUE(refused.remark.value_or("").starts_with("AclException: the request carries no AccessKey"))
      << refused.remark.value_or("");
  EXPECT_EQ(harness_.context().store->stats().commit_log_max_offset > 0, true);
}

TEST_F(AclRequestTest, AWrongSecretAndADeniedTopicAreRefusedBeforeTheProcessor) {
  const auto wrong = call(signed_by(send_to("Orders"), "app-user", "guessed-secret"));
  EXPECT_EQ(wrong.code, rc::kSystemError);
  EXPECT_TRUE(wrong.remark.value_or("").starts_with("AclException: signature check failed for AccessKey app-user"));
  const auto denied = call(signed_by(send_to("Secret"), "app-user", "app-secret"));
  EXPECT_EQ(denied.code, rc::kSystemError);
  EXPECT_EQ(denied.remark, "AclException: AccessKey app-user has no PUB permission on topic Secret (it has DENY)");
  EXPECT_EQ(harness_.context().store->stats().commit_log_max_offset, 0);  // nothing was stored
}

TEST_F(AclRequestTest, PullsNeedTheTopicAndTheGroup) {
  auto pull = make_request(rq::kPullMessage, {{"consumerGroup", "G"},
                                              {"topic", "Secret"},
                                              {"queueId", "0"},
                                              {"queueOffset", "0"},
                                              {"maxMsgNums", "32"},
                                              {"sysFlag", "0"},
                                              {"commitOffset", "0"},
                                              {"suspendTimeoutMillis", "0"},
                                              {"subVersion", "0"}});
  const auto denied = call(signed_by(pull, "app-user", "app-secret"));
  EXPECT_EQ(denied.remark, "AclException: AccessKey app-user has no SUB permission on topic Secret (it has DENY)");
  pull.ext_fields.set("topic", "Orders");
  const auto allowed = call(signed_by(pull, "app-user", "app-secret"));
  EXPECT_NE(allowed.code, rc::kSystemError) << allowed.remark.value_or("");
}

TEST_F(AclRequestTest, AdminRequestsNeedTheAdminAccount) {
  auto create = make_request(rq::kUpdateAndCreateTopic, {{"topic", "NewTopic"},
                                                         {"defaultTopic", "TBW102"},
                                                         {"readQueueNums", "2"},
                                                         {"writeQueueNums", "2"},
                                                         {"perm", "6"},
                                                         {"topicFilterType", "SINGLE_TAG"}});
  const auto refused = call(signed_by(create, "app-user", "app-secret"));
  EXPECT_EQ(refused.remark, "AclException: request code 17 needs an admin account; AccessKey app-user is not admin");
  EXPECT_FALSE(harness_.context().topics->find("NewTopic").has_value());
  const auto created = call(signed_by(create, "operator", "operator-secret"));
  EXPECT_EQ(created.code, rc::kSuccess) << created.remark.value_or("");
  EXPECT_TRUE(harness_.context().topics->find("NewTopic").has_value());
}

TEST_F(AclRequestTest, AWhiteListedClientNeedsNoSignature) {
  const auto stored = call(send_to("Secret"), "10.1.1.20:5000");
  EXPECT_EQ(stored.code, rc::kSuccess) << stored.remark.value_or("");
}

TEST_F(AclRequestTest, ARefusedOneWayRequestGetsNoAnswer) {
  auto oneway = send_to("Orders");
  oneway.flag = RemotingCommand::kOnewayFlag;
  auto channel = std::make_shared<FakeChannel>(1, "127.0.0.1:40000");
  handler_.on_request(channel, std::move(oneway));
  EXPECT_TRUE(channel->sent().empty());
  EXPECT_EQ(harness_.context().store->stats().commit_log_max_offset, 0);
}

}  // namespace
}  // namespace mqkit::broker::testing
