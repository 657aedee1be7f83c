#include "grpc_access.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <fstream>

#include "apache/rocketmq/v2/service.pb.h"
#include "mqkit/acl/access_control.hpp"

namespace mqkit::proxy {
namespace {

namespace v2 = apache::rocketmq::v2;

constexpr std::string_view kDateTime = "20261201T130722Z";

// Headers as gRPC hands them to the service; the strings they point into live in `values`.
class Headers {
 public:
  Headers& add(std::string key, std::string value) {
    values_.emplace_back(std::move(key), std::move(value));
    const auto& [k, v] = values_.back();
    metadata_.emplace(grpc::string_ref(k), grpc::string_ref(v));
    return *this;
  }
  Headers& signed_by(std::string_view access_key, std::string_view secret_key) {
    add("x-mq-date-time", std::string(kDateTime));
    return add("authorization", *authorization_header(access_key, secret_key, kDateTime));
  }
  const CallMetadata& metadata() const { return metadata_; }

 private:
  std::deque<std::pair<std::string, std::string>> values_;
  CallMetadata metadata_;
};

TEST(GrpcAccessTest, ReadsTheSignatureClientsSend) {
  // The Node.js client's header for secret "12345678" and this date-time (HmacSHA1, upper-case hex).
  Headers headers;
  headers.add("x-mq-date-time", std::string(kDateTime))
      .add("authorization", "MQv2-HMAC-SHA1 Credential=RocketMQ, SignedHeaders=x-mq-date-time, Signature=" +
                                std::string("00112233445566778899AABBCCDDEEFF00112233"));
  auto signature = call_signature(headers.metadata());
  ASSERT_TRUE(signature.is_ok()) << signature.status().message();
  EXPECT_EQ(signature->access_key, "RocketMQ");
  EXPECT_EQ(signature->signature, "ABEiM0RVZneImaq7zN3u/wARIjM=");
  EXPECT_EQ(signature->date_time, kDateTime);

  const auto made = authorization_header("RocketMQ", "12345678", kDateTime);
  ASSERT_TRUE(made.is_ok());
  EXPECT_TRUE(made->starts_with("MQv2-HMAC-SHA1 Credential=RocketMQ, SignedHeaders=x-mq-date-time, Signature="));
  EXPECT_EQ(made->size(), std::string_view("MQv2-HMAC-SHA1 Credential=RocketMQ, SignedHeaders=x-mq-date-time, Signature=").size() + 40);

  EXPECT_FALSE(call_signature(Headers().metadata())->access_key.has_value());  // unsigned
}

TEST(GrpcAccessTest, MalformedAuthorizationHeadersAreNamed) {
  const auto refusal = [](std::string authorization, bool with_date = true) {
    Headers headers;
    if (with_date) headers.add("x-mq-date-time", std::string(kDateTime));
    headers.add("authorization", std::move(authorization));
    auto signature = call_signature(headers.metadata());
    return signature.is_ok() ? std::string() : signature.status().message();
  };
  EXPECT_NE(refusal("MQv2-HMAC-SHA1 Credential=a, Signature=00", false).find("no x-mq-date-time"), std::string::npos);
  EXPECT_NE(refusal("MQv2-HMAC-SHA1").find("is not \"MQv2-HMAC-SHA1"), std::string::npos);
  EXPECT_NE(refusal("MQv2-HMAC-SHA1 Credential").find("is not key=value"), std::string::npos);
  EXPECT_NE(refusal("MQv2-HMAC-SHA1 Credential=a, Signature=XYZ1").find("not hexadecimal"), std::string::npos);
  EXPECT_NE(refusal("MQv2-HMAC-SHA1 Credential=a, Signature=abc").find("not hexadecimal"), std::string::npos);
}

TEST(GrpcAccessTest, EachCallNeedsWhatRocketMqsProxyChecks) {
  const auto needs = [](const google::protobuf::Message& request) {
    auto access = access_needs(request);
    EXPECT_TRUE(access.is_ok()) << access.status().message();
    return access.is_ok() ? access->needed : std::map<std::string, acl::Permission, std::less<>>{};
  };
  using Needed = std::map<std::string, acl::Permission, std::less<>>;
  v2::SendMessageRequest send;
  send.add_messages()->mutable_topic()->set_name("Orders");
  EXPECT_EQ(needs(send), (Needed{{"Orders", acl::kPub}}));
  v2::ReceiveMessageRequest receive;
  receive.mutable_group()->set_name("G");
  receive.mutable_message_queue()->mutable_topic()->set_name("Orders");
  EXPECT_EQ(needs(receive), (Needed{{"%RETRY%G", acl::kSub}, {"Orders", acl::kSub}}));
  v2::QueryRouteRequest route;
  route.mutable_topic()->set_name("Orders");
  route.mutable_topic()->set_resource_namespace("ns");
  EXPECT_EQ(needs(route), (Needed{{"ns%Orders", acl::kAny}}));
  v2::EndTransactionRequest end;
  end.mutable_topic()->set_name("Orders");
  EXPECT_EQ(needs(end), (Needed{{"Orders", acl::kPub}}));
  v2::HeartbeatRequest producer;
  producer.set_client_type(v2::PRODUCER);
  EXPECT_TRUE(needs(producer).empty());
  v2::NotifyClientTerminationRequest leaving;
  EXPECT_TRUE(needs(leaving).empty());
  v2::TelemetryCommand settings;
  settings.mutable_settings()->mutable_publishing()->add_topics()->set_name("Orders");
  EXPECT_EQ(needs(settings), (Needed{{"Orders", acl::kPub}}));
  // A client's settings publish or subscribe (one of the two).
  settings.mutable_settings()->mutable_subscription()->mutable_group()->set_name("G");
  settings.mutable_settings()->mutable_subscription()->add_subscriptions()->mutable_topic()->set_name("Audit");
  EXPECT_EQ(needs(settings), (Needed{{"%RETRY%G", acl::kSub}, {"Audit", acl::kSub}}));

  v2::HeartbeatRequest consumer;
  consumer.set_client_type(v2::SIMPLE_CONSUMER);
  EXPECT_EQ(access_needs(consumer).status().message(), "a consumer's heartbeat names no group");
  v2::TelemetryCommand empty_settings;
  empty_settings.mutable_settings();
  EXPECT_EQ(access_needs(empty_settings).status().message(), "the settings name neither publishing nor subscription");
}

class GrpcAccessCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "acl.toml") << R"(global_white_remote_addresses = ["10.0.0.*"]

[[accounts]]
access_key = "producer1"
secret_key = "secret-p1"
default_topic_perm = "DENY"
topic_perms = ["Orders=PUB"]

[[accounts]]
access_key = "trusted1"
secret_key = "secret-t1"
white_remote_address = "192.168.1.*"
)";
    auto loaded = acl::AccessControl::load(dir_ / "acl.toml");
    ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
    control_ = *loaded;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  plugin::v1::Status check(const Headers& headers, std::string_view topic, std::string_view peer = "127.0.0.1:5000") {
    v2::SendMessageRequest send;
    send.add_messages()->mutable_topic()->set_name(std::string(topic));
    return check_call(*control_, headers.metadata(), peer, send);
  }

  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("grpc-access-" + std::to_string(::getpid()));
  std::shared_ptr<acl::AccessControl> control_;
};

