// The producer against real mqnamesrv and mqbroker processes (two name servers, two brokers):
// every kind of send lands where the result says (checked by pulling through ClientApi), ordered
// sends keep an order on one queue, compressed bodies round-trip, and a dead broker is failed
// over within the send timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <thread>

#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;

bool eventually(const std::function<bool()>& condition, milliseconds limit = milliseconds(20000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return condition();
}

class ProducerIntegrationTest : public ::testing::Test {
 protected:
  void start_cluster(const std::string& name, bool auto_batch = false) {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(name);
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .store = "memory"}).is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-b", .store = "memory"}).is_ok());
    ProducerConfig config;
    config.group = "integration_producer";
    config.client.namesrv_addresses = split_namesrv_addresses(cluster_->namesrv_addrs());
    config.client.plugin_dirs = {MQKIT_PLUGIN_DIR};
    config.auto_batch = auto_batch;
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
  }

  ClientApi& api() { return producer_->instance()->api(); }

  // Creates `topic` with `queues` queues on both brokers and waits until the name servers route
  // it to both.
  void create_topic(const std::string& topic, int queues = 4) {
    protocol::TopicConfig config;
    config.topic_name = topic;
    config.read_queue_nums = queues;
    config.write_queue_nums = queues;
    for (std::size_t i = 0; i < 2; ++i) {
      const Status created = api().create_topic(cluster_->broker_addr(i), config);
      ASSERT_TRUE(created.is_ok()) << created.to_string();
    }
    ASSERT_TRUE(eventually([&] {
      auto route = api().get_topic_route(topic);
      return route.is_ok() && route->broker_datas.size() == 2 && route->queue_datas.size() == 2;
    })) << "the name servers never routed " << topic << " to both brokers";
  }

  // Every message of a queue, from offset 0 (no long polling).
  std::vector<MessageExt> pull_all(const MessageQueue& queue) {
    const std::string address = producer_->instance()->find_broker_master(queue.broker_name);
    std::vector<MessageExt> out;
    for (int round = 0; round < 100; ++round) {
      PullMessageRequest request;
      request.consumer_group = "integration_checker";
      request.topic = queue.topic;
      request.queue_id = queue.queue_id;
      request.queue_offset = static_cast<std::int64_t>(out.size());
      request.sys_flag = pull_sys_flag::kSubscription;
      request.suspend_timeout_ms = 0;
      auto pulled = api().pull_message(address, request);
      if (!pulled) {
        ADD_FAILURE() << pulled.status().to_string();
        break;
      }
      if (pulled->status != PullStatus::kFound || pulled->messages.empty()) break;
      for (auto& m : pulled->messages) {
        m.broker_name = queue.broker_name;
        out.push_back(std::move(m));
      }
    }
    return out;
  }

  // Body of the message `result` names, found by pulling its queue.
  // The body stored at the send's queue offset. A message is readable once the broker's
  // dispatch stage has indexed it, a moment after the send is acknowledged: poll briefly.
  std::optional<std::string> body_at(const SendResult& result) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      for (const auto& m : pull_all(result.message_queue)) {
        if (m.queue_offset == result.queue_offset) return m.body();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
};

