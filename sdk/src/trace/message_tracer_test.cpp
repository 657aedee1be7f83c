#include "trace/message_tracer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "hook_calls.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client::trace {
namespace {

using std::chrono::milliseconds;

// A tracer whose trace messages are kept; records() decodes them after shutdown.
class TracerFixture : public ::testing::Test {
 protected:
  std::vector<TraceContext> records() {
    tracer_.shutdown();
    std::lock_guard lock(mutex_);
    auto decoded = decode_trace_data(bodies_);
    EXPECT_TRUE(decoded.is_ok()) << decoded.status().to_string();
    return decoded.is_ok() ? *decoded : std::vector<TraceContext>{};
  }

  std::mutex mutex_;
  std::string bodies_;
  std::vector<std::string> keys_;
  // Last: its thread uses the members above until it is shut down.
  MessageTracer tracer_{"G", "", [this](std::string body, std::vector<std::string> keys) {
                          std::lock_guard lock(mutex_);
                          bodies_ += body;
                          for (auto& key : keys) keys_.push_back(std::move(key));
                        }};
};

// An attempt of a 5-byte message, answered with `result` (null: no answer) after 20 ms.
SendHookContext attempt(std::string_view topic, const SendResult* result,
                        TraceMessageType type = TraceMessageType::kNormal) {
  SendHookContext sent;
  sent.producer_group = "G";
  sent.topic = topic;
  sent.tags = "TagA";
  sent.keys = "k1 k2";
  sent.body_size = 5;
  sent.message_type = type;
  sent.broker_address = "10.0.0.1:10911";
  sent.result = result;
  sent.took = milliseconds(20);
  return sent;
}

// What a push consumer's listener call does with one consume hook.
void consume_call(ConsumeHook& hook, std::span<const MessageExt> messages, bool success, ConsumeReturnType how,
                  milliseconds took) {
  const ConsumeHooks hooks{unowned_hook(hook)};
  ConsumeHookCalls calls(hooks, "G", MessageQueue{"Orders", "broker-a", 0}, messages);
  calls.after(success, how, took);
}

SendResult answered(SendStatus status = SendStatus::kSendOk) {
  return {.status = status, .msg_id = "UNIQ1", .offset_msg_id = "OFF1", .region_id = "DefaultRegion"};
}

TEST_F(TracerFixture, SendsBecomePubRecords) {
  EXPECT_EQ(tracer_.trace_topic(), "RMQ_SYS_TRACE_TOPIC");  // empty customized_trace_topic
  const SendResult ok = answered();
  const SendResult not_stored_ok = answered(SendStatus::kFlushDiskTimeout);
  tracer_.after_send(attempt("Orders", &ok));
  tracer_.after_send(attempt("Orders", &not_stored_ok, TraceMessageType::kTransactionHalf));
  tracer_.after_send(attempt("Orders", &ok, TraceMessageType::kDelay));
  // Not traced: trace messages themselves, sends the broker answered with TRACE_ON=false, and
  // attempts without an answer (failed, or one-way).
  tracer_.after_send(attempt("RMQ_SYS_TRACE_TOPIC", &ok));
  SendResult trace_off = answered();
  trace_off.trace_on = false;
  tracer_.after_send(attempt("Orders", &trace_off));
  SendHookContext failed = attempt("Orders", nullptr);
  failed.error = Status::unavailable("connection refused");
  tracer_.after_send(failed);

  const auto found = records();
  ASSERT_EQ(found.size(), 3u);
  const TraceContext& pub = found[0];
  EXPECT_EQ(pub.type, TraceType::kPub);
  EXPECT_EQ(pub.group, "G");
  EXPECT_EQ(pub.region_id, "DefaultRegion");
  EXPECT_TRUE(pub.success);
  EXPECT_GE(pub.cost_ms, 20);
  EXPECT_EQ(pub.beans[0].topic, "Orders");
  EXPECT_EQ(pub.beans[0].msg_id, "UNIQ1");
  EXPECT_EQ(pub.beans[0].offset_msg_id, "OFF1");
  EXPECT_EQ(pub.beans[0].tags, "TagA");
  EXPECT_EQ(pub.beans[0].keys, "k1 k2");
  EXPECT_EQ(pub.beans[0].store_host, "10.0.0.1:10911");
  EXPECT_EQ(pub.beans[0].body_length, 5);
  EXPECT_EQ(pub.beans[0].msg_type, TraceMessageType::kNormal);
  EXPECT_FALSE(found[1].success);  // stored, but not SEND_OK
  EXPECT_EQ(found[1].beans[0].msg_type, TraceMessageType::kTransactionHalf);
  EXPECT_EQ(found[2].beans[0].msg_type, TraceMessageType::kDelay);
  // The trace message is indexed under the message id and keys.
  EXPECT_EQ(keys_, (std::vector<std::string>{"UNIQ1", "k1", "k2"}));
}

TEST_F(TracerFixture, AListenerCallIsBetweenSubBeforeAndSubAfter) {
  MessageExt first;
  first.set_topic("Orders");
  first.set_property(std::string(plugin::v1::property::kUniqueKey), "ID1");
  first.set_keys("k1");
  first.reconsume_times = 2;
  MessageExt untraced = first;
  untraced.set_property(std::string(plugin::v1::property::kUniqueKey), "ID2");
  untraced.set_property("TRACE_ON", "false");
  MessageExt second = first;
  second.set_property(std::string(plugin::v1::property::kUniqueKey), "ID3");
  second.set_property("MSG_REGION", "RegionX");
  const std::vector<MessageExt> messages{first, untraced, second};

  consume_call(tracer_, messages, false, ConsumeReturnType::kFailed, milliseconds(30));
  const auto found = records();
  ASSERT_EQ(found.size(), 4u);  // two messages traced, a record of each kind for each
  EXPECT_EQ(found[0].type, TraceType::kSubBefore);
  EXPECT_EQ(found[0].beans[0].msg_id, "ID1");
  EXPECT_EQ(found[0].beans[0].retry_times, 2);
  EXPECT_EQ(found[0].region_id, "RegionX");
  EXPECT_FALSE(found[0].request_id.empty());
  EXPECT_EQ(found[1].beans[0].msg_id, "ID3");
  for (const std::size_t i : {2u, 3u}) {
    EXPECT_EQ(found[i].type, TraceType::kSubAfter);
    EXPECT_EQ(found[i].request_id, found[0].request_id);
    EXPECT_FALSE(found[i].success);
    EXPECT_EQ(found[i].cost_ms, 10);  // 30 ms over the three messages of the call
    EXPECT_EQ(found[i].context_code, static_cast<int>(ConsumeReturnType::kFailed));
    EXPECT_EQ(found[i].group, "G");
  }
  EXPECT_EQ(found[3].beans[0].msg_id, "ID3");
}

TEST_F(TracerFixture, NothingIsTracedWhenEveryMessageHasTraceOff) {
  MessageExt untraced;
  untraced.set_topic("Orders");
  untraced.set_property("TRACE_ON", "false");
  const std::vector<MessageExt> messages{untraced};
  consume_call(tracer_, messages, true, ConsumeReturnType::kSuccess, milliseconds(1));
  EXPECT_TRUE(records().empty());
}

// RocketMQ's lite pull consumer: poll() runs the consume hooks on the batch it returns, the
// SubAfter right after the SubBefore, as a success.
TEST_F(TracerFixture, APolledBatchIsASubBeforeAndASuccessfulSubAfter) {
  MessageExt first;
  first.set_topic("Orders");
  first.set_property(std::string(plugin::v1::property::kUniqueKey), "ID1");
  first.set_keys("k1");
  first.set_tags("TagA");
  first.store_size = 120;
  MessageExt untraced = first;
  untraced.set_property(std::string(plugin::v1::property::kUniqueKey), "ID2");
  untraced.set_property("TRACE_ON", "false");
  const std::vector<MessageExt> messages{first, untraced};
  consume_call(tracer_, messages, true, ConsumeReturnType::kSuccess, milliseconds(0));  // as poll() does
  consume_call(tracer_, {}, true, ConsumeReturnType::kSuccess, milliseconds(0));  // nothing to trace

  const auto found = records();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].type, TraceType::kSubBefore);
  EXPECT_EQ(found[0].group, "G");
  EXPECT_EQ(found[0].region_id, "DefaultRegion");
  ASSERT_EQ(found[0].beans.size(), 1u);
  EXPECT_EQ(found[0].beans[0].msg_id, "ID1");
  EXPECT_EQ(found[0].beans[0].keys, "k1");
  EXPECT_EQ(found[1].type, TraceType::kSubAfter);
  EXPECT_EQ(found[1].request_id, found[0].request_id);
  EXPECT_TRUE(found[1].success);
  EXPECT_EQ(found[1].context_code, static_cast<int>(ConsumeReturnType::kSuccess));
  EXPECT_EQ(found[1].group, "G");
  EXPECT_LT(found[1].cost_ms, 1000);  // nothing runs between the two records
  EXPECT_EQ(found[1].beans[0].msg_id, "ID1");
  EXPECT_NE(std::find(keys_.begin(), keys_.end(), "ID1"), keys_.end());  // found by the message's id
}

