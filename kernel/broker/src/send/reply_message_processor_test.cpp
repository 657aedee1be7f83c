#include "mqkit/broker/send/reply_message_processor.hpp"

#include <gtest/gtest.h>

#include <set>

#include "mqkit/protocol/request_reply.hpp"
#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using testing::FakeChannel;
using testing::SendFixture;
using testing::SendRequest;

constexpr const char* kReplyTopic = "DefaultCluster_REPLY_TOPIC";
constexpr const char* kRequester = "127.0.0.1@requester";

std::string ext(const v1::RemotingCommand& c, std::string_view name) {
  return std::string(c.ext_fields.get(name).value_or("<absent>"));
}

// The requesting client's connection: records what the broker invokes on it and answers with
// `code`, or with a transport failure; while held, answers only when released.
class RequesterChannel final : public v1::Channel {
 public:
  std::uint64_t id() const noexcept override { return 7; }
  std::string remote_address() const noexcept override { return "127.0.0.1:60000"; }
  std::string local_address() const noexcept override { return "127.0.0.1:10911"; }
  bool is_open() const noexcept override { return true; }
  v1::Status send(v1::RemotingCommand) noexcept override { return v1::Status::ok(); }
  void close() noexcept override {}
  void invoke(v1::RemotingCommand request, std::chrono::milliseconds timeout,
              v1::ResponseCallback done) noexcept override {
    std::lock_guard lock(mutex_);
    invoked_.push_back(std::move(request));
    timeouts_.push_back(timeout);
    if (hold_) {
      held_.push_back(std::move(done));
      return;
    }
    answer(done);
  }

  void answer_with(std::int32_t code) { code_ = code; }
  void fail_invokes() { fail_ = true; }
  void hold() { hold_ = true; }
  void release() {
    std::vector<v1::ResponseCallback> held;
    {
      std::lock_guard lock(mutex_);
      held.swap(held_);
    }
    for (auto& done : held) answer(done);
  }
  std::vector<v1::RemotingCommand> invoked() const {
    std::lock_guard lock(mutex_);
    return invoked_;
  }
  std::vector<std::chrono::milliseconds> timeouts() const {
    std::lock_guard lock(mutex_);
    return timeouts_;
  }

 private:
  void answer(const v1::ResponseCallback& done) const {
    if (fail_) return done(v1::Status::timeout("no answer within 10000 ms"));
    v1::RemotingCommand response;
    response.code = code_;
    if (code_ != rc::kSuccess) response.remark = "process reply message fail";
    done(std::move(response));
  }

  mutable std::mutex mutex_;
  std::vector<v1::RemotingCommand> invoked_;
  std::vector<std::chrono::milliseconds> timeouts_;
  std::vector<v1::ResponseCallback> held_;
  std::int32_t code_ = rc::kSuccess;
  bool fail_ = false;
  bool hold_ = false;
};

// A reply as MessageUtil.createReplyMessage builds it, sent as SEND_REPLY_MESSAGE_V2.
SendRequest reply_request(std::string body = "pong") {
  SendRequest r;
  r.code = rq::kSendReplyMessageV2;
  r.topic = kReplyTopic;
  r.body = std::move(body);
  r.properties = {{"MSG_TYPE", "reply"},
                  {"CORRELATION_ID", "corr-1"},
                  {"REPLY_TO_CLIENT", kRequester},
                  {"TTL", "3000"},
                  {"UNIQ_KEY", "AC11000100002A9F0000000000000002"}};
  return r;
}

class ReplyMessageProcessorTest : public ::testing::Test {
 protected:
  explicit ReplyMessageProcessorTest(const std::string& broker_toml = "") : f_(broker_toml) {}

  void SetUp() override { connect_requester(); }

  void connect_requester() {
    f_.context().producers->register_producer("REQUESTER_PG", ClientConnection{requester_, kRequester});
  }

  // Runs `request` through the processor; the responder's answer, or code -1 when none came.
  v1::RemotingCommand call(const v1::RemotingCommand& request) {
    const std::size_t before = replier_->sent().size();
    processor_.process(request, Responder(replier_, request));
    if (!replier_->wait_for(before + 1)) {
      v1::RemotingCommand none;
      none.code = -1;
      return none;
    }
    return replier_->last();
  }
  v1::RemotingCommand call(const SendRequest& request) { return call(request.build()); }

