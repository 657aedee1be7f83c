#include "mqkit/broker/broker_metrics.hpp"

#include <gtest/gtest.h>

#include "../consume/consume_test_support.hpp"
#include "../consume/queue_stats.hpp"
#include "../send/send_test_support.hpp"
#include "exposition_page.hpp"
#include "mqkit/broker/broker_metrics_page.hpp"
#include "mqkit/broker/consume/pull_message_processor.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
using mqkit::testing::sample_value;
using testing::SendFixture;
using testing::SendRequest;

std::string page_of(const BrokerMetrics& metrics) {
  metrics::ExpositionWriter out;
  metrics.write(out);
  return out.take();
}

TEST(BrokerMetricsTest, MessageTypesAreReadAsRocketMqReadsThem) {
  EXPECT_EQ(message_type_of({}), MessageType::kNormal);
  EXPECT_EQ(message_type_of({{"TAGS", "a"}, {"TRAN_MSG", "false"}}), MessageType::kNormal);
  EXPECT_EQ(message_type_of({{"TRAN_MSG", "TRUE"}, {"DELAY", "3"}}), MessageType::kTransaction);
  EXPECT_EQ(message_type_of({{"__SHARDINGKEY", "k"}, {"DELAY", "3"}}), MessageType::kFifo);
  EXPECT_EQ(message_type_of({{"DELAY", "3"}}), MessageType::kDelay);
  EXPECT_EQ(message_type_of({{"__STARTDELIVERTIME", "1"}}), MessageType::kDelay);
  EXPECT_EQ(message_type_of({{"TIMER_DELIVER_MS", "1"}}), MessageType::kDelay);
  EXPECT_EQ(message_type_of({{"TIMER_DELAY_SEC", "1"}}), MessageType::kDelay);
  EXPECT_EQ(message_type_of({{"TIMER_DELAY_MS", "1"}}), MessageType::kDelay);
  EXPECT_EQ(metrics_label(MessageType::kTransaction), "transaction");
  EXPECT_EQ(metrics_label(MessageType::kFifo), "fifo");
}

TEST(BrokerMetricsTest, SystemTopicsAndGroups) {
  EXPECT_TRUE(is_system("TBW102"));
  EXPECT_TRUE(is_system("SCHEDULE_TOPIC_XXXX"));
  EXPECT_TRUE(is_system("rmq_sys_anything"));
  EXPECT_FALSE(is_system("T"));
  EXPECT_TRUE(is_system("T", "CID_RMQ_SYS_TRACE"));
  EXPECT_TRUE(is_system("T", "cid_rmq_sys_x"));
  EXPECT_FALSE(is_system("T", "CID_RMQ"));
}

TEST(BrokerMetricsTest, RetryAndDeadLetterTopicsAreNotCounted) {
  BrokerMetrics m;
  m.count_in("%RETRY%g", MessageType::kNormal, 1, 100);
  m.count_in("%DLQ%g", MessageType::kNormal, 1, 100);
  m.count_out("%RETRY%g", "g", 1, 100);
  m.count_in("T", MessageType::kNormal, 4, 400);
  m.count_out("T", "g", 3, 300);
  const std::string page = page_of(m);
  EXPECT_EQ(page.find("RETRY"), std::string::npos) << page;
  EXPECT_EQ(page.find("DLQ"), std::string::npos) << page;
  EXPECT_EQ(sample_value(page, "rocketmq_messages_in_total", {{"topic", "T"}}), 4);
  EXPECT_EQ(sample_value(page, "rocketmq_throughput_in_total", {{"topic", "T"}}), 400);
  EXPECT_EQ(sample_value(page, "rocketmq_message_size_bucket", {{"topic", "T"}, {"le", "1024"}}), 4);
  EXPECT_EQ(sample_value(page, "rocketmq_message_size_sum", {{"topic", "T"}}), 400);
  EXPECT_EQ(sample_value(page, "rocketmq_messages_out_total", {{"topic", "T"}, {"consumer_group", "g"}}), 3);
  EXPECT_EQ(sample_value(page, "rocketmq_throughput_out_total", {{"topic", "T"}, {"consumer_group", "g"}}), 300);
}

class SendPathCountsTest : public ::testing::Test {
 protected:
  void SetUp() override { f_.context().metrics = metrics_; }
  std::string page() const { return page_of(*metrics_); }

  SendFixture f_;
  std::shared_ptr<BrokerMetrics> metrics_ = std::make_shared<BrokerMetrics>();
};