TEST_F(TracerFixture, EndTransactionRecords) {
  Message message("Orders", "TagA", "k1", "body");
  tracer_.end_transaction({.producer_group = "G",
                           .message = message,
                           .msg_id = "ID1",
                           .broker_address = "10.0.0.1:10911",
                           .transaction_state = "COMMIT_MESSAGE",
                           .transaction_id = "TX1",
                           .from_transaction_check = true});
  const auto found = records();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].type, TraceType::kEndTransaction);
  EXPECT_EQ(found[0].region_id, "DefaultRegion");
  EXPECT_EQ(found[0].beans[0].msg_id, "ID1");
  EXPECT_EQ(found[0].beans[0].msg_type, TraceMessageType::kTransactionCommit);
  EXPECT_EQ(found[0].beans[0].transaction_state, "COMMIT_MESSAGE");
  EXPECT_EQ(found[0].beans[0].transaction_id, "TX1");
  EXPECT_TRUE(found[0].beans[0].from_transaction_check);
}

TEST(MessageTracerTest, ClassifiesListenerCallsAsRocketMq) {
  const milliseconds timeout(1000);
  EXPECT_EQ(consume_return_type(true, true, milliseconds(5), timeout), ConsumeReturnType::kException);
  EXPECT_EQ(consume_return_type(false, false, milliseconds(1000), timeout), ConsumeReturnType::kTimeOut);
  EXPECT_EQ(consume_return_type(false, true, milliseconds(5), timeout), ConsumeReturnType::kFailed);
  EXPECT_EQ(consume_return_type(false, false, milliseconds(5), timeout), ConsumeReturnType::kSuccess);
}

TEST(MessageTracerTest, TraceProducerGroupsAreNumbered) {
  const std::string first = trace_producer_group("Orders", TracedRole::kProduce);
  const std::string second = trace_producer_group("Orders", TracedRole::kConsume);
  EXPECT_TRUE(first.starts_with("_INNER_TRACE_PRODUCER-Orders-PRODUCE-")) << first;
  EXPECT_TRUE(second.starts_with("_INNER_TRACE_PRODUCER-Orders-CONSUME-")) << second;
  EXPECT_NE(first.substr(first.rfind('-')), second.substr(second.rfind('-')));
}

}  // namespace
}  // namespace mqkit::client::trace
