// The producer against a fake name server and brokers: the send algorithm (retries, failover,
// timeouts), selectors, batches, async back-pressure, lifecycle.
#include "mqkit/client/producer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "mqkit/client/compression.hpp"
#include "outgoing_message.hpp"
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

// What a send hook saw of one attempt.
struct HookedAttempt {
  std::string group, topic, tags, broker_address, broker_name, error;
  bool answered = false, oneway = false, batch = false;
  std::size_t body_size = 0;
};

class RecordingSendHook : public SendHook {
 public:
  std::string_view name() const override { return "recording"; }
  void before_send(Message& message) override {
    ++before;
    EXPECT_TRUE(message.put_user_property("traceparent", "00-abc-def-01").is_ok());
  }
  void after_send(const SendHookContext& attempt) override {
    std::lock_guard lock(mutex);
    attempts.push_back({std::string(attempt.producer_group), std::string(attempt.topic), std::string(attempt.tags),
                        std::string(attempt.broker_address), attempt.queue.broker_name,
                        attempt.error.is_ok() ? "" : attempt.error.to_string(), attempt.result != nullptr,
                        attempt.oneway, attempt.batch, attempt.body_size});
  }
  std::atomic<int> before{0};
  std::mutex mutex;
  std::vector<HookedAttempt> attempts;
};

class ThrowingSendHook : public SendHook {
 public:
  std::string_view name() const override { return "throwing"; }
  void before_send(Message&) override { throw std::runtime_error("hook bug"); }
  void after_send(const SendHookContext&) override { throw std::runtime_error("hook bug"); }
};

