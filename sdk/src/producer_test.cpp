// The producer against a fake name server and brokers: the send algorithm (retries, failover,
// timeouts), selectors, batches, async back-pressure, lifecycle.
#include "mqkit/client/producer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "compression.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;
namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using std::chrono::milliseconds;
using testing::FakeCluster;

std::string field(const RemotingCommand& c, std::string_view name) { return std::string(c.ext_fields.get(name).value_or("")); }

class ProducerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.add_broker("broker-a", "10.0.0.1:10911");
    cluster_.add_broker("broker-b", "10.0.0.2:10911");
    cluster_.add_topic("T", "broker-a", 4);
    cluster_.add_topic("T", "broker-b", 4);
    cluster_.add_topic("TBW102", "broker-a", 8, 7);
    cluster_.add_topic("TBW102", "broker-b", 8, 7);
    config_.group = "PG";
    config_.client.namesrv_addresses = {FakeCluster::kNamesrv};
    config_.client.client_ip = "10.0.0.9";
    config_.client.instance_name = "producer-test";
    config_.client.plugin_dirs = {MQKIT_PLUGIN_DIR};
    // Decisions must not depend on what earlier attempts of the test taught the fault strategy.
    config_.client.fault_strategy = {"none"};
  }

  std::unique_ptr<Producer> start_producer() {
    auto instance = ClientInstance::create(config_.client, cluster_.transport());
    EXPECT_TRUE(instance.is_ok()) << instance.status().to_string();
    auto producer = std::make_unique<Producer>(config_, std::move(instance).value());
    const Status started = producer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    return producer;
  }

  FakeCluster cluster_;
  ProducerConfig config_;
};

TEST_F(ProducerTest, SyncSendLandsWithItsUniqueKey) {
  auto producer = start_producer();
  Message message("T", "TagA", "order-1", "hello");
  ASSERT_TRUE(message.put_user_property("color", "red").is_ok());
  auto result = producer->send(std::move(message));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->status, SendStatus::kSendOk);
  EXPECT_EQ(result->msg_id.size(), 32u);
  EXPECT_EQ(result->message_queue.topic, "T");
  const auto stored = cluster_.stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].broker, result->message_queue.broker_name);
  EXPECT_EQ(stored[0].queue_id, result->message_queue.queue_id);
  const RemotingCommand& request = stored[0].request;
  EXPECT_EQ(request.code, rq::kSendMessageV2);
  EXPECT_EQ(field(request, "a"), "PG");
  EXPECT_EQ(std::string(request.body.begin(), request.body.end()), "hello");
  const std::string properties = field(request, "i");
  EXPECT_EQ(v1::find_property(properties, "UNIQ_KEY"), result->msg_id);
  EXPECT_EQ(v1::find_property(properties, "TAGS"), "TagA");
  EXPECT_EQ(v1::find_property(properties, "KEYS"), "order-1");
  EXPECT_EQ(v1::find_property(properties, "color"), "red");
}

TEST_F(ProducerTest, RoundRobinSpreadsOverEveryQueue) {
  auto producer = start_producer();
  std::set<std::pair<std::string, int>> used;
  for (int i = 0; i < 16; ++i) {
    auto result = producer->send(Message("T", "m" + std::to_string(i)));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    used.emplace(result->message_queue.broker_name, result->message_queue.queue_id);
  }
  EXPECT_EQ(used.size(), 8u);
}

TEST_F(ProducerTest, RetriesOnAnotherBrokerAfterARetriableError) {
  cluster_.set_send_code("broker-a", rc::kServiceNotAvailable);
  auto producer = start_producer();
  for (int i = 0; i < 6; ++i) {
    auto result = producer->send(Message("T", "x"));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(result->message_queue.broker_name, "broker-b");
  }
  // Every attempt on broker-a was followed by one on broker-b.
  const auto attempts = cluster_.send_attempts();
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    if (attempts[i] == "broker-a") {
      ASSERT_LT(i + 1, attempts.size());
      EXPECT_EQ(attempts[i + 1], "broker-b");
    }
  }
}

TEST_F(ProducerTest, UnreachableBrokerFailsOverWithinTheTimeout) {
  cluster_.set_unreachable("broker-b", true);
  auto producer = start_producer();
  for (int i = 0; i < 6; ++i) {
    auto result = producer->send(Message("T", "x"));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(result->message_queue.broker_name, "broker-a");
  }
}