TEST_F(SendPathCountsTest, SendsCountInTheTopicTheyAreStoredIn) {
  ASSERT_EQ(f_.send(SendRequest{}).code, rc::kSuccess);
  const auto stored = f_.read("T", 0, 0);
  ASSERT_TRUE(stored);
  std::string text = page();
  EXPECT_EQ(sample_value(text, "rocketmq_messages_in_total",
                         {{"topic", "T"}, {"message_type", "normal"}, {"is_system", "false"}}),
            1);
  EXPECT_EQ(sample_value(text, "rocketmq_throughput_in_total", {{"topic", "T"}}), stored->view.total_size);

  SendRequest delayed;
  delayed.properties.emplace_back("DELAY", "3");
  ASSERT_EQ(f_.send(delayed).code, rc::kSuccess);
  SendRequest half;
  half.properties.emplace_back("TRAN_MSG", "true");
  half.properties.emplace_back("PGROUP", "P");
  ASSERT_EQ(f_.send(half).code, rc::kSuccess);
  text = page();
  EXPECT_EQ(sample_value(text, "rocketmq_messages_in_total",
                         {{"topic", std::string(protocol::kScheduleTopic)}, {"message_type", "delay"}, {"is_system", "true"}}),
            1);
  EXPECT_EQ(sample_value(text, "rocketmq_messages_in_total",
                         {{"topic", std::string(protocol::transaction::kHalfTopic)}, {"message_type", "transaction"}}),
            1);
  EXPECT_EQ(sample_value(text, "rocketmq_messages_in_total", {{"topic", "T"}}), 1);
}

TEST_F(SendPathCountsTest, ABatchCountsEachMessage) {
  SendRequest batch;
  batch.code = protocol::request_code::kSendBatchMessage;
  batch.properties = {{"WAIT", "true"}};
  std::vector<std::uint8_t> body;
  for (std::int32_t i = 0; i < 3; ++i) {
    const std::string text = "m" + std::to_string(i);
    v1::append_batch_item(body, 0, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()},
                          v1::encode_properties({{"UNIQ_KEY", "ID" + std::to_string(i)}}));
  }
  batch.body.assign(body.begin(), body.end());
  ASSERT_EQ(f_.send(batch).code, rc::kSuccess);
  const std::string text = page();
  EXPECT_EQ(sample_value(text, "rocketmq_messages_in_total", {{"topic", "T"}, {"message_type", "normal"}}), 3);
  EXPECT_EQ(sample_value(text, "rocketmq_message_size_count", {{"topic", "T"}}), 3);
}

TEST_F(SendPathCountsTest, MessagesPastTheirMaximumCountAsDeadLettered) {
  SendRequest retry;
  retry.topic = protocol::retry_topic("G");
  retry.reconsume_times = 4;  // past the maximum (this delivery counted)
  retry.max_reconsume_times = 3;
  ASSERT_EQ(f_.send(retry).code, rc::kSuccess);
  ASSERT_TRUE(f_.read("%DLQ%G", 0, 0).has_value());
  const std::string text = page();
  EXPECT_EQ(sample_value(text, "rocketmq_send_to_dlq_messages_total",
                         {{"consumer_group", "G"}, {"topic", "%RETRY%G"}, {"is_system", "false"}}),
            1);
  EXPECT_EQ(sample_value(text, "rocketmq_messages_in_total"), std::nullopt);  // retry and DLQ topics are not
}

TEST(SendPathWithoutMetricsTest, CountsNothingAndStillServes) {
  SendFixture f;
  ASSERT_EQ(f.context().metrics, nullptr);
  ASSERT_EQ(f.send(SendRequest{}).code, rc::kSuccess);
}

class PullPathCountsTest : public testing::ProcessorTest<PullMessageProcessor> {
 protected:
  void SetUp() override {
    context().metrics = std::make_shared<BrokerMetrics>();
    testing::create_topic(context(), "T", 2);
  }
};