TEST_F(ProducerTest, SendHooksSeeEveryAttemptAndTheirPropertiesGoOut) {
  cluster_.set_send_code("broker-a", rc::kServiceNotAvailable);
  auto instance = ClientInstance::create(config_.client, cluster_.transport());
  ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
  Producer producer(config_, std::move(instance).value());
  auto hook = std::make_shared<RecordingSendHook>();
  EXPECT_EQ(producer.register_send_hook(nullptr).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(producer.register_send_hook(std::make_shared<ThrowingSendHook>()).is_ok());
  ASSERT_TRUE(producer.register_send_hook(hook).is_ok());
  ASSERT_TRUE(producer.start().is_ok());
  EXPECT_EQ(producer.register_send_hook(hook).code(), StatusCode::kUnavailable) << "hooks come before start()";

  for (int i = 0; i < 4; ++i) ASSERT_TRUE(producer.send(Message("T", "TagA", "", "sync")).is_ok());
  ASSERT_TRUE(producer.send_async(Message("T", "TagA", "", "async")).get().is_ok());
  std::vector<Message> batch{Message("T", "b1"), Message("T", "b2")};
  ASSERT_TRUE(producer.send_batch(std::move(batch)).is_ok());
  ASSERT_TRUE(producer.send_oneway(Message("T", "oneway")).is_ok());
  producer.shutdown();

  EXPECT_EQ(hook->before.load(), 8) << "once per message of every send call";
  const auto sends = cluster_.transport()->calls_with_code(rq::kSendMessageV2);
  ASSERT_FALSE(sends.empty());
  for (const auto& sent : sends) {
    EXPECT_EQ(v1::find_property(field(sent.request, "i"), "traceparent"), "00-abc-def-01");
  }
  std::lock_guard lock(hook->mutex);
  // Every send request the cluster got (the one-way one too) is one attempt a hook saw; broker-a's
  // were refused.
  ASSERT_EQ(hook->attempts.size(), cluster_.send_attempts().size());
  int refused = 0;
  for (const HookedAttempt& attempt : hook->attempts) {
    EXPECT_EQ(attempt.group, "PG");
    EXPECT_EQ(attempt.topic, "T");
    if (attempt.oneway) {
      EXPECT_FALSE(attempt.answered);
      EXPECT_TRUE(attempt.error.empty()) << attempt.error;
      continue;
    }
    EXPECT_EQ(attempt.broker_address, cluster_.address_of(attempt.broker_name));
    if (attempt.broker_name == "broker-a") {
      ++refused;
      EXPECT_FALSE(attempt.answered);
      EXPECT_FALSE(attempt.error.empty());
    } else {
      EXPECT_TRUE(attempt.answered) << attempt.error;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GE(std::count_if(hook->attempts.begin(), hook->attempts.end(), [](const HookedAttempt& a) { return a.batch; }),
            1);
  EXPECT_EQ(std::count_if(hook->attempts.begin(), hook->attempts.end(), [](const HookedAttempt& a) { return a.oneway; }),
            1);
}

// Sends answered after shutdown hold the producer's internals; they must not hold the client
// instance, or its threads outlive everyone who let go of it.
TEST_F(ProducerTest, ShutdownLetsGoOfTheClientInstance) {
  auto producer = start_producer();
  const std::weak_ptr<ClientInstance> watched = producer->instance();
  producer->shutdown();
  EXPECT_TRUE(watched.expired()) << "the shut-down producer still holds its client instance";
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


// ---- Auto batching ---------------------------------------------------------------------------

// Results of async sends by send index, each callback counted.
class Results {
 public:
  SendCallback callback(std::size_t index) {
    return [this, index](Result<SendResult> result) {
      std::lock_guard lock(mutex_);
      ++calls_[index];
      results_.insert_or_assign(index, std::move(result));
    };
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return results_.size();
  }
  Result<SendResult> at(std::size_t index) const {
    std::lock_guard lock(mutex_);
    return results_.at(index);
  }
  // Batches that follow an answer given on the sending thread go out from the client's async
  // thread: waits (boundedly) for `count` callbacks first.
  bool each_called_once(std::size_t count) const {
    for (int i = 0; i < 2000 && size() < count; ++i) std::this_thread::sleep_for(milliseconds(5));
    std::lock_guard lock(mutex_);
    if (calls_.size() != count) return false;
    for (const auto& [index, calls] : calls_) {
      if (calls != 1) return false;
    }
    return true;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::size_t, Result<SendResult>> results_;
  std::map<std::size_t, int> calls_;
};

// The messages of a stored send, as (body, properties) in order.
std::vector<std::pair<std::string, std::string>> messages_of(const RemotingCommand& request) {
  if (request.code != rq::kSendBatchMessage) {
    return {{std::string(request.body.begin(), request.body.end()), field(request, "i")}};
  }
  std::vector<std::pair<std::string, std::string>> out;
  auto items = v1::decode_batch(request.body);
  EXPECT_TRUE(items.is_ok());
  if (!items) return out;
  for (const auto& item : *items) {
    out.emplace_back(std::string(item.body.begin(), item.body.end()), std::string(item.properties));
  }
  return out;
}

class AutoBatchTest : public ProducerTest {
 protected:
  void SetUp() override {
    ProducerTest::SetUp();
    config_.auto_batch = true;
  }
  // Answers every request held so far and every later one at once.
  void answer_everything() {
    cluster_.transport()->hold_responses(false);
    cluster_.transport()->release_held();
  }
};

TEST_F(AutoBatchTest, WhatWaitsBehindARequestGoesAsOneBatchAndEachGetsItsOwnResult) {
  auto producer = start_producer();
  ASSERT_TRUE(producer->fetch_publish_message_queues("T").is_ok());
  const MessageQueue queue{"T", "broker-a", 1};
  cluster_.transport()->hold_responses(true);
  Results results;
  for (std::size_t i = 0; i < 6; ++i) {
    ASSERT_TRUE(producer->send_async(Message("T", "m" + std::to_string(i)), results.callback(i), {.queue = queue})
                    .is_ok());
  }
  // The first went alone; the others wait for its answer.
  EXPECT_EQ(cluster_.transport()->held_count(), 1u);
  EXPECT_EQ(producer->async_in_flight(), 6u);
  answer_everything();
  ASSERT_TRUE(results.each_called_once(6));

  const auto stored = cluster_.stored();
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].request.code, rq::kSendMessageV2);
  EXPECT_EQ(stored[1].request.code, rq::kSendBatchMessage);
  std::vector<std::pair<std::string, std::string>> sent = messages_of(stored[0].request);
  for (auto& m : messages_of(stored[1].request)) sent.push_back(std::move(m));
  ASSERT_EQ(sent.size(), 6u);
  std::set<std::string> offset_ids;
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(sent[i].first, "m" + std::to_string(i));
    auto result = results.at(i);
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(result->message_queue, queue);
    EXPECT_EQ(result->queue_offset, static_cast<std::int64_t>(i));
    EXPECT_EQ(result->msg_id, v1::find_property(sent[i].second, "UNIQ_KEY").value_or("?"));
    EXPECT_EQ(result->offset_msg_id.size(), 32u);
    offset_ids.insert(result->offset_msg_id);
  }
  EXPECT_EQ(offset_ids.size(), 6u);
  EXPECT_EQ(producer->async_in_flight(), 0u);
}

TEST_F(AutoBatchTest, EveryQueueKeepsTheOrderOfItsSendsAndOffsetsMatch) {
  auto producer = start_producer();
  ASSERT_TRUE(producer->fetch_publish_message_queues("T").is_ok());
  cluster_.transport()->hold_responses(true);
  Results results;
  constexpr std::size_t kCount = 300;
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_TRUE(producer->send_async(Message("T", std::to_string(i)), results.callback(i)).is_ok());
    // Answers now and then, so that batches of every size form.
    if (i % 37 == 0) cluster_.transport()->release_held(3);
  }
  answer_everything();
  ASSERT_TRUE(results.each_called_once(kCount));

  std::map<std::pair<std::string, std::int32_t>, std::int64_t> next_offset;
  std::map<std::pair<std::string, std::int32_t>, long> last_index;
  std::size_t seen = 0;
  std::size_t batches = 0;
  for (const auto& send : cluster_.stored()) {
    if (send.request.code == rq::kSendBatchMessage) ++batches;
    const auto key = std::make_pair(send.broker, send.queue_id);
    for (const auto& [body, properties] : messages_of(send.request)) {
      const auto index = std::stol(body);
      EXPECT_GT(index, last_index.contains(key) ? last_index[key] : -1L) << "queue order broken";
      last_index[key] = index;
      auto result = results.at(static_cast<std::size_t>(index));
      ASSERT_TRUE(result.is_ok()) << result.status().to_string();
      EXPECT_EQ(result->message_queue.broker_name, send.broker);
      EXPECT_EQ(result->message_queue.queue_id, send.queue_id);
      EXPECT_EQ(result->queue_offset, next_offset[key]++);
      ++seen;
    }
  }
  EXPECT_EQ(seen, kCount);
  EXPECT_GT(batches, 0u);
  EXPECT_LT(cluster_.stored().size(), kCount);
}

TEST_F(AutoBatchTest, AFailedBatchReachesEveryCallbackOrIsRetriedElsewhere) {
  cluster_.set_send_code("broker-a", rc::kMessageIllegal);  // not retriable
  auto producer = start_producer();
  ASSERT_TRUE(producer->fetch_publish_message_queues("T").is_ok());
  cluster_.transport()->hold_responses(true);
  Results failed;
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(producer->send_async(Message("T", "x"), failed.callback(i), {.queue = MessageQueue{"T", "broker-a", 0}})
                    .is_ok());
  }
  answer_everything();
  ASSERT_TRUE(failed.each_called_once(4));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_FALSE(failed.at(i).is_ok());
  EXPECT_EQ(producer->async_in_flight(), 0u);

  // Without a fixed queue a batch that failed on a retriable error moves, whole, to another broker.
  cluster_.set_send_code("broker-a", rc::kServiceNotAvailable);
  cluster_.transport()->hold_responses(true);
  Results moved;
  for (std::size_t i = 0; i < 16; ++i) ASSERT_TRUE(producer->send_async(Message("T", "y"), moved.callback(i)).is_ok());
  answer_everything();
  ASSERT_TRUE(moved.each_called_once(16));
  for (std::size_t i = 0; i < 16; ++i) {
    auto result = moved.at(i);
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(result->message_queue.broker_name, "broker-b");
  }
}

