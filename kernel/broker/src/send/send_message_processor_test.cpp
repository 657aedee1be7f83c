#include "mqkit/broker/send/send_message_processor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "mqkit/protocol/validation.hpp"
#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace request_code = protocol::request_code;
using testing::SendFixture;
using testing::SendRequest;

std::string ext(const v1::RemotingCommand& c, std::string_view name) {
  return std::string(c.ext_fields.get(name).value_or("<absent>"));
}

TEST(SendMessageProcessorTest, AnswersTheSendCodes) {
  SendFixture f;
  SendMessageProcessor processor(f.context());
  const auto codes = processor.codes();
  EXPECT_EQ(std::set<std::int32_t>(codes.begin(), codes.end()), (std::set<std::int32_t>{10, 310, 320, 36}));
}

TEST(SendMessageProcessorTest, V1AndV2StoreTheSameMessage) {
  SendFixture f;
  SendRequest request;
  request.properties.emplace_back("WAIT", "true");
  request.code = request_code::kSendMessage;
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  request.code = request_code::kSendMessageV2;
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  auto first = f.read("T", 0, 0);
  auto second = f.read("T", 0, 1);
  ASSERT_TRUE(first && second);
  for (const auto* r : {&*first, &*second}) {
    EXPECT_EQ(r->view.topic, "T");
    EXPECT_EQ(r->body(), "hello");
    EXPECT_EQ(r->view.born_timestamp, 1'700'000'000'000);
    EXPECT_EQ(v1::to_string(r->view.born_host), "127.0.0.1:50000");
    EXPECT_EQ(v1::to_string(r->view.store_host), "127.0.0.1:10911");
    // As sent, without WAIT, with the broker's cluster, region and trace switch.
    EXPECT_EQ(v1::decode_properties(r->view.properties),
              (v1::Properties{{"TAGS", "TagA"},
                              {"KEYS", "k1"},
                              {"UNIQ_KEY", "AC11000100002A9F0000000000000001"},
                              {"CLUSTER", "DefaultCluster"},
                              {"MSG_REGION", "DefaultRegion"},
                              {"TRACE_ON", "true"}}));
  }
}

TEST(SendMessageProcessorTest, ExtFieldsSentAsJsonNumbersArriveAsStrings) {
  // ali-ons sends numbers and booleans; the transport hands them over as their JSON text.
  SendFixture f;
  auto request = SendRequest{}.build();
  request.ext_fields.set("e", std::int64_t{1});
  request.ext_fields.set("k", false);
  request.ext_fields.set("g", std::int64_t{1'700'000'000'123});
  auto response = f.call(request);
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  EXPECT_EQ(ext(response, "queueId"), "1");
  auto stored = f.read("T", 1, 0);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->view.born_timestamp, 1'700'000'000'123);
}

TEST(SendMessageProcessorTest, ResponseNamesTheStoredRecord) {
  SendFixture f;
  for (std::int64_t expected_offset = 0; expected_offset < 3; ++expected_offset) {
    auto response = f.send(SendRequest{});
    ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
    EXPECT_EQ(ext(response, "queueId"), "0");
    EXPECT_EQ(ext(response, "queueOffset"), std::to_string(expected_offset));
    EXPECT_EQ(ext(response, "MSG_REGION"), "DefaultRegion");
    EXPECT_EQ(ext(response, "TRACE_ON"), "true");
    auto id = v1::parse_offset_message_id(ext(response, "msgId"));
    ASSERT_TRUE(id.is_ok()) << id.status().to_string();
    EXPECT_EQ(v1::to_string(id->store_host), "127.0.0.1:10911");
    auto stored = f.read_at(id->commit_offset);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->view.queue_offset, expected_offset);
    EXPECT_EQ(stored->view.topic, "T");
  }
}

