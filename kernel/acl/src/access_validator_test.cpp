#include "mqkit/acl/access_validator.hpp"

#include <gtest/gtest.h>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::acl {
namespace {

namespace rq = protocol::request_code;
using plugin::v1::RemotingCommand;
using plugin::v1::StatusCode;

constexpr std::string_view kRules = R"(
global_white_remote_addresses = ["10.10.103.*"]

[[accounts]]
access_key = "producer1"
secret_key = "secret-p1"
default_topic_perm = "PUB"
default_group_perm = "SUB"
topic_perms = ["Closed=DENY", "ReadOnly=SUB"]
group_perms = ["BannedGroup=DENY"]

[[accounts]]
access_key = "trusted1"
secret_key = "secret-t1"
white_remote_address = "192.168.1.*"

[[accounts]]
access_key = "admin001"
secret_key = "secret-a1"
admin = true

[[accounts]]
access_key = "admin002"
secret_key = "secret-a2"
admin = true
topic_perms = ["Private=DENY"]
)";

class AccessValidatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto document = kernel::ConfigDocument::parse(kRules, "acl.toml");
    ASSERT_TRUE(document.is_ok());
    auto rules = acl_rules_from(*document);
    ASSERT_TRUE(rules.is_ok()) << rules.status().to_string();
    rules_ = std::move(rules).value();
  }

  static RemotingCommand send_to(const std::string& topic) {
    auto request = RemotingCommand::request(rq::kSendMessageV2);
    request.ext_fields.set("a", "PG");
    request.ext_fields.set("b", topic);
    request.body = {'h', 'i'};
    return request;
  }
  static RemotingCommand pull(const std::string& topic, const std::string& group) {
    auto request = RemotingCommand::request(rq::kPullMessage);
    request.ext_fields.set("consumerGroup", group);
    request.ext_fields.set("topic", topic);
    request.ext_fields.set("queueId", "0");
    return request;
  }
  static RemotingCommand signed_by(RemotingCommand request, const std::string& access_key, const std::string& secret) {
    EXPECT_TRUE(protocol::acl::sign(request, {.access_key = access_key, .secret_key = secret}).is_ok());
    return request;
  }
  plugin::v1::Status check(const RemotingCommand& request, std::string_view from = "127.0.0.1:40000") const {
    return validate(rules_, request, from);
  }

  AclRules rules_;
};

TEST_F(AccessValidatorTest, ASignedRequestWithThePermissionPasses) {
  EXPECT_TRUE(check(signed_by(send_to("Orders"), "producer1", "secret-p1")).is_ok());
  EXPECT_TRUE(check(signed_by(pull("ReadOnly", "G"), "producer1", "secret-p1")).is_ok());
}

TEST_F(AccessValidatorTest, AGlobalWhiteAddressNeedsNothing) {
  EXPECT_TRUE(check(send_to("Closed"), "10.10.103.7:5555").is_ok());
  EXPECT_FALSE(check(send_to("Closed"), "10.10.104.7:5555").is_ok());
}

