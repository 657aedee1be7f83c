#include "mqkit/broker/send/recall_message_processor.hpp"

#include <gtest/gtest.h>

#include "mqkit/broker/send/timer_message_service.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/timer.hpp"
#include "../consume/consume_test_support.hpp"
#include "mqkit/broker/testing/fake_channel.hpp"
#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
namespace timer = protocol::timer;
using testing::SendFixture;
using testing::SendRequest;

constexpr const char* kTimerTopic = "rmq_sys_wheel_timer";

class RecallMessageTest : public ::testing::Test {
 protected:
  RecallMessageTest() : f_("recall_message_enable = true\ntimer_max_delay_sec = 3600") { f_.interpose(); }

  // A timer message to T due in 10.5 s; the send answer's recall handle.
  std::string send_timer(const std::string& unique_key) {
    SendRequest request;
    request.properties = {{"UNIQ_KEY", unique_key}, {"TIMER_DELAY_MS", "10500"}};
    auto answer = f_.send(request);
    EXPECT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
    return std::string(answer.ext_fields.get("recallHandle").value_or(""));
  }
  RemotingCommand recall(const std::string& topic, const std::string& handle, RecallMessageProcessor& processor) {
    auto request = RemotingCommand::request(rq::kRecallMessage);
    request.ext_fields.set("producerGroup", std::string("PG"));
    request.ext_fields.set("topic", topic);
    request.ext_fields.set("recallHandle", handle);
    return testing::call(processor, channel_, std::move(request));
  }

  SendFixture f_;
  std::shared_ptr<testing::FakeChannel> channel_ = std::make_shared<testing::FakeChannel>(7, "127.0.0.1:50007");
};

TEST_F(RecallMessageTest, AHeldTimerMessagesAnswerCarriesItsRecallHandle) {
  const std::int64_t sent_at = f_.harness().now();
  const std::string handle_text = send_timer("U1");
  const auto handle = timer::decode_recall_handle(handle_text);
  ASSERT_TRUE(handle.is_ok()) << handle_text;
  EXPECT_EQ(handle->topic, "T");
  EXPECT_EQ(handle->broker_name, f_.context().config->broker_name);
  EXPECT_EQ(handle->message_id, "U1");
  const std::int64_t due = std::stoll(handle->timestamp) - 1;  // TIMER_OUT_MS, rounded down to 1 s
  EXPECT_EQ(due % 1000, 0);
  EXPECT_GT(due, sent_at + 9'000);
  // A message not held has none.
  SendRequest plain;
  EXPECT_FALSE(f_.send(plain).ext_fields.get("recallHandle").has_value());
}

TEST_F(RecallMessageTest, RecallWritesADeletionMarkerThroughTheTimerTopic) {
  RecallMessageProcessor processor(f_.context());
  const std::string handle = send_timer("U1");
  const auto answer = recall("T", handle, processor);
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  EXPECT_EQ(answer.ext_fields.get("msgId"), "U1");
  ASSERT_TRUE(testing::eventually([&] { return f_.context().store->max_offset(kTimerTopic, 0) == 2; }));
  auto marker = f_.read(kTimerTopic, 0, 1);
  ASSERT_TRUE(marker);
  EXPECT_EQ(marker->property("TIMER_DEL_UNIQKEY"), "T+U1");
  EXPECT_EQ(marker->property("REAL_TOPIC"), "T");
  EXPECT_EQ(marker->property("TAGS"), "_RECALL_TAG_");
  EXPECT_EQ(marker->property("PGROUP"), "PG");
  EXPECT_EQ(marker->property("TIMER_OUT_MS"), f_.read(kTimerTopic, 0, 0)->property("TIMER_OUT_MS"))
      << "the marker lands in the message's slot";
  EXPECT_EQ(marker->body(), "0");
}

TEST_F(RecallMessageTest, BadRecallsGetRocketMQsAnswers) {
  RecallMessageProcessor processor(f_.context());
  const std::string handle = send_timer("U1");
  const auto code_and_remark = [](const RemotingCommand& r) { return std::pair{r.code, r.remark.value_or("")}; };
  EXPECT_EQ(code_and_remark(recall("T", "not-a-handle!", processor)),
            std::pair(rc::kIllegalOperation, std::string("recall handle is invalid")));
  EXPECT_EQ(code_and_remark(recall("Nope", handle, processor)),
            std::pair(rc::kTopicNotExist, std::string("recall failed, the topic[Nope] not exist")));
  protocol::TopicConfig other;
  other.topic_name = "Other";
  ASSERT_TRUE(f_.context().topics->update(other).is_ok());
  EXPECT_EQ(code_and_remark(recall("Other", handle, processor)),
            std::pair(rc::kIllegalOperation, std::string("recall failed, topic not match")));
  const std::string elsewhere = timer::encode({"T", "broker-z", std::to_string(f_.harness().now() + 5000), "U1"});
  EXPECT_EQ(code_and_remark(recall("T", elsewhere, processor)),
            std::pair(rc::kIllegalOperation, std::string("recall failed, broker service not available")));
  const std::string past = timer::encode({"T", f_.context().config->broker_name, std::to_string(f_.harness().now() - 1), "U1"});
  EXPECT_EQ(code_and_remark(recall("T", past, processor)),
            std::pair(rc::kIllegalOperation, std::string("recall failed, timestamp invalid")));
  auto missing = RemotingCommand::request(rq::kRecallMessage);
  missing.ext_fields.set("topic", std::string("T"));
  EXPECT_EQ(testing::call(processor, channel_, std::move(missing)).code, rc::kSystemError);

  f_.harness().config().recall_message_enable = false;
  EXPECT_EQ(code_and_remark(recall("T", handle, processor)),
            std::pair(rc::kNoPermission, std::string("recall failed, operation is forbidden")));
}

}  // namespace
}  // namespace mqkit::broker
