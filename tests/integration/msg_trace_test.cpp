// Message trace end to end: a broker with trace_topic_enable, a producer, a transaction producer,
// a push consumer and a lite pull consumer with enable_msg_trace exchange messages, and `mqadmin
// queryMsgTraceById` (the real binary) shows each message's Pub, SubBefore and SubAfter records —
// and a transactional message's EndTransaction — read back from the trace topic. Every wait is
// bounded.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/lite_pull_consumer.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/client/trace_data.hpp"
#include "mqkit/client/transaction_producer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::ChildProcess;
using mqkit::testing::eventually;
using std::chrono::milliseconds;

constexpr const char* kTopic = "TracedTopic";

class CommitAll final : public TransactionListener {
 public:
  LocalTransactionState execute_local_transaction(const Message&, const std::any&) override {
    return LocalTransactionState::kCommit;
  }
  LocalTransactionState check_local_transaction(const MessageExt&) override { return LocalTransactionState::kCommit; }
};

class MsgTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>("msg_trace_test");
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_
                    ->add_broker({.name = "broker-a",
                                  .overrides = {"broker.trace_topic_enable=true", "broker.region_id=it-region"}})
                    .is_ok());
  }

  // mqadmin queryMsgTraceById -i <id> -t <trace topic> --json: the records it printed, by type
  // name; nullopt when it failed or printed something that is not a JSON array.
  std::optional<std::multiset<std::string>> trace_types(const std::string& msg_id, std::string* out = nullptr,
                                                         const std::string& trace_topic = std::string(
                                                             trace::kDefaultTraceTopic)) {
    auto child = ChildProcess::spawn(
        "mqadmin",
        {"queryMsgTraceById", "-i", msg_id, "-t", trace_topic, "--json", "-n", cluster_->namesrv_addrs()},
        "mqadmin-trace");
    if (!child) return std::nullopt;
    const std::optional<int> code = child->run_to_end(std::chrono::seconds(30));
    const std::string printed = child->output();
    if (out != nullptr) *out = printed;
    if (code != 0) return std::nullopt;
    rapidjson::Document doc;
    if (doc.Parse(printed.c_str()).HasParseError() || !doc.IsArray()) return std::nullopt;
    std::multiset<std::string> types;
    for (const auto& record : doc.GetArray()) {
      if (std::string(record["msgId"].GetString()) != msg_id) return std::nullopt;  // only this message's
      types.insert(record["type"].GetString());
    }
    return types;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
};

TEST_F(MsgTraceTest, ProducerAndPushConsumerRecordsAreFoundByMessageId) {
  ProducerConfig producer_config;
  producer_config.client = mqkit::testing::fast_client_config(*cluster_);
  producer_config.group = "trace_it_producer";
  producer_config.enable_msg_trace = true;
  Producer producer(producer_config);
  ASSERT_TRUE(producer.start().is_ok());
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(producer.instance()->api(), *cluster_, 1, kTopic, 2).is_ok());

  std::mutex mutex;
  std::set<std::string> consumed;
  ConsumerConfig consumer_config = mqkit::testing::fast_consumer_config(*cluster_, "trace_it_consumer");
  consumer_config.enable_msg_trace = true;
  PushConsumer consumer(consumer_config);
  ASSERT_TRUE(consumer.subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(consumer
                  .register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    std::lock_guard lock(mutex);
                    for (const auto& m : messages) consumed.insert(m.msg_id());
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer.start().is_ok());

  // A sync send and an async one, each traced once the broker answered.
  auto sync_sent = producer.send(Message(kTopic, "TagA", "order-1", "sync body"));
  ASSERT_TRUE(sync_sent.is_ok()) << sync_sent.status().to_string();
  auto async_sent = producer.send_async(Message(kTopic, "TagB", "order-2", "async body")).get();
  ASSERT_TRUE(async_sent.is_ok()) << async_sent.status().to_string();
  const std::vector<std::string> ids{sync_sent->msg_id, async_sent->msg_id};
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return consumed.count(ids[0]) == 1 && consumed.count(ids[1]) == 1;
  })) << "the consumer never got both messages";

  // Shutdown hands the queued records to the trace producers, which send them before stopping.
  consumer.shutdown();
  producer.shutdown();

  for (const auto& id : ids) {
    std::string printed;
    const std::multiset<std::string> expected{"Pub", "SubBefore", "SubAfter"};
    EXPECT_TRUE(eventually([&] { return trace_types(id, &printed) == expected; }, std::chrono::seconds(30)))
        << "trace of " << id << ": " << printed;
  }

  // The table names each record, its group and outcome.
  auto table = ChildProcess::spawn("mqadmin", {"queryMsgTraceById", "-i", ids[0], "-n", cluster_->namesrv_addrs()},
                                   "mqadmin-trace-table");
  ASSERT_TRUE(table.is_ok());
  EXPECT_EQ(table->run_to_end(std::chrono::seconds(30)), 0);
  const std::string out = table->output();
  EXPECT_NE(out.find("#Type"), std::string::npos) << out;
  EXPECT_NE(out.find("trace_it_producer"), std::string::npos) << out;
  EXPECT_NE(out.find("trace_it_consumer"), std::string::npos) << out;
  EXPECT_NE(out.find("success"), std::string::npos) << out;

  // The trace messages are also found by the message's key, as RocketMQ indexes them.
  ClientConfig admin = mqkit::testing::fast_client_config(*cluster_);
  admin.instance_name = "trace_it_reader";
  auto reader = ClientInstance::get_or_create(admin);
  ASSERT_TRUE(reader.is_ok());
  QueryMessageRequest by_key{.topic = std::string(trace::kDefaultTraceTopic), .key = "order-1", .max_num = 64};
  by_key.end_timestamp_ms = std::numeric_limits<std::int64_t>::max();
  auto found = (*reader)->api().query_message(cluster_->broker_addr(0), by_key);
  ASSERT_TRUE(found.is_ok()) << found.status().to_string();
  bool pub_found = false;
  std::set<std::string> sub_regions;
  for (const auto& message : found->messages) {
    auto records = trace::decode_trace_data(message.body());
    ASSERT_TRUE(records.is_ok()) << records.status().to_string();
    for (const auto& record : *records) {
      // The producer's region comes from the send answer, the consumer's from the stored
      // message's MSG_REGION: both the broker's region_id.
      pub_found = pub_found || (record.type == trace::TraceType::kPub && record.beans[0].keys == "order-1" &&
                                record.beans[0].tags == "TagA" && record.group == "trace_it_producer" &&
                                record.region_id == "it-region");
      if (record.type == trace::TraceType::kSubBefore) sub_regions.insert(record.region_id);
    }
  }
  EXPECT_TRUE(pub_found);
  EXPECT_EQ(sub_regions, std::set<std::string>{"it-region"});
}