TEST_F(PullPathCountsTest, PullsCountOutAndNoteWhereTheGroupPulledTo) {
  for (int i = 0; i < 3; ++i) testing::append(context(), {"T", 1, "body" + std::to_string(i), "", "", ""});
  harness_.wait_dispatched();
  const auto response = call(testing::make_request(protocol::request_code::kPullMessage,
                                                   {{"consumerGroup", "cg"},
                                                    {"topic", "T"},
                                                    {"queueId", "1"},
                                                    {"queueOffset", "1"},
                                                    {"maxMsgNums", "32"},
                                                    {"sysFlag", std::to_string(protocol::pull_sys_flag::kSubscription)},
                                                    {"subscription", "*"},
                                                    {"subVersion", "0"}}));
  ASSERT_EQ(response.code, rc::kSuccess);
  std::int64_t bytes = 0;
  for (const auto& record : testing::records_of(response)) bytes += record.total_size;
  const std::string text = page_of(*context().metrics);
  EXPECT_EQ(sample_value(text, "rocketmq_messages_out_total", {{"topic", "T"}, {"consumer_group", "cg"}}), 2);
  EXPECT_EQ(sample_value(text, "rocketmq_throughput_out_total", {{"topic", "T"}, {"consumer_group", "cg"}}), bytes);
  const auto pulled = context().metrics->pulled_offsets();
  ASSERT_EQ(pulled.size(), 1u);
  EXPECT_EQ(pulled.begin()->first, std::make_tuple(std::string("cg"), std::string("T"), 1));
  EXPECT_EQ(pulled.begin()->second, 3);
}

// Every request the handler routes is timed from arrival to answer, labelled as RocketMQ labels
// it; a one-way request is recorded when the processor finishes with it.
TEST(RpcLatencyRecordingTest, TheHandlerTimesEveryAnswer) {
  struct Answering final : RequestProcessor {
    std::vector<std::int32_t> codes() const override {
      return {protocol::request_code::kHeartBeat, protocol::request_code::kPullMessage};
    }
    void process(RemotingCommand request, Responder responder) override {
      RemotingCommand response;
      response.code = request.code == protocol::request_code::kPullMessage ? rc::kPullNotFound : rc::kSuccess;
      // A pull is answered as a held pull would be.
      (request.code == protocol::request_code::kPullMessage ? responder.held() : responder).respond(response);
    }
  };
  BrokerMetrics metrics;
  BrokerRequestHandler handler;
  handler.add(std::make_shared<Answering>());
  handler.record_latency_in(&metrics.rpc());
  handler.open();
  auto channel = std::make_shared<testing::FakeChannel>();
  handler.on_request(channel, RemotingCommand::request(protocol::request_code::kHeartBeat));
  handler.on_request(channel, RemotingCommand::request(protocol::request_code::kHeartBeat));
  auto oneway = RemotingCommand::request(protocol::request_code::kHeartBeat);
  oneway.flag |= RemotingCommand::kOnewayFlag;
  handler.on_request(channel, oneway);
  handler.on_request(channel, RemotingCommand::request(protocol::request_code::kPullMessage));
  handler.on_request(channel, RemotingCommand::request(4242));
  const std::string text = page_of(metrics);
  EXPECT_EQ(sample_value(text, "rocketmq_rpc_latency_count",
                         {{"request_code", "heart_beat"}, {"response_code", "success"}, {"result", "success"},
                          {"is_long_polling", "false"}, {"protocol_type", "remoting"}}),
            2);
  EXPECT_EQ(sample_value(text, "rocketmq_rpc_latency_count", {{"request_code", "heart_beat"}, {"result", "oneway"}}), 1);
  EXPECT_EQ(sample_value(text, "rocketmq_rpc_latency_count",
                         {{"request_code", "pull_message"}, {"response_code", "pull_not_found"}, {"is_long_polling", "true"}}),
            1);
  EXPECT_EQ(sample_value(text, "rocketmq_rpc_latency_count",
                         {{"request_code", "4242"}, {"response_code", "request_code_not_supported"}}),
            1);
  EXPECT_EQ(channel->sent().size(), 4u);  // the one-way request was not answered
}

// The scrape-time gauges: consumer progress from offsets and the store, and the broker's own.
class BrokerMetricsPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    context().metrics = std::make_shared<BrokerMetrics>();
    testing::create_topic(context(), "T", 2);
    for (int i = 0; i < 5; ++i) testing::append(context(), {"T", 0, "q0-" + std::to_string(i), "", "", ""});
    for (int i = 0; i < 3; ++i) testing::append(context(), {"T", 1, "q1-" + std::to_string(i), "", "", ""});
    harness_.wait_dispatched();
  }
  BrokerContext& context() { return harness_.context(); }

  void connect(const std::string& group, const std::vector<std::string>& topics) {
    context().consumers->register_consumer(
        testing::consumer_data(group, topics),
        {std::make_shared<testing::FakeChannel>(next_channel_++), "c", v1::LanguageCode::kJava, 401, 0});
    ASSERT_TRUE(context().groups->find_or_create(group).has_value());
  }

  testing::BrokerHarness harness_;
  std::uint64_t next_channel_ = 10;
};

