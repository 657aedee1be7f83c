// Request-reply in the SDK: the pending-request table (matching, expiry, no leak), reply
// creation, the pushed reply's decoding, and Producer::request against a fake broker that plays
// the push.
#include "mqkit/client/request_reply.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>
#include <thread>

#include "mqkit/client/compression.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/request_reply.hpp"
#include "outgoing_message.hpp"
#include "pending_requests.hpp"
#include "reply_receiver.hpp"
#include "request_message.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;
namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using std::chrono::milliseconds;
using testing::FakeCluster;
using Clock = PendingRequests::Clock;

// ---- PendingRequests -----------------------------------------------------------------------

struct Recorded {
  std::vector<Result<MessageExt>> results;
  RequestCallback callback() {
    return [this](Result<MessageExt> r) { results.push_back(std::move(r)); };
  }
};

MessageExt reply_with_body(std::string body) {
  MessageExt m;
  m.set_body(std::move(body));
  return m;
}

TEST(PendingRequestsTest, AReplyGoesToTheRequestWithItsCorrelationIdOnce) {
  PendingRequests pending;
  Recorded a, b;
  const auto now = Clock::now();
  ASSERT_TRUE(pending.add("id-a", "T", now, milliseconds(3000), a.callback()).is_ok());
  ASSERT_TRUE(pending.add("id-b", "T", now, milliseconds(3000), b.callback()).is_ok());
  EXPECT_EQ(pending.add("id-a", "T", now, milliseconds(3000), a.callback()).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(pending.complete("id-b", reply_with_body("for b")));
  EXPECT_TRUE(a.results.empty());
  ASSERT_EQ(b.results.size(), 1u);
  ASSERT_TRUE(b.results[0].is_ok());
  EXPECT_EQ(b.results[0]->body(), "for b");
  // A second reply to the same request, or one nobody asked for, finds no one.
  EXPECT_FALSE(pending.complete("id-b", reply_with_body("again")));
  EXPECT_FALSE(pending.complete("id-unknown", reply_with_body("?")));
  EXPECT_EQ(b.results.size(), 1u);
  EXPECT_EQ(pending.size(), 1u);
}

TEST(PendingRequestsTest, ExpiryEndsOnlyRequestsPastTheirDeadlineWithTheTimeoutError) {
  PendingRequests pending;
  Recorded early, late;
  const auto start = Clock::now();
  ASSERT_TRUE(pending.add("early", "TopicA", start, milliseconds(100), early.callback()).is_ok());
  ASSERT_TRUE(pending.add("late", "TopicB", start, milliseconds(5000), late.callback()).is_ok());
  EXPECT_EQ(pending.expire(start + milliseconds(99)), 0u);
  EXPECT_EQ(pending.expire(start + milliseconds(100)), 1u);
  ASSERT_EQ(early.results.size(), 1u);
  EXPECT_EQ(early.results[0].status().code(), StatusCode::kTimeout);
  EXPECT_EQ(early.results[0].status().message(), "request timeout, no reply message after 100 ms (request to <TopicA>)");
  EXPECT_TRUE(late.results.empty());
  EXPECT_EQ(pending.size(), 1u);
  // Its reply, late, is dropped.
  EXPECT_FALSE(pending.complete("early", reply_with_body("late")));
  EXPECT_EQ(pending.expire(start + milliseconds(5000)), 1u);
  EXPECT_EQ(pending.size(), 0u);  // nothing left behind
}

TEST(PendingRequestsTest, FailTimeOutForgetAndFailAllEndRequests) {
  PendingRequests pending;
  Recorded failed, timed_out, forgotten, abandoned;
  const auto now = Clock::now();
  ASSERT_TRUE(pending.add("f", "T", now, milliseconds(1000), failed.callback()).is_ok());
  ASSERT_TRUE(pending.add("t", "T", now, milliseconds(250), timed_out.callback()).is_ok());
  ASSERT_TRUE(pending.add("g", "T", now, milliseconds(1000), forgotten.callback()).is_ok());
  ASSERT_TRUE(pending.add("a", "T", now, milliseconds(1000), abandoned.callback()).is_ok());
  EXPECT_TRUE(pending.fail("f", Status::unavailable("broker gone")));
  EXPECT_FALSE(pending.fail("f", Status::unavailable("again")));
  EXPECT_TRUE(pending.time_out("t"));
  EXPECT_TRUE(pending.forget("g"));
  EXPECT_EQ(pending.fail_all(Status::unavailable("shut down")), 1u);
  ASSERT_EQ(failed.results.size(), 1u);
  EXPECT_EQ(failed.results[0].status().message(), "broker gone");
  ASSERT_EQ(timed_out.results.size(), 1u);
  EXPECT_EQ(timed_out.results[0].status().message(), "request timeout, no reply message after 250 ms (request to <T>)");
  EXPECT_TRUE(forgotten.results.empty());
  ASSERT_EQ(abandoned.results.size(), 1u);
  EXPECT_EQ(abandoned.results[0].status().message(), "shut down");
  EXPECT_EQ(pending.size(), 0u);
}

TEST(PendingRequestsTest, ACallbackThatThrowsDoesNotEscape) {
  PendingRequests pending;
  ASSERT_TRUE(pending.add("x", "T", Clock::now(), milliseconds(10),
                          [](Result<MessageExt>) { throw std::runtime_error("application bug"); })
                  .is_ok());
  EXPECT_NO_THROW(EXPECT_TRUE(pending.complete("x", reply_with_body(""))));
}

// ---- Request and reply messages -------------------------------------------------------------

TEST(RequestMessageTest, CorrelationIdsAreUniqueVersion4Uuids) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_correlation_id();
    ASSERT_EQ(id.size(), 36u) << id;
    EXPECT_EQ(id[8], '-');
    EXPECT_EQ(id[14], '4');
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(RequestMessageTest, ARequestCarriesItsCorrelationIdClientAndTtl) {
  Message m("T", "ping");
  const std::string id = tag_request(m, "10.0.0.9@requester", milliseconds(3000));
  EXPECT_EQ(m.property("CORRELATION_ID"), id);
  EXPECT_EQ(m.property("REPLY_TO_CLIENT"), "10.0.0.9@requester");
  EXPECT_EQ(m.property("TTL"), "3000");
}

MessageExt stored_request() {
  MessageExt request;
  request.set_topic("RequestTopic");
  request.set_body("ping");
  request.set_property("CLUSTER", "DefaultCluster");
  request.set_property("CORRELATION_ID", "corr-9");
  request.set_property("REPLY_TO_CLIENT", "10.0.0.9@requester");
  request.set_property("TTL", "3000");
  request.set_property("UNIQ_KEY", "AC11000100002A9F0000000000000001");
  return request;
}

TEST(CreateReplyMessageTest, ReplyGoesToTheClustersReplyTopicWithTheRequestsIds) {
  auto reply = create_reply_message(stored_request(), "pong");
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->topic(), "DefaultCluster_REPLY_TOPIC");
  EXPECT_EQ(reply->body(), "pong");
  EXPECT_EQ(reply->properties(), (Message::PropertyMap{{"CORRELATION_ID", "corr-9"},
                                                       {"MSG_TYPE", "reply"},
                                                       {"REPLY_TO_CLIENT", "10.0.0.9@requester"},
                                                       {"TTL", "3000"}}));
}

