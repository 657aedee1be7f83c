#include "mqkit/protocol/acl_signature.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace mqkit::protocol::acl {
namespace {

using plugin::v1::RemotingCommand;

std::vector<std::uint8_t> bytes(std::string_view text) { return {text.begin(), text.end()}; }

RemotingCommand send_like_request() {
  auto request = RemotingCommand::request(310);
  request.ext_fields.set("b", "TopicA");
  request.ext_fields.set("a", "PG");
  request.ext_fields.set("AccessKey", "RocketMQ");
  request.body = bytes("hello");
  return request;
}

// Expected values were computed outside this code with OpenSSL's command line tool:
//   printf 'RocketMQ' | openssl dgst -sha1 -hmac 12345678 -binary | base64
// (the same pair and result are in RocketMQ's own AclSignerTest), and
//   printf 'RocketMQPGTopicAhello' | openssl dgst -sha1 -hmac 12345678 -binary | base64
TEST(AclSignatureTest, MatchesHmacSha1Base64ComputedByOpenSslTool) {
  EXPECT_EQ(signature_of("RocketMQ", "12345678").value(), "IUc8rrO/0gDch8CjObLQsW2rsiA=");
  EXPECT_EQ(signature_of("RocketMQPGTopicAhello", "12345678").value(), "SUmdnF8EJanxh5bT82KVIgLANuA=");
}

TEST(AclSignatureTest, ContentIsFieldValuesInKeyOrderThenTheBody) {
  // Uppercase sorts before lowercase, as in Java's TreeMap.
  EXPECT_EQ(content_to_sign(send_like_request()), "RocketMQPGTopicAhello");
  EXPECT_EQ(request_signature(send_like_request(), "12345678").value(), "SUmdnF8EJanxh5bT82KVIgLANuA=");
}

TEST(AclSignatureTest, ContentLeavesOutTheSignatureAndExcludedFields) {
  auto request = send_like_request();
  request.ext_fields.set("Signature", "whatever");
  request.ext_fields.set("_UNIQUE_KEY_QUERY", "true");
  EXPECT_EQ(content_to_sign(request), "RocketMQtruePGTopicAhello");
  constexpr std::string_view kExcluded[] = {kUniqueKeyQueryFlag};
  EXPECT_EQ(content_to_sign(request, kExcluded), "RocketMQPGTopicAhello");
  EXPECT_EQ(request_signature(request, "12345678", kExcluded).value(), "SUmdnF8EJanxh5bT82KVIgLANuA=");
}

TEST(AclSignatureTest, BodySlicesFollowTheBodyAsOnTheWire) {
  auto request = send_like_request();
  request.body = bytes("he");
  auto rest = std::make_shared<const std::string>("llo");
  request.body_slices.push_back({{reinterpret_cast<const std::uint8_t*>(rest->data()), rest->size()}, rest});
  EXPECT_EQ(content_to_sign(request), "RocketMQPGTopicAhello");
  EXPECT_EQ(request_signature(request, "12345678").value(), "SUmdnF8EJanxh5bT82KVIgLANuA=");
}

TEST(AclSignatureTest, SignSetsTheFieldsAClientRpcHookSets) {
  auto request = RemotingCommand::request(310);
  request.ext_fields.set("b", "TopicA");
  request.ext_fields.set("a", "PG");
  request.body = bytes("hello");
  ASSERT_TRUE(sign(request, {.access_key = "RocketMQ", .secret_key = "12345678"}).is_ok());
  EXPECT_EQ(request.ext_fields.get("AccessKey"), "RocketMQ");
  EXPECT_FALSE(request.ext_fields.get("SecurityToken").has_value());
  EXPECT_EQ(request.ext_fields.get("Signature"), "SUmdnF8EJanxh5bT82KVIgLANuA=");

  // Signing again (a retry) replaces the signature instead of signing the old one.
  ASSERT_TRUE(sign(request, {.access_key = "RocketMQ", .secret_key = "12345678"}).is_ok());
  EXPECT_EQ(request.ext_fields.get("Signature"), "SUmdnF8EJanxh5bT82KVIgLANuA=");
  EXPECT_EQ(request.ext_fields.size(), 4u);
}

TEST(AclSignatureTest, ASecurityTokenIsSentAndSigned) {
  auto request = send_like_request();
  ASSERT_TRUE(sign(request, {.access_key = "RocketMQ", .secret_key = "12345678", .security_token = "tok"}).is_ok());
  EXPECT_EQ(request.ext_fields.get("SecurityToken"), "tok");
  EXPECT_EQ(content_to_sign(request), "RocketMQtokPGTopicAhello");
  EXPECT_EQ(request.ext_fields.get("Signature"), signature_of("RocketMQtokPGTopicAhello", "12345678").value());
}

TEST(AclSignatureTest, RefusesToSignWithoutKeys) {
  auto request = send_like_request();
  EXPECT_FALSE(sign(request, {}).is_ok());
  EXPECT_EQ(signature_of("x", "").status().code(), plugin::v1::StatusCode::kInvalidArgument);
}

TEST(AclSignatureTest, SignaturesMatchOnlyWhenEqual) {
  EXPECT_TRUE(signatures_match("IUc8rrO/0gDch8CjObLQsW2rsiA=", "IUc8rrO/0gDch8CjObLQsW2rsiA="));
  EXPECT_FALSE(signatures_match("IUc8rrO/0gDch8CjObLQsW2rsiA=", "IUc8rrO/0gDch8CjObLQsW2rsiB="));
  EXPECT_FALSE(signatures_match("IUc8rrO/0gDch8CjObLQsW2rsiA=", ""));
}

}  // namespace
}  // namespace mqkit::protocol::acl
