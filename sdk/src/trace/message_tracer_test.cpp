#include "trace/message_tracer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "mqkit/plugin/v1/message_record.hpp"
#include "outgoing_message.hpp"

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

PreparedMessage prepared(const std::string& topic) {
  PreparedMessage message;
  message.topic = topic;
  message.tags = "TagA";
  message.keys = "k1 k2";
  message.body = std::make_shared<const std::string>("hello");
  return message;
}

SendResult answered(SendStatus status = SendStatus::kSendOk) {
  return {.status = status, .msg_id = "UNIQ1", .offset_msg_id = "OFF1", .region_id = "DefaultRegion"};
}

TEST_F(TracerFixture, SendsBecomePubRecords) {
  EXPECT_EQ(tracer_.trace_topic(), "RMQ_SYS_TRACE_TOPIC");  // empty customized_trace_topic
  const auto started = std::chrono::steady_clock::now() - milliseconds(20);
  tracer_.on_sent(prepared("Orders"), "10.0.0.1:10911", answered(), started);
  PreparedMessage half = prepared("Orders");
  half.sys_flag = plugin::v1::sys_flag::kTransactionPrepared;
  tracer_.on_sent(half, "10.0.0.1:10911", answered(SendStatus::kFlushDiskTimeout), started);
  PreparedMessage delayed = prepared("Orders");
  delayed.delayed = true;
  tracer_.on_sent(delayed, "10.0.0.1:10911", answered(), started);
  // Not traced: trace messages themselves, and sends the broker answered with TRACE_ON=false.
  tracer_.on_sent(prepared("RMQ_SYS_TRACE_TOPIC"), "10.0.0.1:10911", answered(), started);
  SendResult trace_off = answered();
  trace_off.trace_on = false;
  tracer_.on_sent(prepared("Orders"), "10.0.0.1:10911", trace_off, started);

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

  const TraceContext before = tracer_.before_consume(messages);
  tracer_.after_consume(before, messages.size(), false, ConsumeReturnType::kFailed, milliseconds(30));
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
  const TraceContext before = tracer_.before_consume(messages);
  tracer_.after_consume(before, 1, true, ConsumeReturnType::kSuccess, milliseconds(1));
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
  tracer_.on_polled(messages);
  tracer_.on_polled({});  // an empty poll is not traced

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
  tracer_.on_end_transaction(message, "ID1", "10.0.0.1:10911", "COMMIT_MESSAGE", "TX1", true);
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