TEST(CreateReplyMessageTest, ARequestWithoutItsPropertiesNamesTheMissingOne) {
  for (const char* missing : {"CLUSTER", "REPLY_TO_CLIENT", "CORRELATION_ID"}) {
    MessageExt request = stored_request();
    request.clear_property(missing);
    auto reply = create_reply_message(request, "pong");
    ASSERT_FALSE(reply.is_ok()) << missing;
    EXPECT_EQ(reply.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(reply.status().message().find(std::string("property[") + missing + "] is null"), std::string::npos)
        << reply.status().message();
  }
  MessageExt without_ttl = stored_request();
  without_ttl.clear_property("TTL");
  auto reply = create_reply_message(without_ttl, "pong");
  ASSERT_TRUE(reply.is_ok());
  EXPECT_FALSE(reply->property("TTL").has_value());
}

TEST(CreateReplyMessageTest, RepliesNeverTravelInABatch) {
  ProducerConfig config;
  auto reply = create_reply_message(stored_request(), "pong");
  ASSERT_TRUE(reply.is_ok());
  auto prepared = prepare_message(*reply, config);
  ASSERT_TRUE(prepared.is_ok()) << prepared.status().to_string();
  EXPECT_FALSE(prepared->batchable);
  EXPECT_TRUE(prepare_message(Message("T", "plain"), config)->batchable);
  EXPECT_EQ(prepare_batch({*reply}, config).status().code(), StatusCode::kInvalidArgument);
}

// ---- The pushed reply ------------------------------------------------------------------------

RemotingCommand push_of(const std::string& correlation_id, std::string body, std::int32_t sys_flag = 0,
                        const std::string& topic = "DefaultCluster_REPLY_TOPIC") {
  protocol::reply::ReplyMessageHeader h;
  h.producer_group = "REPLY_PG";
  h.topic = topic;
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.sys_flag = sys_flag;
  h.born_timestamp = 1'700'000'000'000;
  h.flag = 3;
  h.properties = v1::encode_properties({{"CORRELATION_ID", correlation_id},
                                        {"MSG_TYPE", "reply"},
                                        {"PUSH_REPLY_TIME", "1700000000500"},
                                        {"REPLY_TO_CLIENT", "10.0.0.9@requester"}});
  h.reconsume_times = 1;
  h.born_host = "/10.0.0.7:51000";
  h.store_host = "/10.0.0.1:10911";
  h.store_timestamp = 1'700'000'000'400;
  auto push = RemotingCommand::request(rq::kPushReplyMessageToClient);
  protocol::reply::write(h, push.ext_fields);
  push.body.assign(body.begin(), body.end());
  return push;
}

TEST(ReplyReceiverTest, APushBecomesTheReplyMessage) {
  auto reply = reply_from_push(push_of("corr-1", "pong"), 1'700'000'000'600);
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->topic(), "DefaultCluster_REPLY_TOPIC");
  EXPECT_EQ(reply->body(), "pong");
  EXPECT_EQ(reply->flag(), 3);
  EXPECT_EQ(reply->born_host, "10.0.0.7:51000");
  EXPECT_EQ(reply->store_host, "10.0.0.1:10911");
  EXPECT_EQ(reply->born_timestamp, 1'700'000'000'000);
  EXPECT_EQ(reply->store_timestamp, 1'700'000'000'400);
  EXPECT_EQ(reply->reconsume_times, 1);
  EXPECT_EQ(reply->property("CORRELATION_ID"), "corr-1");
  EXPECT_EQ(reply->property("PUSH_REPLY_TIME"), "1700000000500");
  EXPECT_EQ(reply->property("ARRIVE_TIME"), "1700000000600");
}