  SendFixture f_;
  ReplyMessageProcessor processor_{f_.context()};
  std::shared_ptr<FakeChannel> replier_ = std::make_shared<FakeChannel>(3, "127.0.0.1:50000");
  std::shared_ptr<RequesterChannel> requester_ = std::make_shared<RequesterChannel>();
};

class ReplyNotStoredTest : public ReplyMessageProcessorTest {
 protected:
  ReplyNotStoredTest() : ReplyMessageProcessorTest("store_reply_message_enable = false") {}
};

TEST_F(ReplyMessageProcessorTest, AnswersTheReplyCodes) {
  const auto codes = processor_.codes();
  EXPECT_EQ(std::set<std::int32_t>(codes.begin(), codes.end()), (std::set<std::int32_t>{324, 325}));
}

TEST_F(ReplyMessageProcessorTest, TheClustersReplyTopicExistsFromTheStart) {
  const auto topic = f_.context().topics->find(kReplyTopic);
  ASSERT_TRUE(topic.has_value());
  EXPECT_EQ(topic->read_queue_nums, 1);
  EXPECT_EQ(topic->write_queue_nums, 1);
  EXPECT_EQ(topic->perm, 6);
}

TEST_F(ReplyMessageProcessorTest, RequestsAreStoredWithTheClusterTheResponderRepliesTo) {
  SendRequest request;
  request.properties.emplace_back("CORRELATION_ID", "corr-1");
  request.properties.emplace_back("REPLY_TO_CLIENT", kRequester);
  ASSERT_EQ(f_.send(request).code, rc::kSuccess);
  const auto stored = f_.read("T", 0, 0);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->property("CLUSTER"), "DefaultCluster");
  EXPECT_EQ(protocol::reply::reply_topic_of(*stored->property("CLUSTER")), kReplyTopic);
}

TEST_F(ReplyMessageProcessorTest, PushesTheReplyToTheRequesterAndStoresIt) {
  const auto response = call(reply_request());
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  EXPECT_FALSE(response.remark.has_value());

  const auto pushes = requester_->invoked();
  ASSERT_EQ(pushes.size(), 1u);
  const v1::RemotingCommand& push = pushes[0];
  EXPECT_EQ(push.code, rq::kPushReplyMessageToClient);
  EXPECT_EQ(requester_->timeouts()[0], kCallClientTimeout);
  auto header = protocol::reply::read_reply_message_header(push.ext_fields);
  ASSERT_TRUE(header.is_ok()) << header.status().to_string();
  EXPECT_EQ(header->producer_group, "PG");
  EXPECT_EQ(header->topic, kReplyTopic);
  EXPECT_EQ(header->born_timestamp, 1'700'000'000'000);
  EXPECT_EQ(header->born_host, "/127.0.0.1:50000");
  EXPECT_EQ(header->store_host, "/127.0.0.1:10911");
  EXPECT_GT(header->store_timestamp, 0);
  const auto properties = v1::decode_properties(header->properties);
  EXPECT_EQ(get_property(properties, "CORRELATION_ID"), "corr-1");
  EXPECT_EQ(get_property(properties, "REPLY_TO_CLIENT"), kRequester);
  EXPECT_EQ(get_property(properties, "PUSH_REPLY_TIME"), std::to_string(header->store_timestamp));
  std::string body;
  for (const auto& slice : push.body_slices) body.append(slice.bytes.begin(), slice.bytes.end());
  body.append(push.body.begin(), push.body.end());
  EXPECT_EQ(body, "pong");

  // Stored as the responder sent it, and the answer names the stored message.
  EXPECT_EQ(ext(response, "queueId"), "0");
  EXPECT_EQ(ext(response, "queueOffset"), "0");
  EXPECT_EQ(ext(response, "msgId").size(), 32u);
  const auto stored = f_.read(kReplyTopic, 0, 0);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->body(), "pong");
  EXPECT_EQ(v1::decode_properties(stored->view.properties), (v1::Properties{reply_request().properties}));
  EXPECT_EQ(ext(call(reply_request()), "queueOffset"), "1");
}