TEST(SendMessageProcessorTest, RegionAndTraceSwitchComeFromTheBrokerConfig) {
  SendFixture f("region_id = \"eu-west\"\ntrace_on = false");
  SendRequest request;
  // A producer's own values are replaced, as RocketMQ's broker puts its own over them.
  request.properties.emplace_back("MSG_REGION", "forged");
  const auto response = f.send(request);
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  EXPECT_EQ(ext(response, "MSG_REGION"), "eu-west");
  EXPECT_EQ(ext(response, "TRACE_ON"), "false");
  const auto stored = f.read("T", 0, 0);
  ASSERT_TRUE(stored);
  const v1::Properties properties = v1::decode_properties(stored->view.properties);
  EXPECT_EQ(v1::find_property(stored->view.properties, "MSG_REGION"), "eu-west");
  EXPECT_EQ(v1::find_property(stored->view.properties, "TRACE_ON"), "false");
  EXPECT_EQ(std::ranges::count(properties, std::string("MSG_REGION"), &v1::Properties::value_type::first), 1);
}

TEST(SendMessageProcessorTest, UnknownTopicIsCreatedFromTbw102) {
  SendFixture f;
  SendRequest request;
  request.topic = "NewTopic";
  request.default_topic_queue_nums = 4;
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  auto created = f.context().topics->find("NewTopic");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->write_queue_nums, 4);  // min(requested, TBW102's 8)
  EXPECT_EQ(created->perm, protocol::perm::kRead | protocol::perm::kWrite);
}

TEST(SendMessageProcessorTest, UnknownTopicWithoutAutoCreateDoesNotExist) {
  SendFixture f("auto_create_topic_enable = false");
  SendRequest request;
  request.topic = "NewTopic";
  auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kTopicNotExist);
  EXPECT_EQ(response.remark, "topic[NewTopic] not exist, apply first please!");
  EXPECT_FALSE(f.context().topics->find("NewTopic"));
}

TEST(SendMessageProcessorTest, QueueIdMustBeWithinTheTopic) {
  SendFixture f;
  ASSERT_EQ(f.send(SendRequest{}).code, rc::kSuccess);  // creates T with 4 queues
  SendRequest request;
  request.queue_id = 4;
  auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark,
            "queueId[4] is illegal, topic:[T] topicConfig.writeQueueNums:[4] consumer:[127.0.0.1:50000]");
}

TEST(SendMessageProcessorTest, NegativeQueueIdPicksAWritableQueue) {
  SendFixture f;
  SendRequest request;
  request.queue_id = -1;
  for (int i = 0; i < 10; ++i) {
    auto response = f.send(request);
    ASSERT_EQ(response.code, rc::kSuccess);
    const int queue = std::stoi(ext(response, "queueId"));
    EXPECT_GE(queue, 0);
    EXPECT_LT(queue, 4);
  }
}