TEST_F(ProducerTest, GivesUpAfterAllAttemptsAndDoesNotRetryIllegalMessages) {
  cluster_.set_send_code("broker-a", rc::kSystemBusy);
  cluster_.set_send_code("broker-b", rc::kSystemBusy);
  auto producer = start_producer();
  const Status failed = producer->send(Message("T", "x")).status();
  EXPECT_EQ(failed.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(failed.message().find("Send [3] times, still failed"), std::string::npos) << failed.to_string();
  EXPECT_NE(failed.message().find("CODE: 2"), std::string::npos) << failed.to_string();
  EXPECT_EQ(cluster_.send_attempts().size(), 3u);

  cluster_.set_send_code("broker-a", rc::kMessageIllegal);
  cluster_.set_send_code("broker-b", rc::kMessageIllegal);
  const auto before = cluster_.send_attempts().size();
  const Status illegal = producer->send(Message("T", "x")).status();
  EXPECT_EQ(illegal.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(cluster_.send_attempts().size(), before + 1);
}

TEST_F(ProducerTest, StoredButNotOkIsReturnedOrRetriedElsewhere) {
  cluster_.set_send_code("broker-a", rc::kFlushDiskTimeout);
  cluster_.set_send_code("broker-b", rc::kFlushDiskTimeout);
  auto producer = start_producer();
  auto result = producer->send(Message("T", "x"));
  ASSERT_TRUE(result.is_ok());
  EXPECT_EQ(result->status, SendStatus::kFlushDiskTimeout);
  EXPECT_EQ(cluster_.send_attempts().size(), 1u);
  producer->shutdown();

  config_.retry_another_broker_when_not_store_ok = true;
  config_.group = "PG2";
  cluster_.set_send_code("broker-b", rc::kSuccess);
  auto retrying = start_producer();
  for (int i = 0; i < 4; ++i) {
    auto r = retrying->send(Message("T", "x"));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->status, SendStatus::kSendOk);
    EXPECT_EQ(r->message_queue.broker_name, "broker-b");
  }
}

TEST_F(ProducerTest, HashSelectorKeepsAnOrderOnOneQueue) {
  auto producer = start_producer();
  auto hash = producer->make_selector({"SelectMessageQueueByHash"});
  ASSERT_TRUE(hash.is_ok()) << hash.status().to_string();
  for (std::int64_t order = 0; order < 5; ++order) {
    std::set<std::pair<std::string, int>> queues;
    for (int step = 0; step < 4; ++step) {
      auto result = producer->send(Message("T", "step"), {.selector = *hash, .argument = SelectArgument::int64(order)});
      ASSERT_TRUE(result.is_ok()) << result.status().to_string();
      queues.emplace(result->message_queue.broker_name, result->message_queue.queue_id);
    }
    EXPECT_EQ(queues.size(), 1u) << "order " << order;
  }
  // Java: abs(Long.hashCode(3) % 8) = 3 → the fourth queue in route order (broker-a/3).
  auto third = producer->send(Message("T", "x"), {.selector = *hash, .argument = SelectArgument::int64(3)});
  ASSERT_TRUE(third.is_ok());
  EXPECT_EQ(third->message_queue, (MessageQueue{"T", "broker-a", 3}));
  // No argument: the selector's own error, no retry.
  EXPECT_EQ(producer->send(Message("T", "x"), {.selector = *hash}).status().code(), StatusCode::kInvalidArgument);
  // A selector send is one attempt, as RocketMQ's: the order must not move to another queue.
  cluster_.set_send_code("broker-a", rc::kServiceNotAvailable);
  const auto before = cluster_.send_attempts().size();
  EXPECT_FALSE(producer->send(Message("T", "x"), {.selector = *hash, .argument = SelectArgument::int64(3)}).is_ok());
  EXPECT_EQ(cluster_.send_attempts().size(), before + 1);
}

TEST_F(ProducerTest, SendsToAGivenQueue) {
  auto producer = start_producer();
  const MessageQueue queue{"T", "broker-b", 2};
  auto result = producer->send(Message("T", "x"), {.queue = queue});
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->message_queue, queue);
  EXPECT_EQ(producer->send(Message("Other", "x"), {.queue = queue}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ProducerTest, BatchIsOneRequestWithEveryId) {
  auto producer = start_producer();
  std::vector<Message> batch;
  for (int i = 0; i < 3; ++i) batch.emplace_back("T", "TagA", "b" + std::to_string(i));
  auto result = producer->send_batch(std::move(batch));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  const auto stored = cluster_.stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].request.code, rq::kSendBatchMessage);
  auto items = v1::decode_batch(stored[0].request.body);
  ASSERT_TRUE(items.is_ok());
  ASSERT_EQ(items->size(), 3u);
  std::string ids;
  for (const auto& item : *items) {
    ids += (ids.empty() ? "" : ",") + std::string(v1::find_property(item.properties, "UNIQ_KEY").value_or(""));
  }
  EXPECT_EQ(result->msg_id, ids);
}

TEST_F(ProducerTest, LargeBodiesAreCompressedOnTheWire) {
  auto producer = start_producer();
  std::string body;
  while (body.size() < 50000) body += "line " + std::to_string(body.size() % 13) + "\n";
  ASSERT_TRUE(producer->send(Message("T", body)).is_ok());
  const auto request = cluster_.stored().at(0).request;
  EXPECT_EQ(std::stoi(field(request, "f")) & v1::sys_flag::kCompressed, v1::sys_flag::kCompressed);
  EXPECT_LT(request.body.size(), body.size());
  EXPECT_EQ(*zlib_uncompress(request.body), body);
}