TEST_F(GrpcAccessCheckTest, SignedCallsWithThePermissionPass) {
  EXPECT_TRUE(check(Headers().signed_by("producer1", "secret-p1"), "Orders").is_ok());
  const auto refused = check(Headers().signed_by("producer1", "secret-p1"), "Payments");
  EXPECT_EQ(refused.message(), "AccessKey producer1 has no PUB permission on topic Payments (it has DENY)");
}

TEST_F(GrpcAccessCheckTest, UnsignedUnknownAndForgedCallsAreRefused) {
  EXPECT_NE(check(Headers(), "Orders").message().find("carries no AccessKey: this proxy checks ACL"), std::string::npos);
  EXPECT_EQ(check(Headers().signed_by("nobody12", "secret-p1"), "Orders").message(), "no account has AccessKey nobody12");
  EXPECT_TRUE(check(Headers().signed_by("producer1", "secret-xx"), "Orders")
                  .message()
                  .starts_with("signature check failed for AccessKey producer1"));
  // A signature of another date-time does not pass either.
  Headers replayed;
  replayed.add("x-mq-date-time", "20261201T130723Z")
      .add("authorization", *authorization_header("producer1", "secret-p1", kDateTime));
  EXPECT_TRUE(check(replayed, "Orders").message().starts_with("signature check failed"));
}

TEST_F(GrpcAccessCheckTest, WhiteAddressesNeedNoSignature) {
  EXPECT_TRUE(check(Headers(), "Payments", "10.0.0.7:4000").is_ok());
  Headers unsigned_trusted;
  unsigned_trusted.add("x-mq-date-time", std::string(kDateTime))
      .add("authorization", "MQv2-HMAC-SHA1 Credential=trusted1, SignedHeaders=x-mq-date-time, Signature=00");
  EXPECT_TRUE(check(unsigned_trusted, "Payments", "192.168.1.20:4000").is_ok());
  EXPECT_FALSE(check(unsigned_trusted, "Payments", "192.168.2.20:4000").is_ok());
}

}  // namespace
}  // namespace mqkit::proxy
