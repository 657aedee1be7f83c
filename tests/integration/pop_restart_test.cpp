// Pop consumption across a broker restart (docs/proxy.md "Pop consumption"): a real mqbroker on
// the commit log store saves its pop state as popState.json, at shutdown or periodically, and
// takes it back at start. Messages popped before the restart stay invisible until their time,
// their receipts still ack them and move their invisible time, and a message delivered again
// keeps its delivery count. The SDK's ClientApi speaks POP_MESSAGE / ACK_MESSAGE /
// CHANGE_MESSAGE_INVISIBLETIME as RocketMQ's clients do. Every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;
using std::chrono::milliseconds;

constexpr const char* kTopic = "PopRestartTopic";
constexpr const char* kGroup = "pop_restart_group";
constexpr std::int64_t kInvisibleMs = 60'000;

class PopRestartIntegrationTest : public ::testing::Test {
 protected:
  // `persist_interval` is the broker's flush_consumer_offset_interval.
  void start(const std::string& persist_interval) {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_
                    ->add_broker({.name = "broker-a",
                                  .overrides = {"broker.flush_consumer_offset_interval=" + persist_interval}})
                    .is_ok());
    ProducerConfig config;
    config.group = "pop_restart_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(api(), *cluster_, 1, kTopic, 1).is_ok());
  }

  void TearDown() override {
    producer_.reset();
    cluster_.reset();
  }

  ClientApi& api() { return producer_->instance()->api(); }

  void send(const std::string& body) {
    auto sent = producer_->send(Message(kTopic, body));
    ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  }

  // One pop that does not wait; a broker still starting is asked again.
  PopResult pop() {
    PopMessageRequest request;
    request.consumer_group = kGroup;
    request.topic = kTopic;
    request.invisible_ms = kInvisibleMs;
    Result<PopResult> popped = Status::unavailable("not asked yet");
    EXPECT_TRUE(eventually([&] {
      popped = api().pop_message(cluster_->broker_addr(0), "broker-a", request, milliseconds(3000));
      return popped.is_ok();
    })) << popped.status().to_string();
    return popped.is_ok() ? *std::move(popped) : PopResult{};
  }

  static std::string receipt(const MessageExt& message) { return std::string(message.property("POP_CK").value_or("")); }

  std::int64_t committed() {
    return api().query_consumer_offset(cluster_->broker_addr(0), kGroup, {kTopic, "broker-a", 0}).value_or(-1);
  }

  // The messages popped before the restart: still invisible after it, and their receipts from
  // before still name their deliveries.
  void expect_the_pops_from_before_the_restart_kept(const PopResult& before) {
    ASSERT_EQ(before.messages.size(), 2U);
    const PopResult after = pop();
    EXPECT_FALSE(after.found) << "delivered again before its invisible time: " << after.messages.size();

    ASSERT_TRUE(api().ack_message(cluster_->broker_addr(0), kGroup, kTopic, receipt(before.messages[0])).is_ok());
    EXPECT_TRUE(eventually([&] { return committed() == 1; })) << "the ack with the old receipt committed nothing";

    // Visible again in a second: delivered a second time, counted as such.
    auto changed = api().change_invisible_time(cluster_->broker_addr(0), kGroup, kTopic, receipt(before.messages[1]), 1000);
    ASSERT_TRUE(changed.is_ok()) << changed.status().to_string();
    PopResult again;
    ASSERT_TRUE(eventually([&] {
      again = pop();
      return again.found;
    }));
    ASSERT_EQ(again.messages.size(), 1U);
    EXPECT_EQ(again.messages[0].body(), "second");
    EXPECT_EQ(again.messages[0].reconsume_times, 1);
    ASSERT_TRUE(api().ack_message(cluster_->broker_addr(0), kGroup, kTopic, receipt(again.messages[0])).is_ok());
    EXPECT_TRUE(eventually([&] { return committed() == 2; }));
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
};

// The periodic save never runs here: what the restarted broker knows, it saved at shutdown.
TEST_F(PopRestartIntegrationTest, ACleanRestartKeepsInFlightMessagesInvisibleAndTheirReceiptsValid) {
  start("3600s");
  send("first");
  send("second");
  const PopResult before = pop();
  ASSERT_TRUE(before.found);
  ASSERT_FALSE(pop().found);
  ASSERT_TRUE(cluster_->restart_broker(0).is_ok());
  expect_the_pops_from_before_the_restart_kept(before);
}

// A crash keeps what the periodic save wrote.
TEST_F(PopRestartIntegrationTest, ACrashKeepsWhatThePeriodicSaveWrote) {
  start("200ms");
  send("first");
  send("second");
  const PopResult before = pop();
  ASSERT_TRUE(before.found);
  std::this_thread::sleep_for(milliseconds(1500));  // several saves
  ASSERT_TRUE(cluster_->restart_broker(0, /*crash=*/true).is_ok());
  expect_the_pops_from_before_the_restart_kept(before);
}

// A corrupt consumption document stops the start, naming it, and is left as it was for the
// operator: the failed start saves nothing over it.
TEST_F(PopRestartIntegrationTest, ACorruptDocumentStopsTheStartAndIsLeftAsItWas) {
  start("3600s");
  send("first");
  ASSERT_TRUE(pop().found);
  const auto config_dir = cluster_->directory() / "broker-a" / "config";
  for (const std::string name : {"consumerOffset.json", "popState.json"}) {
    SCOPED_TRACE(name);
    cluster_->broker(0).stop();  // a clean stop writes both documents
    const auto path = config_dir / name;
    ASSERT_TRUE(std::filesystem::exists(path));
    const auto good = path.string() + ".good";
    std::filesystem::copy_file(path, good, std::filesystem::copy_options::overwrite_existing);
    // Whole (balanced, closed) but wrong: a cut-off document the store would replace by its .bak.
    const std::string garbage = R"({"offsetTable": "not a table", "version": 1, "ledgers": [{"topic": 5}]})";
    std::ofstream(path, std::ios::trunc) << garbage;
    EXPECT_FALSE(cluster_->restart_broker(0).is_ok());
    std::ifstream kept(path);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), garbage);
    std::filesystem::rename(good, path);
  }
  ASSERT_TRUE(cluster_->restart_broker(0).is_ok());
}

}  // namespace
}  // namespace mqkit::client