TEST(ReplyReceiverTest, ACompressedBodyIsInflatedAsItsSysFlagSays) {
  const std::string body(4096, 'z');
  auto compressed = zlib_compress(body, 5);
  ASSERT_TRUE(compressed.is_ok());
  auto reply = reply_from_push(push_of("c", *compressed, v1::sys_flag::kCompressed), 0);
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->body(), body);
  EXPECT_EQ(reply->sys_flag & v1::sys_flag::kCompressed, 0);
  // Not compressed: left as it came.
  reply = reply_from_push(push_of("c", *compressed), 0);
  ASSERT_TRUE(reply.is_ok());
  EXPECT_EQ(reply->body(), *compressed);
}

TEST(ReplyReceiverTest, AnIncompletePushIsNamed) {
  RemotingCommand push = push_of("c", "x");
  RemotingCommand partial = RemotingCommand::request(push.code);
  for (const auto& [name, value] : push.ext_fields) {
    if (name != "storeHost") partial.ext_fields.set(name, value);
  }
  EXPECT_EQ(reply_from_push(partial, 0).status().message(), "the custom field <storeHost> is null");
}

// ---- Producer::request over the fake cluster -------------------------------------------------

class ProducerRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.add_broker("broker-a", kBroker);
    cluster_.add_topic("RequestTopic", "broker-a", 2);
    cluster_.add_topic("DefaultCluster_REPLY_TOPIC", "broker-a", 1);
    config_.group = "REQUESTER_PG";
    config_.client.namesrv_addresses = {FakeCluster::kNamesrv};
    config_.client.client_ip = "10.0.0.9";
    config_.client.instance_name = "requester";
    config_.client.plugin_dirs = {MQKIT_PLUGIN_DIR};
    config_.client.fault_strategy = {"none"};
    auto instance = ClientInstance::create(config_.client, cluster_.transport());
    ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
    instance_ = *instance;
    producer_ = std::make_unique<Producer>(config_, instance_);
    ASSERT_TRUE(producer_->start().is_ok());
  }
  void TearDown() override { producer_->shutdown(); }

  // The request the broker stored last, once it has one.
  std::optional<Message::PropertyMap> stored_request_properties(const std::string& topic = "RequestTopic") {
    for (int i = 0; i < 500; ++i) {
      const auto stored = cluster_.stored();
      for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
        if (it->topic == topic) {
          return decode_property_map(it->request.ext_fields.get("i").value_or(""));
        }
      }
      std::this_thread::sleep_for(milliseconds(5));
    }
    return std::nullopt;
  }
  // What the broker does with a reply: pushes it to the requester's connection.
  void push_reply(const std::string& correlation_id, const std::string& body) {
    cluster_.transport()->deliver_request(kBroker, push_of(correlation_id, body));
  }

  static constexpr const char* kBroker = "10.0.0.1:10911";
  FakeCluster cluster_;
  ProducerConfig config_;
  std::shared_ptr<ClientInstance> instance_;
  std::unique_ptr<Producer> producer_;
};

