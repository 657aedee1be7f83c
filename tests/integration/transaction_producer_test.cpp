// The SDK's transaction producer against real processes (a name server and a broker): a committed
// transaction reaches a push consumer once, a rolled-back one never does, and a transaction left
// unknown is checked by the broker and ends as check_local_transaction says. The broker checks
// every 300 ms and times transactions out after 1 s, so every case takes seconds; every wait is
// bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/client/transaction_producer.hpp"

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;
using mqkit::testing::eventually;

constexpr const char* kTopic = "TxTopic";

// Decides by the message body: "commit-…" commits, "rollback-…" rolls back, "unknown-…" is left
// unknown; a check commits "unknown-commit-…" and rolls back "unknown-rollback-…". Records the
// checks it was asked.
class BodyDecides final : public TransactionListener {
 public:
  LocalTransactionState execute_local_transaction(const Message& message, const std::any&) override {
    if (message.body().starts_with("commit-")) return LocalTransactionState::kCommit;
    if (message.body().starts_with("rollback-")) return LocalTransactionState::kRollback;
    return LocalTransactionState::kUnknown;
  }
  LocalTransactionState check_local_transaction(const MessageExt& message) override {
    std::lock_guard lock(mutex_);
    checked_.push_back(message);
    if (message.body().starts_with("unknown-commit-")) return LocalTransactionState::kCommit;
    if (message.body().starts_with("unknown-rollback-")) return LocalTransactionState::kRollback;
    return LocalTransactionState::kUnknown;
  }
  std::vector<MessageExt> checked() const {
    std::lock_guard lock(mutex_);
    return checked_;
  }
  bool was_checked(const std::string& body) const {
    for (const auto& m : checked()) {
      if (m.body() == body) return true;
    }
    return false;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<MessageExt> checked_;
};

// Bodies a consumer received, with how often.
class Received {
 public:
  void add(const MessageExt& m) {
    std::lock_guard lock(mutex_);
    ++count_[m.body()];
  }
  std::map<std::string, int> counts() const {
    std::lock_guard lock(mutex_);
    return count_;
  }
  bool has(const std::string& body) const { return counts().contains(body); }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> count_;
};

class TransactionProducerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_
                    ->add_broker({.name = "broker-a",
                                  .overrides = {"broker.register_name_server_period=10s",
                                                "broker.transaction_time_out=1s",
                                                "broker.transaction_check_interval=300ms"}})
                    .is_ok());
    ProducerConfig config;
    config.group = "tx_it_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    listener_ = std::make_shared<BodyDecides>();
    producer_ = std::make_unique<TransactionProducer>(config, listener_);
    ASSERT_TRUE(producer_->start().is_ok());
    // One queue: what the topic holds is exactly what was committed (and the markers).
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 1, kTopic, 1).is_ok());
    start_consumer();
  }

  void TearDown() override {
    consumer_.reset();
    producer_.reset();
    cluster_.reset();
  }

  void start_consumer() {
    const ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, "tx_it_consumer");
    consumer_ = std::make_unique<PushConsumer>(config);
    ASSERT_TRUE(consumer_->subscribe(kTopic, "*").is_ok());
    ASSERT_TRUE(consumer_
                    ->register_listener([this](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                      for (const auto& m : messages) received_.add(m);
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    const Status started = consumer_->start();
    ASSERT_TRUE(started.is_ok()) << started.to_string();
  }

  TransactionSendResult send(const std::string& body) {
    auto result = producer_->send_message_in_transaction(Message(kTopic, "TagTx", body));
    EXPECT_TRUE(result.is_ok()) << body << ": " << result.status().to_string();
    return result.is_ok() ? std::move(result).value() : TransactionSendResult{};
  }

  // A plain message after the transactions: once it is consumed, a committed message stored
  // before it has been too (one queue, consumed in order of arrival at the listener's pace).
  void send_marker_and_wait(const std::string& marker) {
    ASSERT_TRUE(producer_->producer().send(Message(kTopic, "TagPlain", marker)).is_ok());
    ASSERT_TRUE(eventually([&] { return received_.has(marker); })) << marker << " never arrived";
  }

  std::int64_t messages_in_topic() {
    const auto route = producer_->instance()->route(kTopic);
    EXPECT_TRUE(route.is_ok());
    auto max = producer_->instance()->api().get_max_offset(cluster_->broker_addr(0), MessageQueue{kTopic, "broker-a", 0});
    EXPECT_TRUE(max.is_ok()) << max.status().to_string();
    return max.is_ok() ? *max : -1;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::shared_ptr<BodyDecides> listener_;
  std::unique_ptr<TransactionProducer> producer_;
  std::unique_ptr<PushConsumer> consumer_;
  Received received_;
};

TEST_F(TransactionProducerIntegrationTest, ACommittedTransactionIsDeliveredOnceAndARolledBackOneNever) {
  const auto rolled_back = send("rollback-0");
  const auto committed = send("commit-1");
  send("rollback-2");
  send("commit-3");
  EXPECT_EQ(rolled_back.local_transaction_state, LocalTransactionState::kRollback);
  EXPECT_EQ(committed.local_transaction_state, LocalTransactionState::kCommit);
  EXPECT_EQ(committed.message_queue.topic, kTopic);

  ASSERT_TRUE(eventually([&] { return received_.has("commit-1") && received_.has("commit-3"); }))
      << "the committed messages never arrived";
  send_marker_and_wait("marker");
  EXPECT_EQ(received_.counts(), (std::map<std::string, int>{{"commit-1", 1}, {"commit-3", 1}, {"marker", 1}}));
  // The rolled-back half messages never entered the topic.
  EXPECT_EQ(messages_in_topic(), 3);
}

TEST_F(TransactionProducerIntegrationTest, AnUnknownTransactionIsCheckedAndEndsAsTheCheckSays) {
  const auto unknown_commit = send("unknown-commit-0");
  send("unknown-rollback-1");
  send("commit-2");  // ended at once: never checked
  EXPECT_EQ(unknown_commit.local_transaction_state, LocalTransactionState::kUnknown);
  EXPECT_FALSE(received_.has("unknown-commit-0"));

  // The broker asks once the transaction is older than its timeout (after the producer's
  // heartbeat told it where the group is).
  ASSERT_TRUE(eventually([&] {
    return received_.has("unknown-commit-0") && listener_->was_checked("unknown-rollback-1");
  })) << "checked: " << listener_->checked().size();
  send_marker_and_wait("marker");
  const auto counts = received_.counts();
  EXPECT_EQ(counts, (std::map<std::string, int>{{"unknown-commit-0", 1}, {"commit-2", 1}, {"marker", 1}}));
  EXPECT_EQ(messages_in_topic(), 3);

  // What check_local_transaction saw: the half message with its real topic and the sent id.
  bool saw_unknown_commit = false;
  for (const auto& half : listener_->checked()) {
    EXPECT_NE(half.body(), "commit-2");
    EXPECT_EQ(half.topic(), kTopic);
    EXPECT_EQ(half.property("PGROUP"), "tx_it_producer");
    if (half.body() == "unknown-commit-0") {
      saw_unknown_commit = true;
      EXPECT_EQ(half.unique_id(), unknown_commit.msg_id);
    }
  }
  EXPECT_TRUE(saw_unknown_commit);
}

}  // namespace
}  // namespace mqkit::client