TEST_F(ProducerIntegrationTest, SyncAsyncOnewayAndBatchSendsLand) {
  start_cluster("sdk-sends");
  create_topic("SdkSends");

  std::map<std::string, std::string> expected;  // msg id → body
  for (int i = 0; i < 8; ++i) {
    const std::string body = "sync-" + std::to_string(i);
    auto result = producer_->send(Message("SdkSends", "TagA", body));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(body_at(*result), body);
    expected[result->msg_id] = body;
  }

  std::vector<std::future<Result<SendResult>>> futures;
  for (int i = 0; i < 8; ++i) futures.push_back(producer_->send_async(Message("SdkSends", "async-" + std::to_string(i))));
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(futures[i].wait_for(std::chrono::seconds(15)), std::future_status::ready);
    auto result = futures[i].get();
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    EXPECT_EQ(body_at(*result), "async-" + std::to_string(i));
    expected[result->msg_id] = "async-" + std::to_string(i);
  }

  std::vector<Message> batch;
  for (int i = 0; i < 5; ++i) batch.emplace_back("SdkSends", "TagB", "batch-" + std::to_string(i));
  auto batched = producer_->send_batch(std::move(batch));
  ASSERT_TRUE(batched.is_ok()) << batched.status().to_string();
  {
    const auto messages = pull_all(batched->message_queue);
    std::vector<std::string> bodies;
    for (const auto& m : messages) {
      if (m.queue_offset >= batched->queue_offset) bodies.push_back(m.body());
    }
    EXPECT_EQ(bodies, (std::vector<std::string>{"batch-0", "batch-1", "batch-2", "batch-3", "batch-4"}));
    std::string ids;
    for (const auto& m : messages) {
      if (m.queue_offset >= batched->queue_offset) ids += (ids.empty() ? "" : ",") + m.msg_id();
    }
    EXPECT_EQ(ids, batched->msg_id);
  }

  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(producer_->send_oneway(Message("SdkSends", "TagC", "oneway-" + std::to_string(i))).is_ok());
  }

  // Everything is on the brokers: sync and async by id, one-way by body.
  auto queues = producer_->fetch_publish_message_queues("SdkSends");
  ASSERT_TRUE(queues.is_ok());
  EXPECT_EQ(queues->size(), 8u);
  EXPECT_TRUE(eventually([&] {
    std::map<std::string, std::string> found;
    std::set<std::string> oneway;
    for (const auto& queue : *queues) {
      for (const auto& m : pull_all(queue)) {
        found[m.msg_id()] = m.body();
        if (m.tags() == "TagC") oneway.insert(m.body());
      }
    }
    for (const auto& [id, body] : expected) {
      if (found[id] != body) return false;
    }
    return oneway.size() == 4;
  })) << "not every message arrived";
}

TEST_F(ProducerIntegrationTest, AutoBatchedAsyncSendsEachLandWhereTheirResultSaysInOrder) {
  start_cluster("sdk-autobatch", /*auto_batch=*/true);
  create_topic("SdkAutoBatch");
  constexpr int kCount = 3000;
  std::mutex mutex;
  std::map<int, SendResult> results;
  std::map<int, int> calls;
  std::vector<std::string> failures;
  for (int i = 0; i < kCount; ++i) {
    const Status queued =
        producer_->send_async(Message("SdkAutoBatch", "auto-" + std::to_string(i)), [&, i](Result<SendResult> r) {
          std::lock_guard lock(mutex);
          ++calls[i];
          if (r) {
            results.emplace(i, std::move(r).value());
          } else {
            failures.push_back(r.status().to_string());
          }
        });
    ASSERT_TRUE(queued.is_ok()) << queued.to_string();
  }
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return calls.size() == static_cast<std::size_t>(kCount);
  }));
  std::lock_guard lock(mutex);
  ASSERT_TRUE(failures.empty()) << failures.front();
  for (const auto& [i, n] : calls) EXPECT_EQ(n, 1) << "callback of send " << i;

  // Every message is stored at the queue and offset its result names, with its id, and each
  // queue holds its messages in the order they were sent.
  auto queues = producer_->fetch_publish_message_queues("SdkAutoBatch");
  ASSERT_TRUE(queues.is_ok());
  std::map<std::tuple<std::string, int, std::int64_t>, std::pair<std::string, std::string>> stored;
  ASSERT_TRUE(eventually([&] {
    stored.clear();
    for (const auto& queue : *queues) {
      for (const auto& m : pull_all(queue)) {
        stored[{queue.broker_name, queue.queue_id, m.queue_offset}] = {m.msg_id(), m.body()};
      }
    }
    return stored.size() == static_cast<std::size_t>(kCount);
  })) << stored.size() << " of " << kCount << " messages stored";
  std::map<std::pair<std::string, int>, std::int64_t> last_offset;
  for (const auto& [i, result] : results) {
    const auto& mq = result.message_queue;
    const auto it = stored.find({mq.broker_name, mq.queue_id, result.queue_offset});
    ASSERT_NE(it, stored.end()) << "send " << i << " at " << mq.to_string() << " offset " << result.queue_offset;
    EXPECT_EQ(it->second.first, result.msg_id);
    EXPECT_EQ(it->second.second, "auto-" + std::to_string(i));
    EXPECT_EQ(result.offset_msg_id.size(), 32u);
    const auto key = std::make_pair(mq.broker_name, mq.queue_id);
    if (last_offset.contains(key)) {
      EXPECT_GT(result.queue_offset, last_offset[key]) << "send " << i;
    }
    last_offset[key] = result.queue_offset;
  }
}