TEST_F(ProducerTest, NewTopicsBorrowTheCreateTopicKeysRoute) {
  auto producer = start_producer();
  auto result = producer->send(Message("BrandNew", "x"));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  const auto request = cluster_.stored().at(0).request;
  EXPECT_EQ(field(request, "b"), "BrandNew");
  EXPECT_EQ(field(request, "c"), "TBW102");
  EXPECT_EQ(field(request, "d"), "4");
  auto queues = producer->fetch_publish_message_queues("BrandNew");
  ASSERT_TRUE(queues.is_ok());
  EXPECT_EQ(queues->size(), 8u);  // 4 per broker
  // As RocketMQ's Validators: the create-topic key takes messages; only broker-owned topics are refused.
  EXPECT_TRUE(producer->send(Message("TBW102", "x")).is_ok());
  EXPECT_EQ(producer->send(Message("SCHEDULE_TOPIC_XXXX", "x")).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ProducerTest, AsyncSendsCallBackAndFailOver) {
  cluster_.set_send_code("broker-a", rc::kServiceNotAvailable);
  auto producer = start_producer();
  std::vector<std::future<Result<SendResult>>> futures;
  for (int i = 0; i < 8; ++i) futures.push_back(producer->send_async(Message("T", "async")));
  for (auto& future : futures) {
    ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    auto result = future.get();
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(result->message_queue.broker_name, "broker-b");
  }
  std::atomic<int> called{0};
  ASSERT_TRUE(producer->send_async(Message("T", "cb"), [&](Result<SendResult> r) {
    EXPECT_TRUE(r.is_ok());
    ++called;
  }).is_ok());
  producer->shutdown();  // waits for the callback
  EXPECT_EQ(called.load(), 1);
  EXPECT_EQ(producer->async_in_flight(), 0u);
}

TEST_F(ProducerTest, FullAsyncWindowMakesSendersWaitThenFail) {
  config_.max_in_flight_async_messages = 2;
  auto producer = start_producer();
  ASSERT_TRUE(producer->fetch_publish_message_queues("T").is_ok());  // route fetched before holding
  cluster_.transport()->hold_responses(true);
  std::atomic<int> done{0};
  const auto count = [&](Result<SendResult> r) {
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    ++done;
  };
  ASSERT_TRUE(producer->send_async(Message("T", "1"), count).is_ok());
  ASSERT_TRUE(producer->send_async(Message("T", "2"), count).is_ok());
  EXPECT_EQ(producer->async_in_flight(), 2u);
  const Status full = producer->send_async(Message("T", "3"), count, {.timeout = milliseconds(50)});
  EXPECT_EQ(full.code(), StatusCode::kResourceExhausted) << full.to_string();

  // A sender waiting for room proceeds once a response frees it.
  std::thread waiter([&] {
    EXPECT_TRUE(producer->send_async(Message("T", "4"), count, {.timeout = milliseconds(10000)}).is_ok());
  });
  for (int i = 0; i < 200 && cluster_.transport()->held_count() < 2; ++i) std::this_thread::sleep_for(milliseconds(5));
  cluster_.transport()->hold_responses(false);
  cluster_.transport()->release_held(1);
  waiter.join();
  cluster_.transport()->release_held();
  for (int i = 0; i < 500 && done.load() < 3; ++i) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(done.load(), 3);
  EXPECT_EQ(producer->async_in_flight(), 0u);
}

TEST_F(ProducerTest, OnewayIsQueuedWithoutAnswer) {
  auto producer = start_producer();
  ASSERT_TRUE(producer->send_oneway(Message("T", "fire")).is_ok());
  const auto sends = cluster_.transport()->calls_with_code(rq::kSendMessageV2);
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_TRUE(sends[0].request.is_oneway());
}

TEST_F(ProducerTest, LifecycleRules) {
  auto instance = ClientInstance::create(config_.client, cluster_.transport());
  ASSERT_TRUE(instance.is_ok());
  Producer producer(config_, *instance);
  EXPECT_EQ(producer.send(Message("T", "x")).status().code(), StatusCode::kUnavailable);  // not started
  ASSERT_TRUE(producer.start().is_ok());
  EXPECT_FALSE(producer.start().is_ok());
  Producer same_group(config_, *instance);
  EXPECT_EQ(same_group.start().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(producer.send(Message("T", "")).status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(producer.send(Message("T", "x")).is_ok());
  producer.shutdown();
  producer.shutdown();
  EXPECT_EQ(producer.send(Message("T", "x")).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(producer.send_async(Message("T", "x"), [](Result<SendResult>) {}).code(), StatusCode::kUnavailable);
  EXPECT_FALSE(producer.send_async(Message("T", "x")).get().is_ok());
  EXPECT_FALSE(cluster_.transport()->calls_with_code(rq::kUnregisterClient).empty());
}

}  // namespace
}  // namespace mqkit::client