TEST_F(AccessValidatorTest, WithoutAnAccessKeyOrWithAnUnknownOneItIsRefused) {
  const auto unsigned_request = check(send_to("Orders"));
  EXPECT_EQ(unsigned_request.code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(unsigned_request.message().starts_with("the request carries no AccessKey")) << unsigned_request.message();
  EXPECT_EQ(check(signed_by(send_to("Orders"), "nobody12", "secret-p1")).message(), "no account has AccessKey nobody12");
}

TEST_F(AccessValidatorTest, AWrongSecretOrAChangedRequestFailsTheSignature) {
  const auto wrong = check(signed_by(send_to("Orders"), "producer1", "not-the-secret"));
  EXPECT_EQ(wrong.code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(wrong.message().starts_with("signature check failed for AccessKey producer1")) << wrong.message();
  auto tampered = signed_by(send_to("Orders"), "producer1", "secret-p1");
  tampered.body.push_back('!');
  EXPECT_TRUE(check(tampered).message().starts_with("signature check failed"));
  auto field_changed = signed_by(send_to("Orders"), "producer1", "secret-p1");
  field_changed.ext_fields.set("b", "Closed");
  EXPECT_TRUE(check(field_changed).message().starts_with("signature check failed"));
  auto no_signature = send_to("Orders");
  no_signature.ext_fields.set("AccessKey", "producer1");
  EXPECT_TRUE(check(no_signature).message().starts_with("signature check failed"));
}

TEST_F(AccessValidatorTest, TheAccountsWhiteAddressSkipsSignatureAndPermissions) {
  auto request = send_to("Anything");
  request.ext_fields.set("AccessKey", "trusted1");
  EXPECT_TRUE(check(request, "192.168.1.9:1234").is_ok());
  EXPECT_FALSE(check(request, "192.168.2.9:1234").is_ok());
  // Without the AccessKey the account's white address does not apply.
  EXPECT_FALSE(check(send_to("Anything"), "192.168.1.9:1234").is_ok());
}

TEST_F(AccessValidatorTest, TopicAndGroupPermissionsAndTheirDefaults) {
  EXPECT_EQ(check(signed_by(send_to("Closed"), "producer1", "secret-p1")).message(),
            "AccessKey producer1 has no PUB permission on topic Closed (it has DENY)");
  EXPECT_EQ(check(signed_by(send_to("ReadOnly"), "producer1", "secret-p1")).message(),
            "AccessKey producer1 has no PUB permission on topic ReadOnly (it has SUB)");
  // default_topic_perm PUB: pulling from a topic without an entry is refused.
  EXPECT_EQ(check(signed_by(pull("Orders", "G"), "producer1", "secret-p1")).message(),
            "AccessKey producer1 has no SUB permission on topic Orders (it has PUB)");
  EXPECT_EQ(check(signed_by(pull("ReadOnly", "BannedGroup"), "producer1", "secret-p1")).message(),
            "AccessKey producer1 has no SUB permission on group BannedGroup (it has DENY)");
  // A send to a group's retry topic needs SUB on the group.
  EXPECT_TRUE(check(signed_by(send_to("%RETRY%G"), "producer1", "secret-p1")).is_ok());
  EXPECT_FALSE(check(signed_by(send_to("%RETRY%BannedGroup"), "producer1", "secret-p1")).is_ok());
}

TEST_F(AccessValidatorTest, AdminRequestsNeedAnAdminAccount) {
  auto create = RemotingCommand::request(rq::kUpdateAndCreateTopic);
  create.ext_fields.set("topic", "NewTopic");
  EXPECT_EQ(check(signed_by(create, "producer1", "secret-p1")).message(),
            "request code 17 needs an admin account; AccessKey producer1 is not admin");
  EXPECT_TRUE(check(signed_by(create, "admin001", "secret-a1")).is_ok());
  // An admin without topic or group entries has every permission; with entries, they apply.
  EXPECT_TRUE(check(signed_by(send_to("Closed"), "admin001", "secret-a1")).is_ok());
  EXPECT_EQ(check(signed_by(send_to("Private"), "admin002", "secret-a2")).message(),
            "AccessKey admin002 has no PUB permission on topic Private (it has DENY)");
  EXPECT_EQ(check(signed_by(send_to("Other"), "admin002", "secret-a2")).message(),
            "AccessKey admin002 has no PUB permission on topic Other (it has DENY)");
}

TEST_F(AccessValidatorTest, TraceMessagesNeedOnlyASignature) {
  EXPECT_TRUE(check(signed_by(send_to("RMQ_SYS_TRACE_TOPIC"), "admin002", "secret-a2")).is_ok());
}

TEST_F(AccessValidatorTest, OldClientsSignedQueriesWithoutTheUniqueKeyFlag) {
  auto query = RemotingCommand::request(rq::kQueryMessage);
  query.ext_fields.set("topic", "ReadOnly");
  query.ext_fields.set("key", "k");
  auto old_client = query;
  old_client.version = 399;  // V4_9_3
  old_client = signed_by(old_client, "producer1", "secret-p1");
  old_client.ext_fields.set("_UNIQUE_KEY_QUERY", "true");  // added after signing
  EXPECT_TRUE(check(old_client).is_ok()) << check(old_client).message();
  auto new_client = query;
  new_client.ext_fields.set("_UNIQUE_KEY_QUERY", "true");
  new_client = signed_by(new_client, "producer1", "secret-p1");  // signed with it
  EXPECT_TRUE(check(new_client).is_ok()) << check(new_client).message();
  new_client.ext_fields.set("_UNIQUE_KEY_QUERY", "false");
  EXPECT_FALSE(check(new_client).is_ok());
}

TEST_F(AccessValidatorTest, AnUnreadableHeartbeatIsRefused) {
  auto heartbeat = RemotingCommand::request(rq::kHeartBeat);
  heartbeat.body = {'{', 'x'};
  heartbeat = signed_by(heartbeat, "producer1", "secret-p1");
  EXPECT_FALSE(check(heartbeat).is_ok());
}

}  // namespace
}  // namespace mqkit::acl