TEST(SendMessageProcessorTest, OversizedBodyOrPropertiesAreIllegal) {
  SendFixture f("max_message_size = \"1KiB\"");
  SendRequest request;
  request.body = std::string(1024, 'x');
  EXPECT_EQ(f.send(request).code, rc::kSuccess);
  request.body += 'x';
  EXPECT_EQ(f.send(request).code, rc::kMessageIllegal);
  request.body = "small";
  request.properties = {{"BIG", std::string(32'800, 'p')}};
  EXPECT_EQ(f.send(request).code, rc::kMessageIllegal);
}

TEST(SendMessageProcessorTest, BrokerOwnedTopicsAndBadNamesAreRefused) {
  SendFixture f;
  for (const char* topic : {"SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT"}) {
    SendRequest request;
    request.topic = topic;
    auto response = f.send(request);
    EXPECT_EQ(response.code, rc::kNoPermission) << topic;
    EXPECT_EQ(response.remark, "Sending message to topic[" + std::string(topic) + "] is forbidden.");
  }
  SendRequest bad;
  bad.topic = "bad topic!";
  EXPECT_EQ(f.send(bad).code, rc::kSystemError);
  bad.topic = std::string(128, 't');
  EXPECT_EQ(f.send(bad).code, rc::kSystemError);
}

TEST(SendMessageProcessorTest, SendableSystemTopicsTakeMessages) {
  SendFixture f;
  // RocketMQ forbids producing only to the broker's own topics: TBW102 (perm 7) takes messages
  // and BenchmarkTest is created from it like any unknown topic.
  for (const char* topic : {"TBW102", "BenchmarkTest"}) {
    SendRequest request;
    request.topic = topic;
    EXPECT_EQ(f.send(request).code, rc::kSuccess) << topic;
  }
}

TEST(SendMessageProcessorTest, WritesNeedBrokerAndTopicWritePermission) {
  {
    SendFixture f("broker_permission = 4");
    auto response = f.send(SendRequest{});
    EXPECT_EQ(response.code, rc::kNoPermission);
    EXPECT_EQ(response.remark, "the broker[127.0.0.1] sending message is forbidden");
  }
  SendFixture f;
  protocol::TopicConfig read_only;
  read_only.topic_name = "RO";
  read_only.read_queue_nums = read_only.write_queue_nums = 1;
  read_only.perm = protocol::perm::kRead;
  ASSERT_TRUE(f.context().topics->update(read_only).is_ok());
  SendRequest request;
  request.topic = "RO";
  auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kNoPermission);
  EXPECT_EQ(response.remark, "the topic[RO] sending message is forbidden");
}

TEST(SendMessageProcessorTest, MissingRequiredFieldIsASystemError) {
  SendFixture f;
  auto response = f.call(testing::without_field(SendRequest{}.build(), "b"));
  EXPECT_EQ(response.code, rc::kSystemError);
  EXPECT_EQ(response.remark, "the custom field <b> is null");
}

TEST(SendMessageProcessorTest, OneWaySendsAreStoredWithoutAnswer) {
  SendFixture f;
  auto request = SendRequest{}.build();
  request.flag |= v1::RemotingCommand::kOnewayFlag;
  auto channel = std::make_shared<testing::FakeChannel>();
  SendMessageProcessor processor(f.context());
  processor.process(request, Responder(channel, request));
  EXPECT_TRUE(f.read("T", 0, 0).has_value());
  EXPECT_TRUE(channel->sent().empty());
}

TEST(SendMessageProcessorTest, RetryTopicMessagesPastTheirMaximumGoToTheDlq) {
  SendFixture f;
  SendRequest request;
  request.topic = protocol::retry_topic("G");
  request.reconsume_times = 3;
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  auto retry = f.context().topics->find("%RETRY%G");
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->write_queue_nums, 1);  // the group's retry queues
  EXPECT_TRUE(f.read("%RETRY%G", 0, 0).has_value());

  request.max_reconsume_times = 3;  // the header's maximum wins over the group's 16
  request.properties.emplace_back("DELAY", "2");
  ASSERT_EQ(f.send(request).code, rc::kSuccess);  // the third reconsume may still happen
  EXPECT_FALSE(f.context().topics->find("%DLQ%G"));
  request.reconsume_times = 4;  // past the maximum
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  auto dlq = f.context().topics->find("%DLQ%G");
  ASSERT_TRUE(dlq);
  EXPECT_EQ(dlq->write_queue_nums, 1);
  EXPECT_EQ(dlq->perm, protocol::perm::kRead | protocol::perm::kWrite);
  auto dead = f.read("%DLQ%G", 0, 0);
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->view.reconsume_times, 4);
  EXPECT_FALSE(dead->property("DELAY"));  // dead messages are not delayed

  request.max_reconsume_times.reset();
  request.reconsume_times = 17;  // past the group's retry_max_times
  request.properties.pop_back();
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  EXPECT_TRUE(f.read("%DLQ%G", 0, 1).has_value());
}

TEST(SendMessageProcessorTest, DelayedMessagesAreParkedByLevel) {
  SendFixture f;
  SendRequest request;
  request.queue_id = 2;
  request.properties.emplace_back("DELAY", "3");
  auto response = f.send(request);
  ASSERT_EQ(response.code, rc::kSuccess);
  EXPECT_EQ(ext(response, "queueId"), "2");  // the producer's queue, as RocketMQ answers
  auto parked = f.read("SCHEDULE_TOPIC_XXXX", 2, 0);
  ASSERT_TRUE(parked);
  EXPECT_EQ(parked->property("REAL_TOPIC"), "T");
  EXPECT_EQ(parked->property("REAL_QID"), "2");
  EXPECT_EQ(parked->property("DELAY"), "3");
  EXPECT_FALSE(f.read("T", 2, 0).has_value());

  request.properties.back().second = "99";  // beyond the 18 levels: the last one
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  auto clamped = f.read("SCHEDULE_TOPIC_XXXX", 17, 0);
  ASSERT_TRUE(clamped);
  EXPECT_EQ(clamped->property("DELAY"), "18");
}