// RocketMQ counts a stored reply as a message in, in the reply topic.
TEST_F(ReplyMessageProcessorTest, StoredRepliesCountAsMessagesIn) {
  auto metrics = std::make_shared<BrokerMetrics>();
  f_.context().metrics = metrics;
  ASSERT_EQ(call(reply_request()).code, rc::kSuccess);
  const auto stored = f_.read(kReplyTopic, 0, 0);
  ASSERT_TRUE(stored);
  metrics::ExpositionWriter out;
  metrics->write(out);
  const std::string page = out.take();
  EXPECT_NE(page.find(std::string("rocketmq_messages_in_total{topic=\"") + kReplyTopic +
                      "\",message_type=\"normal\",is_system=\"false\"} 1\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(std::string("rocketmq_throughput_in_total{topic=\"") + kReplyTopic +
                      "\",message_type=\"normal\",is_system=\"false\"} " + std::to_string(stored->view.total_size)),
            std::string::npos)
      << page;
}

TEST_F(ReplyMessageProcessorTest, V1HeaderWorksLikeV2) {
  SendRequest request = reply_request("v1");
  request.code = rq::kSendReplyMessage;
  const auto response = call(request);
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  ASSERT_EQ(requester_->invoked().size(), 1u);
  const auto stored = f_.read(kReplyTopic, 0, 0);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->body(), "v1");
}

TEST_F(ReplyMessageProcessorTest, TheResponderIsAnsweredOnlyOnceThePushIsAnswered) {
  requester_->hold();
  const auto request = reply_request().build();
  processor_.process(request, Responder(replier_, request));
  ASSERT_TRUE(testing::eventually([&] { return requester_->invoked().size() == 1; }));
  EXPECT_FALSE(replier_->wait_for(1, std::chrono::milliseconds(100))) << "answered before the push was";
  requester_->release();
  ASSERT_TRUE(replier_->wait_for(1));
  EXPECT_EQ(replier_->last().code, rc::kSuccess);
}

TEST_F(ReplyMessageProcessorTest, NoConnectionOfTheRequesterIsASystemErrorButTheReplyIsStored) {
  f_.context().producers->on_channel_closed(requester_->id());
  const auto response = call(reply_request());
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, std::string("push reply message fail, channel of <") + kRequester + "> not found.");
  EXPECT_TRUE(f_.read(kReplyTopic, 0, 0).has_value());
}

TEST_F(ReplyMessageProcessorTest, AReplyWithoutReplyToClientIsASystemError) {
  SendRequest request = reply_request();
  std::erase_if(request.properties, [](const auto& p) { return p.first == "REPLY_TO_CLIENT"; });
  const auto response = call(request);
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, "reply message properties[REPLY_TO_CLIENT] is null");
  EXPECT_TRUE(requester_->invoked().empty());
}

TEST_F(ReplyMessageProcessorTest, ARefusedOrFailedPushIsASystemError) {
  requester_->answer_with(rc::kSystemError);
  auto response = call(reply_request());
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, std::string("push reply message to ") + kRequester + "fail.");
  requester_->fail_invokes();
  response = call(reply_request());
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, std::string("push reply message to ") + kRequester + "fail.");
}

TEST_F(ReplyMessageProcessorTest, BadHeadersAndTopicsAreRefusedLikeSends) {
  auto request = testing::without_field(reply_request().build(), "b");
  auto response = call(request);
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, "the custom field <b> is null");
  EXPECT_TRUE(requester_->invoked().empty());
  f_.context().config->broker_permission.set(4);
  response = call(reply_request());
  EXPECT_EQ(response.code, rc::kNoPermission);
  EXPECT_TRUE(requester_->invoked().empty());
}

TEST_F(ReplyNotStoredTest, PushedOnlyAndAnsweredWithZeroIds) {
  const auto response = call(reply_request());
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  EXPECT_EQ(ext(response, "msgId"), "0");
  EXPECT_EQ(ext(response, "queueOffset"), "0");
  EXPECT_EQ(ext(response, "queueId"), "0");
  EXPECT_EQ(ext(response, "MSG_REGION"), "DefaultRegion");
  EXPECT_EQ(requester_->invoked().size(), 1u);
  EXPECT_EQ(f_.context().store->max_offset(kReplyTopic, 0), 0);
}

TEST_F(ReplyNotStoredTest, ALiveUpdateTurnsStoringBackOn) {
  f_.context().config->store_reply_message_enable.set(true);
  ASSERT_EQ(call(reply_request()).code, rc::kSuccess);
  EXPECT_TRUE(f_.read(kReplyTopic, 0, 0).has_value());
}

}  // namespace
}  // namespace mqkit::broker
