#include "messaging_service.hpp"

#include <gtest/gtest.h>

namespace mqkit::proxy {
namespace {

// What needs no cluster: the settings exchange and refusals decided before any broker is asked.
class MessagingServiceTest : public ::testing::Test {
 protected:
  ProxySettings settings_{};
  MessagingService service_{settings_, nullptr};
};

TEST_F(MessagingServiceTest, ProducersGetTheProxysRetryPolicyAndLimits) {
  v2::Settings client;
  client.set_client_type(v2::PRODUCER);
  client.mutable_request_timeout()->set_seconds(3);
  client.mutable_publishing()->add_topics()->set_name("TopicA");
  client.mutable_backoff_policy()->set_max_attempts(9);
  const auto reply = service_.settings_reply(client);
  EXPECT_EQ(reply.status().code(), v2::OK);
  ASSERT_TRUE(reply.has_settings());
  const auto& s = reply.settings();
  EXPECT_EQ(s.client_type(), v2::PRODUCER);
  EXPECT_EQ(s.request_timeout().seconds(), 3);
  EXPECT_EQ(s.backoff_policy().max_attempts(), 3);
  ASSERT_TRUE(s.backoff_policy().has_exponential_backoff());  // what RocketMQ's clients require
  EXPECT_EQ(s.backoff_policy().exponential_backoff().initial().nanos(), 10'000'000);
  EXPECT_EQ(s.backoff_policy().exponential_backoff().max().seconds(), 1);
  EXPECT_FLOAT_EQ(s.backoff_policy().exponential_backoff().multiplier(), 2.0F);
  EXPECT_EQ(s.publishing().topics_size(), 1);
  EXPECT_EQ(s.publishing().max_body_size(), 4 * 1024 * 1024);
  EXPECT_TRUE(s.publishing().validate_message_type());
}

TEST_F(MessagingServiceTest, ConsumersGetTheirGroupsOrderAndDeliveryAttempts) {
  v2::Settings client;
  client.set_client_type(v2::SIMPLE_CONSUMER);
  client.mutable_subscription()->mutable_group()->set_name("G");
  const auto reply = service_.settings_reply(client, GroupView{.fifo = true, .max_delivery_attempts = 4});
  EXPECT_EQ(reply.status().code(), v2::OK);
  ASSERT_TRUE(reply.settings().has_subscription());
  EXPECT_TRUE(reply.settings().subscription().fifo());
  EXPECT_EQ(reply.settings().subscription().group().name(), "G");
  EXPECT_EQ(reply.settings().subscription().receive_batch_size(), 32);
  EXPECT_EQ(reply.settings().backoff_policy().max_attempts(), 4);
  EXPECT_TRUE(reply.settings().backoff_policy().has_exponential_backoff());

  v2::Settings unknown;
  EXPECT_EQ(service_.settings_reply(unknown).status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
}

TEST_F(MessagingServiceTest, HeartbeatsNeedAClientIdAndType) {
  grpc::ServerContext context;
  v2::HeartbeatRequest request;
  request.set_client_type(v2::PRODUCER);
  v2::HeartbeatResponse response;
  ASSERT_TRUE(service_.Heartbeat(&context, &request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::CLIENT_ID_REQUIRED);
}

TEST_F(MessagingServiceTest, MalformedSendsAreRefusedBeforeAnyBrokerIsAsked) {
  grpc::ServerContext context;
  v2::SendMessageRequest request;
  v2::SendMessageResponse response;
  ASSERT_TRUE(service_.SendMessage(&context, &request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::MESSAGE_CORRUPTED);
  EXPECT_EQ(response.entries_size(), 0);
}

TEST_F(MessagingServiceTest, RoutesNeedAValidTopicAndEndpoints) {
  grpc::ServerContext context;
  v2::QueryRouteRequest request;
  request.mutable_topic()->set_name("bad topic");
  v2::QueryRouteResponse response;
  ASSERT_TRUE(service_.QueryRoute(&context, &request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::ILLEGAL_TOPIC);
  request.mutable_topic()->set_name("TopicA");
  ASSERT_TRUE(service_.QueryRoute(&context, &request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::ILLEGAL_ACCESS_POINT);
}

}  // namespace
}  // namespace mqkit::proxy