TEST_F(ProducerRequestTest, RequestReturnsTheReplyPushedForItsCorrelationId) {
  std::thread broker([&] {
    const auto request = stored_request_properties();
    if (!request) return;
    push_reply("someone-else", "not mine");
    push_reply(request->at("CORRELATION_ID"), "pong");
  });
  auto reply = producer_->request(Message("RequestTopic", "ping"), milliseconds(5000));
  broker.join();
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->body(), "pong");
  const auto request = stored_request_properties();
  ASSERT_TRUE(request);
  EXPECT_EQ(request->at("REPLY_TO_CLIENT"), instance_->client_id());
  EXPECT_EQ(request->at("TTL"), "5000");
  EXPECT_EQ(request->at("CORRELATION_ID").size(), 36u);
  // The broker's pushes were answered SUCCESS, the unmatched one included (RocketMQ does so).
  const auto answers = cluster_.transport()->client_responses();
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& answer : answers) EXPECT_EQ(answer.code, rc::kSuccess);
  EXPECT_EQ(instance_->pending_requests()->size(), 0u);
}

// With a namespace the request goes to ns1%RequestTopic, and the reply, which the responder (of the
// same namespace) sent to ns1%DefaultCluster_REPLY_TOPIC, comes back named without it.
TEST_F(ProducerRequestTest, ANamespacedRequestGoesToTheWrappedTopicAndItsReplyComesBackUnwrapped) {
  cluster_.add_topic("ns1%RequestTopic", "broker-a", 2);
  ProducerConfig namespaced = config_;
  namespaced.group = "NS_REQUESTER_PG";
  namespaced.client.name_space = "ns1";
  Producer producer(namespaced, instance_);
  ASSERT_TRUE(producer.start().is_ok());
  std::thread broker([&] {
    const auto request = stored_request_properties("ns1%RequestTopic");
    if (!request) return;
    cluster_.transport()->deliver_request(
        kBroker, push_of(request->at("CORRELATION_ID"), "pong", 0, "ns1%DefaultCluster_REPLY_TOPIC"));
  });
  auto reply = producer.request(Message("RequestTopic", "ping"), milliseconds(5000));
  broker.join();
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->body(), "pong");
  EXPECT_EQ(reply->topic(), "DefaultCluster_REPLY_TOPIC");
  producer.shutdown();
}

TEST_F(ProducerRequestTest, NoReplyIsAClearTimeoutAndLeavesNothingWaiting) {
  const auto started = std::chrono::steady_clock::now();
  auto reply = producer_->request(Message("RequestTopic", "ping"), milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kTimeout);
  EXPECT_EQ(reply.status().message(), "request timeout, no reply message after 300 ms (request to <RequestTopic>)");
  EXPECT_GE(took, milliseconds(300));
  EXPECT_LT(took, milliseconds(2000));
  EXPECT_EQ(instance_->pending_requests()->size(), 0u);
  // The reply arriving now is dropped, and the broker still gets its answer.
  const auto request = stored_request_properties();
  ASSERT_TRUE(request);
  push_reply(request->at("CORRELATION_ID"), "too late");
  ASSERT_EQ(cluster_.transport()->client_responses().size(), 1u);
  EXPECT_EQ(cluster_.transport()->client_responses()[0].code, rc::kSuccess);
}

