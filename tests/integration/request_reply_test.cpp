// Request-reply end to end: a real mqnamesrv and mqbroker, a requester (Producer::request) and a
// responder (a push consumer replying with create_reply_message through its own producer), each
// with a client id of its own, as separate programs would be. The broker pushes each reply to the
// requester's connection and stores it in DefaultCluster_REPLY_TOPIC. Every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "child_process.hpp"
#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/client/request_reply.hpp"

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;

constexpr const char* kRequestTopic = "RequestTopic";
constexpr const char* kSilentTopic = "NobodyAnswersTopic";
constexpr const char* kReplyTopic = "DefaultCluster_REPLY_TOPIC";

class RequestReplyIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = "memory"}).is_ok());
    requester_ = std::make_unique<Producer>(producer_config("requester_pg", "requester"));
    ASSERT_TRUE(requester_->start().is_ok());
    auto& api = requester_->instance()->api();
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api, *cluster_, 1, kRequestTopic, 2).is_ok());
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api, *cluster_, 1, kSilentTopic, 1).is_ok());
  }

  void TearDown() override {
    if (responder_) responder_->shutdown();
    responder_.reset();
    reply_producer_.reset();
    requester_.reset();
    cluster_.reset();
  }

  ProducerConfig producer_config(const std::string& group, const std::string& instance) const {
    ProducerConfig config;
    config.group = group;
    config.client = mqkit::testing::fast_client_config(*cluster_);
    config.client.instance_name = instance;
    return config;
  }

  // A push consumer of kRequestTopic answering "reply to <body>" to every request.
  void start_responder() {
    reply_producer_ = std::make_unique<Producer>(producer_config("responder_pg", "responder"));
    ASSERT_TRUE(reply_producer_->start().is_ok());
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, "responder_cg");
    config.client.instance_name = "responder";
    responder_ = std::make_unique<PushConsumer>(config);
    ASSERT_TRUE(responder_->subscribe(kRequestTopic, MessageSelector::by_tag("*")).is_ok());
    ASSERT_TRUE(responder_
                    ->register_listener([this](std::span<const MessageExt> requests, ConsumeConcurrentlyContext&) {
                      for (const MessageExt& request : requests) {
                        auto reply = create_reply_message(request, "reply to " + request.body());
                        if (!reply || !reply_producer_->send(std::move(*reply))) ++reply_failures_;
                      }
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    ASSERT_TRUE(responder_->start().is_ok());
  }

  Result<std::int64_t> stored_replies() {
    return requester_->instance()->api().get_max_offset(cluster_->broker_addr(0),
                                                        MessageQueue{kReplyTopic, "broker-a", 0});
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> requester_;
  std::unique_ptr<Producer> reply_producer_;
  std::unique_ptr<PushConsumer> responder_;
  std::atomic<int> reply_failures_{0};
};

TEST_F(RequestReplyIntegrationTest, TheRequesterGetsTheReplyAPushConsumerSends) {
  start_responder();
  ASSERT_NE(requester_->instance()->client_id(), reply_producer_->instance()->client_id());
  // The first request also waits for the responder's first rebalance.
  for (int i = 0; i < 3; ++i) {
    const std::string body = "ping " + std::to_string(i);
    auto reply = requester_->request(Message(kRequestTopic, body), milliseconds(i == 0 ? 30000 : 10000));
    ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
    EXPECT_EQ(reply->body(), "reply to " + body);
    EXPECT_EQ(reply->topic(), kReplyTopic);
    EXPECT_EQ(reply->property("MSG_TYPE"), "reply");
    EXPECT_EQ(reply->property("REPLY_TO_CLIENT"), requester_->instance()->client_id());
    EXPECT_TRUE(reply->property("PUSH_REPLY_TIME").has_value());
    EXPECT_TRUE(reply->property("ARRIVE_TIME").has_value());
  }

  std::promise<Result<MessageExt>> answered;
  ASSERT_TRUE(requester_
                  ->request_async(Message(kRequestTopic, "async ping"),
                                  [&](Result<MessageExt> reply) { answered.set_value(std::move(reply)); },
                                  milliseconds(10000))
                  .is_ok());
  auto future = answered.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(15)), std::future_status::ready);
  auto reply = future.get();
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->body(), "reply to async ping");
  EXPECT_EQ(reply_failures_.load(), 0);

  // store_reply_message_enable is on by default: every reply is in the cluster's reply topic.
  // The broker pushes and stores a reply at once, so the last one may reach the requester before
  // its append completes.
  Result<std::int64_t> stored = stored_replies();
  EXPECT_TRUE(mqkit::testing::eventually([&] {
    stored = stored_replies();
    return stored.is_ok() && *stored == 4;
  }, std::chrono::seconds(10)));
  ASSERT_TRUE(stored.is_ok()) << stored.status().to_string();
  EXPECT_EQ(*stored, 4);
}

TEST_F(RequestReplyIntegrationTest, ARequestNobodyAnswersTimesOutWithAClearError) {
  const auto started = std::chrono::steady_clock::now();
  auto reply = requester_->request(Message(kSilentTopic, "anyone?"), milliseconds(1500));
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kTimeout);
  EXPECT_EQ(reply.status().message(),
            std::string("request timeout, no reply message after 1500 ms (request to <") + kSilentTopic + ">)");
  EXPECT_GE(took, milliseconds(1500));
  EXPECT_LT(took, milliseconds(10000));
  auto stored = stored_replies();
  ASSERT_TRUE(stored.is_ok()) << stored.status().to_string();
  EXPECT_EQ(*stored, 0);
}

}  // namespace
}  // namespace mqkit::client