TEST_F(ProducerIntegrationTest, OrderedSendsKeepEachOrderOnOneQueue) {
  start_cluster("sdk-ordered");
  create_topic("SdkOrdered");
  auto hash = producer_->make_selector({"hash"});
  ASSERT_TRUE(hash.is_ok()) << hash.status().to_string();
  std::map<int, std::set<MessageQueue>> queues_of_order;
  for (int step = 0; step < 4; ++step) {
    for (int order = 0; order < 6; ++order) {
      auto result = producer_->send(Message("SdkOrdered", "order-" + std::to_string(order) + "-step-" + std::to_string(step)),
                                    {.selector = *hash, .argument = SelectArgument::int32(order)});
      ASSERT_TRUE(result.is_ok()) << result.status().to_string();
      queues_of_order[order].insert(result->message_queue);
    }
  }
  for (const auto& [order, queues] : queues_of_order) {
    ASSERT_EQ(queues.size(), 1u) << "order " << order << " was spread over several queues";
    // In its queue, the order's steps are in sequence (readable once dispatched: poll).
    const std::string prefix = "order-" + std::to_string(order) + "-step-";
    std::vector<std::string> steps;
    EXPECT_TRUE(eventually([&] {
      steps.clear();
      for (const auto& m : pull_all(*queues.begin())) {
        if (m.body().rfind(prefix, 0) == 0) steps.push_back(m.body());
      }
      return steps.size() >= 4;
    })) << "order " << order << ": " << steps.size() << " of 4 steps readable";
    EXPECT_EQ(steps, (std::vector<std::string>{prefix + "0", prefix + "1", prefix + "2", prefix + "3"}));
  }
}

TEST_F(ProducerIntegrationTest, CompressedBodiesRoundTrip) {
  start_cluster("sdk-compressed");
  create_topic("SdkCompressed", 2);
  std::string body;
  for (int i = 0; body.size() < 64 * 1024; ++i) body += "record " + std::to_string(i) + " of a compressible body\n";
  auto result = producer_->send(Message("SdkCompressed", body));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  // Readable once dispatched, which may come a moment after the send is acknowledged.
  std::vector<MessageExt> messages;
  for (int attempt = 0; attempt < 100 && messages.empty(); ++attempt) {
    messages = pull_all(result->message_queue);
    if (messages.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].body(), body);
  EXPECT_LT(messages[0].store_size, static_cast<std::int32_t>(body.size()));  // stored compressed
  EXPECT_EQ(messages[0].msg_id(), result->msg_id);
}

TEST_F(ProducerIntegrationTest, FailsOverWhenABrokerDies) {
  start_cluster("sdk-failover");
  create_topic("SdkFailover");
  // Both brokers are in use before one dies.
  std::set<std::string> brokers;
  for (int i = 0; i < 16; ++i) {
    auto result = producer_->send(Message("SdkFailover", "before"));
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    brokers.insert(result->message_queue.broker_name);
  }
  EXPECT_EQ(brokers, (std::set<std::string>{"broker-a", "broker-b"}));

  cluster_->broker(1).kill();  // broker-b, while the producer's route still lists it
  for (int i = 0; i < 16; ++i) {
    auto result = producer_->send(Message("SdkFailover", "after-" + std::to_string(i)));
    ASSERT_TRUE(result.is_ok()) << "send " << i << ": " << result.status().to_string();
    EXPECT_EQ(result->message_queue.broker_name, "broker-a");
    EXPECT_EQ(body_at(*result), "after-" + std::to_string(i));
  }
  // Async sends fail over too.
  auto async = producer_->send_async(Message("SdkFailover", "async-after"));
  ASSERT_EQ(async.wait_for(std::chrono::seconds(15)), std::future_status::ready);
  auto result = async.get();
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->message_queue.broker_name, "broker-a");
}

}  // namespace
}  // namespace mqkit::client