TEST_F(ProducerRequestTest, AsyncRequestCallsBackWithTheReplyOrItsTimeout) {
  std::promise<Result<MessageExt>> answered;
  ASSERT_TRUE(producer_
                  ->request_async(Message("RequestTopic", "ping"),
                                  [&](Result<MessageExt> r) { answered.set_value(std::move(r)); }, milliseconds(5000))
                  .is_ok());
  const auto request = stored_request_properties();
  ASSERT_TRUE(request);
  push_reply(request->at("CORRELATION_ID"), "async pong");
  auto reply = answered.get_future().get();
  ASSERT_TRUE(reply.is_ok()) << reply.status().to_string();
  EXPECT_EQ(reply->body(), "async pong");

  // No reply: the instance's expiry ends it within about a second past its deadline.
  std::promise<Result<MessageExt>> expired;
  ASSERT_TRUE(producer_
                  ->request_async(Message("RequestTopic", "ping"),
                                  [&](Result<MessageExt> r) { expired.set_value(std::move(r)); }, milliseconds(100))
                  .is_ok());
  auto future = expired.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(future.get().status().code(), StatusCode::kTimeout);
  EXPECT_EQ(instance_->pending_requests()->size(), 0u);
}

TEST_F(ProducerRequestTest, AFailedSendEndsTheRequestAtOnceWithTheSendsError) {
  cluster_.set_send_code("broker-a", rc::kNoPermission);
  const auto started = std::chrono::steady_clock::now();
  auto reply = producer_->request(Message("RequestTopic", "ping"), milliseconds(5000));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_TRUE(reply.status().message().starts_with("send request message to <RequestTopic> fail: "))
      << reply.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(4000));
  EXPECT_EQ(instance_->pending_requests()->size(), 0u);
}

TEST_F(ProducerRequestTest, ARequestGoesToTheQueueItNames) {
  SendOptions options;
  options.queue = MessageQueue{"RequestTopic", "broker-a", 1};
  std::promise<Result<MessageExt>> answered;
  ASSERT_TRUE(producer_
                  ->request_async(Message("RequestTopic", "ping"),
                                  [&](Result<MessageExt> r) { answered.set_value(std::move(r)); }, milliseconds(5000),
                                  options)
                  .is_ok());
  const auto request = stored_request_properties();
  ASSERT_TRUE(request);
  ASSERT_EQ(cluster_.stored().back().queue_id, 1);
  push_reply(request->at("CORRELATION_ID"), "pong");
  EXPECT_TRUE(answered.get_future().get().is_ok());
}

TEST_F(ProducerRequestTest, BadArgumentsAreRefusedBeforeAnythingIsSent) {
  SendOptions with_timeout;
  with_timeout.timeout = milliseconds(10);
  EXPECT_EQ(producer_->request(Message("RequestTopic", "ping"), milliseconds(1000), with_timeout).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(producer_->request(Message("RequestTopic", "ping"), milliseconds(0)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(producer_->request_async(Message("RequestTopic", "ping"), nullptr, milliseconds(1000)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(producer_->request(Message("", "ping"), milliseconds(1000)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(cluster_.stored().empty());
  EXPECT_EQ(instance_->pending_requests()->size(), 0u);
}

TEST_F(ProducerRequestTest, RepliesAreSentWithSendReplyMessageV2) {
  auto reply = create_reply_message(stored_request(), "pong");
  ASSERT_TRUE(reply.is_ok());
  auto sent = producer_->send(std::move(*reply));
  ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  const auto replies = cluster_.transport()->calls_with_code(rq::kSendReplyMessageV2);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].request.ext_fields.get("b"), "DefaultCluster_REPLY_TOPIC");
  EXPECT_TRUE(cluster_.transport()->calls_with_code(rq::kSendMessageV2).empty());
}

}  // namespace
}  // namespace mqkit::client