TEST_F(AutoBatchTest, HeldBatchesGoWhenFullOrAtShutdown) {
  config_.batch_max_delay = std::chrono::minutes(1);
  auto producer = start_producer();
  ASSERT_TRUE(producer->fetch_publish_message_queues("T").is_ok());
  const MessageQueue queue{"T", "broker-b", 3};
  // Two of these fill a batch.
  Message probe("T", std::string(100, 'p'));
  auto prepared = prepare_message(probe, config_);
  ASSERT_TRUE(prepared.is_ok());
  config_.batch_max_bytes = 2 * batch_item_size(*prepared);
  producer.reset();
  producer = start_producer();
  Results results;
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(producer->send_async(Message("T", std::string(100, 'a' + static_cast<char>(i))), results.callback(i),
                                     {.queue = queue})
                    .is_ok());
  }
  // The first two filled a batch, which went at once; the third is held for a minute...
  ASSERT_EQ(cluster_.stored().size(), 1u);
  EXPECT_EQ(messages_of(cluster_.stored()[0].request).size(), 2u);
  EXPECT_EQ(results.size(), 2u);
  // ...unless the producer shuts down.
  producer->shutdown();
  ASSERT_TRUE(results.each_called_once(3));
  ASSERT_TRUE(results.at(2).is_ok());
  EXPECT_EQ(results.at(2)->queue_offset, 2);
}