TEST(SendMessageProcessorTest, TransactionHalfMessagesAreRefusedWhenRejectTransactionMessageIsOn) {
  SendFixture f("reject_transaction_message = true");
  SendRequest request;
  request.sys_flag = v1::sys_flag::kTransactionPrepared;
  request.properties.emplace_back("TRAN_MSG", "true");
  auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kNoPermission);
  EXPECT_EQ(response.remark, "the broker[127.0.0.1] sending transaction message is forbidden");
  EXPECT_EQ(f.context().store->stats().commit_log_max_offset, 0);
}

TEST(SendMessageProcessorTest, PropertiesTooLongOnceStampedAreIllegal) {
  SendFixture f;
  SendRequest request;
  // Within the limit as sent; CLUSTER added by the broker takes it over.
  request.properties = {{"P", std::string(32'760, 'p')}};
  auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kMessageIllegal);
  EXPECT_FALSE(f.read("T", 0, 0).has_value());
}

TEST(SendMessageProcessorTest, LateFlushStillNamesTheStoredMessage) {
  SendFixture f;
  f.interpose().set_flush_times_out(true);
  auto response = f.send(SendRequest{});
  EXPECT_EQ(response.code, rc::kFlushDiskTimeout);
  auto id = v1::parse_offset_message_id(ext(response, "msgId"));
  ASSERT_TRUE(id.is_ok());
  auto stored = f.read_at(id->commit_offset);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->body(), "hello");
  EXPECT_EQ(ext(response, "queueOffset"), "0");
}

TEST(SendMessageProcessorTest, StoreFailuresMapToResponseCodes) {
  SendFixture f;
  const std::pair<v1::Status, std::int32_t> cases[] = {
      {v1::Status::unavailable("disk full"), rc::kServiceNotAvailable},
      {v1::Status::invalid_argument("bad record"), rc::kMessageIllegal},
      {v1::Status::io_error("write failed"), rc::kSystemError},
  };
  for (const auto& [status, code] : cases) {
    f.interpose().fail_appends_with(status);
    auto response = f.send(SendRequest{});
    EXPECT_EQ(response.code, code) << status.to_string();
    EXPECT_EQ(response.remark, status.message());
    EXPECT_FALSE(response.ext_fields.get("msgId"));
  }
}

TEST(SendMessageProcessorTest, AnswersFromTheStoresThread) {
  SendFixture f;
  f.interpose().set_answer_later(true);
  auto response = f.send(SendRequest{});
  EXPECT_EQ(response.code, rc::kSuccess);
  EXPECT_EQ(ext(response, "queueOffset"), "0");
  EXPECT_TRUE(f.read("T", 0, 0).has_value());
}

TEST(SendMessageProcessorTest, ConcurrentSendsGetDistinctOffsets) {
  SendFixture f;
  ASSERT_EQ(f.send(SendRequest{}).code, rc::kSuccess);  // T exists before the race
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  auto channel = std::make_shared<testing::FakeChannel>(2, "127.0.0.1:50001");
  SendMessageProcessor processor(f.context());
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        auto request = SendRequest{}.build();
        processor.process(request, Responder(channel, request));
      }
    });
  }
  for (auto& p : producers) p.join();
  ASSERT_TRUE(channel->wait_for(kThreads * kPerThread));
  std::set<std::string> offsets;
  for (const auto& response : channel->sent()) {
    EXPECT_EQ(response.code, rc::kSuccess);
    offsets.insert(ext(response, "queueOffset"));
  }
  EXPECT_EQ(offsets.size(), static_cast<std::size_t>(kThreads * kPerThread));
  EXPECT_FALSE(offsets.count("0"));  // taken by the first send
}

}  // namespace
}  // namespace mqkit::broker