// RocketMQ's lite pull consumer traces the batches poll() returns: a SubBefore and a SubAfter
// (success, ConsumeReturnType SUCCESS) for each message. Here into a customized trace topic.
TEST_F(MsgTraceTest, LitePullConsumerRecordsArePolledBatches) {
  constexpr const char* kTraceTopic = "LitePullTraceTopic";
  ProducerConfig producer_config;
  producer_config.client = mqkit::testing::fast_client_config(*cluster_);
  producer_config.group = "trace_it_lite_producer";
  producer_config.enable_msg_trace = true;
  producer_config.customized_trace_topic = kTraceTopic;
  Producer producer(producer_config);
  ASSERT_TRUE(producer.start().is_ok());
  ClientApi& api = producer.instance()->api();
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api, *cluster_, 1, kTopic, 2).is_ok());
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api, *cluster_, 1, kTraceTopic, 1).is_ok());

  ConsumerConfig consumer_config = mqkit::testing::fast_consumer_config(*cluster_, "trace_it_lite_consumer");
  consumer_config.enable_msg_trace = true;
  consumer_config.customized_trace_topic = kTraceTopic;
  LitePullConsumer consumer(consumer_config);
  ASSERT_TRUE(consumer.subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(consumer.start().is_ok());

  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    auto sent = producer.send(Message(kTopic, "TagL", "lite-" + std::to_string(i), "lite body"));
    ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
    ids.push_back(sent->msg_id);
  }
  std::set<std::string> polled;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (polled.size() < ids.size() && std::chrono::steady_clock::now() < deadline) {
    auto got = consumer.poll(milliseconds(200));
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    for (const auto& m : *got) polled.insert(m.msg_id());
  }
  ASSERT_EQ(polled, std::set<std::string>(ids.begin(), ids.end())) << "the consumer never polled every message";
  consumer.shutdown();
  producer.shutdown();

  const std::multiset<std::string> expected{"Pub", "SubBefore", "SubAfter"};
  for (const auto& id : ids) {
    std::string printed;
    EXPECT_TRUE(eventually([&] { return trace_types(id, &printed, kTraceTopic) == expected; }, std::chrono::seconds(30)))
        << "trace of " << id << ": " << printed;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(printed.c_str()).HasParseError()) << printed;
    for (const auto& record : doc.GetArray()) {
      const std::string type = record["type"].GetString();
      if (type == "Pub") continue;
      EXPECT_STREQ(record["group"].GetString(), "trace_it_lite_consumer") << printed;
      if (type == "SubAfter") {
        EXPECT_TRUE(record["success"].GetBool()) << printed;
        EXPECT_EQ(record["contextCode"].GetInt(), static_cast<int>(trace::ConsumeReturnType::kSuccess)) << printed;
      }
    }
  }
}

TEST_F(MsgTraceTest, TransactionProducerRecordsEndTransaction) {
  ProducerConfig config;
  config.client = mqkit::testing::fast_client_config(*cluster_);
  config.group = "trace_it_tx_producer";
  config.enable_msg_trace = true;
  TransactionProducer producer(config, std::make_shared<CommitAll>());
  ASSERT_TRUE(producer.start().is_ok());
  ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(producer.instance()->api(), *cluster_, 1, kTopic, 2).is_ok());
  auto sent = producer.send_message_in_transaction(Message(kTopic, "TagT", "tx-key", "tx body"));
  ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  EXPECT_EQ(sent->local_transaction_state, LocalTransactionState::kCommit);
  producer.shutdown();

  std::string printed;
  const std::multiset<std::string> expected{"Pub", "EndTransaction"};
  EXPECT_TRUE(eventually([&] { return trace_types(sent->msg_id, &printed) == expected; }, std::chrono::seconds(30)))
      << printed;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(printed.c_str()).HasParseError()) << printed;
  for (const auto& record : doc.GetArray()) {
    if (std::string(record["type"].GetString()) == "Pub") {
      EXPECT_EQ(record["msgType"].GetInt(), static_cast<int>(trace::TraceMessageType::kTransactionHalf));
    } else {
      EXPECT_STREQ(record["transactionState"].GetString(), "COMMIT_MESSAGE");
      EXPECT_FALSE(record["fromTransactionCheck"].GetBool());
    }
  }
}

}  // namespace
}  // namespace mqkit::client