TEST_F(BrokerMetricsPageTest, ConsumerProgressSumsTheQueuesOfEachOnlineGroup) {
  connect("cg", {"T", "%RETRY%cg"});
  context().offsets->commit("cg", "T", 0, 2);  // queue 1: never committed, so counted as consumed
  context().metrics->note_pulled("cg", "T", 0, 4);
  context().offsets->commit("offline", "T", 0, 1);  // a group with no consumer connected
  ASSERT_TRUE(context().groups->find_or_create("offline").has_value());

  const std::int64_t stored_2 = message_store_time(*context().store, "T", 0, 2);
  const std::int64_t stored_4 = message_store_time(*context().store, "T", 0, 4);
  ASSERT_GT(stored_2, 0);
  const std::int64_t now = stored_4 + 7000;
  const std::string page = broker_metrics_page(context(), now);
  const mqkit::testing::LabelPairs cg{{"consumer_group", "cg"}, {"topic", "T"}, {"is_retry", "false"},
                                      {"is_system", "false"}, {"cluster", "DefaultCluster"},
                                      {"node_type", "broker"}, {"node_id", "broker-a"}};
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_lag_messages", cg), 3);
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_inflight_messages", cg), 2);
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_ready_messages", cg), 1);
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_lag_latency", cg), now - stored_2);
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_queueing_latency", cg), now - stored_4);
  EXPECT_EQ(page.find("offline"), std::string::npos) << page;
  EXPECT_EQ(page.find("%RETRY%"), std::string::npos) << page;

  // All committed: nothing lags, and the latencies go to 0.
  context().offsets->commit("cg", "T", 0, 5);
  const std::string caught_up = broker_metrics_page(context(), now);
  EXPECT_EQ(sample_value(caught_up, "rocketmq_consumer_lag_messages", cg), 0);
  EXPECT_EQ(sample_value(caught_up, "rocketmq_consumer_inflight_messages", cg), 0);
  EXPECT_EQ(sample_value(caught_up, "rocketmq_consumer_ready_messages", cg), 0);
  EXPECT_EQ(sample_value(caught_up, "rocketmq_consumer_lag_latency", cg), 0);
  EXPECT_EQ(sample_value(caught_up, "rocketmq_consumer_queueing_latency", cg), 0);
}

TEST_F(BrokerMetricsPageTest, ConnectionsByGroupLanguageAndVersion) {
  connect("cg", {"T"});
  connect("cg", {"T"});
  connect("CID_RMQ_SYS_x", {"T"});
  ClientConnection producer{std::make_shared<testing::FakeChannel>(99), "p", v1::LanguageCode::kCpp, 401, 0};
  context().producers->register_producer("pg1", producer);
  context().producers->register_producer("pg2", producer);
  const std::string page = broker_metrics_page(context(), 0);
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_connections",
                         {{"consumer_group", "cg"}, {"language", "java"}, {"version", "v4_9_4"},
                          {"consume_mode", "push"}, {"protocol_type", "remoting"}, {"is_system", "false"}}),
            2);
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_connections", {{"consumer_group", "CID_RMQ_SYS_x"}, {"is_system", "true"}}),
            1);
  EXPECT_EQ(sample_value(page, "rocketmq_producer_connections",
                         {{"language", "cpp"}, {"version", "v4_9_4"}, {"protocol_type", "remoting"}}),
            2);
}

TEST_F(BrokerMetricsPageTest, BrokerAndStoreGauges) {
  connect("cg", {"T"});
  const v1::StoreStats stats = context().store->stats();
  const std::int64_t earliest = earliest_message_time(*context().store, stats);
  const std::string page = broker_metrics_page(context(), earliest + 1234);
  EXPECT_EQ(sample_value(page, "rocketmq_broker_permission", {{"cluster", "DefaultCluster"}}), 6);
  EXPECT_EQ(sample_value(page, "rocketmq_topic_number"),
            static_cast<double>(context().topics->snapshot().topic_config_table.size()));
  EXPECT_EQ(sample_value(page, "rocketmq_consumer_group_number"), 1);
  const mqkit::testing::LabelPairs store{{"storage_type", "local"}, {"storage_medium", "disk"}};
  EXPECT_EQ(sample_value(page, "rocketmq_storage_message_reserve_time", store), 1234);
  EXPECT_EQ(sample_value(page, "rocketmq_storage_dispatch_behind_bytes", store), dispatch_behind_bytes(stats));
  EXPECT_EQ(sample_value(page, "rocketmq_storage_flush_behind_bytes", store), flush_behind_bytes(stats));
  context().config->broker_permission.set(4);
  EXPECT_EQ(sample_value(broker_metrics_page(context(), 0), "rocketmq_broker_permission"), 4);
}

}  // namespace
}  // namespace mqkit::broker