TEST_F(AutoBatchTest, WaitingBytesAreBoundedAndOddMessagesGoAlone) {
  Message probe("T", std::string(100, 'p'));
  auto prepared = prepare_message(probe, config_);
  ASSERT_TRUE(prepared.is_ok());
  config_.batch_max_bytes = batch_item_size(*prepared);
  config_.total_batch_max_bytes = 2 * batch_item_size(*prepared);
  auto producer = start_producer();
  ASSERT_TRUE(producer->fetch_publish_message_queues("T").is_ok());
  const MessageQueue queue{"T", "broker-a", 2};
  cluster_.transport()->hold_responses(true);
  Results results;
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(producer->send_async(Message("T", std::string(100, 'x')), results.callback(i), {.queue = queue}).is_ok());
  }
  // One in flight, two waiting fill the budget: the next waits for room, then gives up.
  const Status full =
      producer->send_async(Message("T", std::string(100, 'x')), results.callback(99), {.queue = queue, .timeout = milliseconds(30)});
  EXPECT_EQ(full.code(), StatusCode::kResourceExhausted) << full.to_string();
  EXPECT_EQ(producer->async_in_flight(), 3u);  // the refused send left the window
  // A message that cannot travel in a batch is sent at once, past the waiting ones.
  Message delayed("T", "later");
  delayed.set_delay_time_level(3);
  ASSERT_TRUE(producer->send_async(std::move(delayed), results.callback(3), {.queue = queue}).is_ok());
  EXPECT_EQ(cluster_.transport()->calls_with_code(rq::kSendMessageV2).size(), 2u);
  answer_everything();
  ASSERT_TRUE(results.each_called_once(4));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(results.at(i).is_ok()) << i;
  EXPECT_EQ(producer->async_in_flight(), 0u);
}

TEST(ProducerConfigTest, AutoBatchLimitsAreChecked) {
  ProducerConfig config;
  config.client.namesrv_addresses = {"127.0.0.1:9876"};
  EXPECT_TRUE(config.validate().is_ok());
  config.batch_max_bytes = config.max_message_size + 1;
  EXPECT_EQ(config.validate().code(), StatusCode::kInvalidArgument);
  config.batch_max_bytes = 64 * 1024;
  config.total_batch_max_bytes = 1024;
  EXPECT_EQ(config.validate().code(), StatusCode::kInvalidArgument);
}

// With a namespace every send names ns1%T and ns1%PG on the wire, whatever the mode; results and
// queues come back named T; system topics are not wrapped.
TEST_F(ProducerTest, ANamespaceWrapsWhatGoesOnTheWireAndNotWhatComesBack) {
  cluster_.add_topic("ns1%T", "broker-a", 4);
  cluster_.add_topic("ns1%T", "broker-b", 4);
  config_.client.name_space = "ns1";
  auto producer = start_producer();
  EXPECT_EQ(producer->config().group, "ns1%PG");

  auto sync = producer->send(Message("T", "sync"));
  ASSERT_TRUE(sync.is_ok()) << sync.status().to_string();
  EXPECT_EQ(sync->message_queue.topic, "T");
  const MessageQueue queue{"T", "broker-b", 2};
  SendOptions to_queue;
  to_queue.queue = queue;
  auto fixed = producer->send(Message("T", "to a queue"), to_queue);
  ASSERT_TRUE(fixed.is_ok()) << fixed.status().to_string();
  EXPECT_EQ(fixed->message_queue, queue);
  auto async = producer->send_async(Message("T", "async")).get();
  ASSERT_TRUE(async.is_ok()) << async.status().to_string();
  EXPECT_EQ(async->message_queue.topic, "T");
  std::vector<Message> batch;
  batch.emplace_back("T", "b1");
  batch.emplace_back("T", "b2");
  auto batched = producer->send_batch(std::move(batch));
  ASSERT_TRUE(batched.is_ok()) << batched.status().to_string();
  EXPECT_EQ(batched->message_queue.topic, "T");
  ASSERT_TRUE(producer->send_oneway(Message("T", "oneway")).is_ok());
  auto system = producer->send(Message("TBW102", "system"));
  ASSERT_TRUE(system.is_ok()) << system.status().to_string();
  EXPECT_EQ(system->message_queue.topic, "TBW102");

  std::vector<std::string> topics;
  for (const auto& call : cluster_.transport()->calls()) {
    if (call.request.code != rq::kSendMessageV2 && call.request.code != rq::kSendBatchMessage) continue;
    topics.push_back(field(call.request, "b"));
    EXPECT_EQ(field(call.request, "a"), "ns1%PG");
  }
  EXPECT_EQ(topics, (std::vector<std::string>{"ns1%T", "ns1%T", "ns1%T", "ns1%T", "ns1%T", "TBW102"}));
  const auto stored = cluster_.stored();
  ASSERT_GE(stored.size(), 2u);
  EXPECT_EQ(stored[1].broker, "broker-b");
  EXPECT_EQ(stored[1].queue_id, 2);

  auto queues = producer->fetch_publish_message_queues("T");
  ASSERT_TRUE(queues.is_ok()) << queues.status().to_string();
  ASSERT_EQ(queues->size(), 8u);
  for (const auto& q : *queues) EXPECT_EQ(q.topic, "T");

  // A topic whose wrapped name is too long is refused before anything is sent.
  EXPECT_EQ(producer->send(Message(std::string(125, 't'), "x")).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mqkit::client
