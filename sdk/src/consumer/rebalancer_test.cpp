// The rebalance engine and the broker offset store against a FakeCluster playing two brokers:
// allocation among the group's consumers, the diff against the process queues, starting
// offsets per consume_from_where, orderly locking.
#include "rebalancer.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using testing::FakeCluster;

const MessageQueue kA0{"T", "broker-a", 0};

RemotingCommand ok_with_offset(std::int64_t offset) {
  RemotingCommand response;
  response.code = rc::kSuccess;
  response.ext_fields.set("offset", offset);
  return response;
}

RemotingCommand ok_with_body(const std::string& body) {
  RemotingCommand response;
  response.code = rc::kSuccess;
  response.body.assign(body.begin(), body.end());
  return response;
}

MessageQueue queue_of(const RemotingCommand& request, const std::string& broker) {
  return MessageQueue{std::string(request.ext_fields.get("topic").value_or("")), broker,
                      std::stoi(std::string(request.ext_fields.get("queueId").value_or("0")))};
}

struct RecordingListener : RebalanceListener {
  void on_queue_added(const MessageQueue& queue, const std::shared_ptr<ProcessQueue>&, std::int64_t offset) override {
    added[queue] = offset;
  }
  bool on_queue_removing(const MessageQueue& queue, ProcessQueue& process_queue) override {
    EXPECT_TRUE(process_queue.dropped());
    removing.push_back(queue);
    return !refuse_removal;
  }
  void on_queues_changed(const std::string& topic, const std::vector<MessageQueue>&,
                         const std::vector<MessageQueue>& owned) override {
    changed[topic] = owned;
  }
  std::map<MessageQueue, std::int64_t> added;
  std::vector<MessageQueue> removing;
  std::map<std::string, std::vector<MessageQueue>> changed;
  bool refuse_removal = false;
};

class RebalancerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.add_broker("broker-a", "10.0.0.1:10911");
    cluster_.add_broker("broker-b", "10.0.0.2:10911");
    cluster_.add_topic("T", "broker-a", 4);
    cluster_.add_topic("T", "broker-b", 4);
    ClientConfig config;
    config.namesrv_addresses = {FakeCluster::kNamesrv};
    config.client_ip = "10.0.0.9";
    config.instance_name = "rebalance-test";
    config.plugin_dirs = {MQKIT_PLUGIN_DIR};
    auto made = ClientInstance::create(config, cluster_.transport());
    ASSERT_TRUE(made.is_ok()) << made.status().to_string();
    instance_ = std::move(made).value();
    auto allocator = instance_->make_plugin<plugin::v1::QueueAllocator>(PluginChoice{"averagely"});
    ASSERT_TRUE(allocator.is_ok()) << allocator.status().to_string();
    allocator_ = std::move(allocator).value();
    offsets_ = std::make_shared<RemoteOffsetStore>(instance_, "g");

    cluster_.set_broker_handler(rq::kGetConsumerListByGroup, [this](const std::string&, const RemotingCommand&) {
      return ok_with_body(protocol::encode(protocol::ConsumerIdList{consumer_ids_}));
    });
    cluster_.set_broker_handler(rq::kQueryConsumerOffset, [this](const std::string& broker, const RemotingCommand& r) {
      const auto it = broker_offsets_.find(queue_of(r, broker));
      if (it == broker_offsets_.end()) {
        RemotingCommand response;
        response.code = rc::kQueryNotFound;
        return response;
      }
      return ok_with_offset(it->second);
    });
    cluster_.set_broker_handler(rq::kUpdateConsumerOffset, [this](const std::string& broker, const RemotingCommand& r) {
      broker_offsets_[queue_of(r, broker)] = std::stoll(std::string(r.ext_fields.get("commitOffset").value_or("-9")));
      return ok_with_offset(0);
    });
    cluster_.set_broker_handler(rq::kGetMaxOffset, [](const std::string&, const RemotingCommand&) {
      return ok_with_offset(100);
    });
    cluster_.set_broker_handler(rq::kLockBatchMq, [this](const std::string&, const RemotingCommand& r) {
      auto request = protocol::decode_lock_batch_request(protocol::body_text(r));
      protocol::LockBatchResponse response;
      for (const auto& queue : request->mq_set) {
        if (!locked_elsewhere_.contains(queue)) response.lock_ok_mq_set.insert(queue);
      }
      return ok_with_body(protocol::encode(response));
    });
  }

  std::unique_ptr<Rebalancer> make(RebalanceSettings settings) {
    settings.group = "g";
    auto rebalancer = std::make_unique<Rebalancer>(instance_, settings, allocator_, offsets_, listener_);
    rebalancer->set_subscription(*make_subscription("T", "*"));
    return rebalancer;
  }

  FakeCluster cluster_;
  std::shared_ptr<ClientInstance> instance_;
  std::shared_ptr<plugin::v1::QueueAllocator> allocator_;
  std::shared_ptr<OffsetStore> offsets_;
  RecordingListener listener_;
  std::vector<std::string> consumer_ids_{"10.0.0.9@rebalance-test"};
  std::map<MessageQueue, std::int64_t> broker_offsets_;
  std::set<MessageQueue> locked_elsewhere_;
};

TEST_F(RebalancerTest, AloneTheConsumerTakesEveryQueueFromStoredOrLastOffsets) {
  broker_offsets_[kA0] = 42;
  auto rebalancer = make({});
  EXPECT_TRUE(rebalancer->rebalance());
  ASSERT_EQ(listener_.added.size(), 8u);
  EXPECT_EQ(listener_.added.at(kA0), 42);                                // the group's stored offset
  EXPECT_EQ(listener_.added.at(MessageQueue{"T", "broker-b", 3}), 100);  // new: the queue's end
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);
  EXPECT_EQ(listener_.changed.at("T").size(), 8u);
  // Nothing changed: nothing added again.
  listener_.added.clear();
  listener_.changed.clear();
  EXPECT_TRUE(rebalancer->rebalance());
  EXPECT_TRUE(listener_.added.empty());
  EXPECT_TRUE(listener_.changed.empty());
}

TEST_F(RebalancerTest, ASecondConsumerTakesHalfAndTheRestIsGivenUp) {
  auto rebalancer = make({.consume_from_where = ConsumeFromWhere::kFirstOffset});
  ASSERT_TRUE(rebalancer->rebalance());
  EXPECT_EQ(listener_.added.at(kA0), 0);
  const auto pq_b0 = rebalancer->process_queue(MessageQueue{"T", "broker-b", 0});
  consumer_ids_ = {"10.0.0.9@rebalance-test", "10.0.0.8@other"};  // sorted: other first
  ASSERT_TRUE(rebalancer->rebalance());
  // Averagely: the second of two consumers gets the second half (broker-b's queues).
  const auto owned = rebalancer->owned_queues();
  ASSERT_EQ(owned.size(), 4u);
  for (const auto& queue : owned) EXPECT_EQ(queue.broker_name, "broker-b");
  EXPECT_EQ(listener_.removing.size(), 4u);
  for (const auto& queue : listener_.removing) EXPECT_EQ(queue.broker_name, "broker-a");
  EXPECT_EQ(rebalancer->process_queue(MessageQueue{"T", "broker-b", 0}), pq_b0);  // kept, not recreated
  EXPECT_FALSE(pq_b0->dropped());
}

TEST_F(RebalancerTest, AQueueTheListenerStillUsesIsKeptUntilANextRound) {
  auto rebalancer = make({});
  ASSERT_TRUE(rebalancer->rebalance());
  consumer_ids_ = {"10.0.0.9@rebalance-test", "10.0.0.8@other"};
  listener_.refuse_removal = true;
  ASSERT_TRUE(rebalancer->rebalance());
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);
  EXPECT_TRUE(rebalancer->process_queue(kA0)->dropped());
  listener_.refuse_removal = false;
  ASSERT_TRUE(rebalancer->rebalance());
  EXPECT_EQ(rebalancer->owned_queues().size(), 4u);
}

TEST_F(RebalancerTest, RemovingASubscriptionGivesUpItsQueuesAtOnce) {
  cluster_.add_topic("U", "broker-a", 2);
  auto rebalancer = make({});
  rebalancer->set_subscription(*make_subscription("U", "*"));
  ASSERT_TRUE(rebalancer->rebalance());
  ASSERT_EQ(rebalancer->owned_queues().size(), 10u);
  const auto pq_u0 = rebalancer->process_queue(MessageQueue{"U", "broker-a", 0});

  rebalancer->remove_subscription("U");
  EXPECT_EQ(rebalancer->subscription("U"), nullptr);
  EXPECT_EQ(rebalancer->subscriptions().size(), 1u);
  ASSERT_EQ(listener_.removing.size(), 2u);
  for (const auto& queue : listener_.removing) EXPECT_EQ(queue.topic, "U");
  EXPECT_TRUE(pq_u0->dropped());
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);  // T's stay
  listener_.added.clear();
  ASSERT_TRUE(rebalancer->rebalance());
  EXPECT_TRUE(listener_.added.empty());  // and U's are not taken again

  // A queue the listener keeps is given up by the next round.
  listener_.refuse_removal = true;
  rebalancer->remove_subscription("T");
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);
  listener_.refuse_removal = false;
  EXPECT_TRUE(rebalancer->rebalance());
  EXPECT_TRUE(rebalancer->owned_queues().empty());
}

TEST_F(RebalancerTest, AGroupTheBrokerDoesNotKnowYetHeartbeatsAndAsksAgain) {
  consumer_ids_.clear();
  cluster_.set_broker_handler(rq::kHeartBeat, [this](const std::string&, const RemotingCommand&) {
    consumer_ids_ = {"10.0.0.9@rebalance-test"};
    return ok_with_offset(0);
  });
  auto rebalancer = make({});
  // The instance heartbeats its consumers; this test's group is not registered, so the
  // heartbeat only goes out once a member exists — as in a real consumer.
  struct Member : ConsumerMember {
    std::string group() const override { return "g"; }
    protocol::ConsumerData consumer_data() const override { return protocol::ConsumerData{.group_name = "g"}; }
    std::vector<std::string> subscribed_topics() const override { return {"T"}; }
    void rebalance() override {}
    void persist_offsets() override {}
    protocol::ConsumerRunningInfo running_info() const override { return {}; }
  };
  ASSERT_TRUE(instance_->register_consumer(std::make_shared<Member>()).is_ok());
  EXPECT_TRUE(rebalancer->rebalance());
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);
  EXPECT_FALSE(cluster_.transport()->calls_with_code(rq::kHeartBeat).empty());
}

TEST_F(RebalancerTest, ConsumerNotListedByTheBrokerOwnsNothing) {
  consumer_ids_ = {"10.0.0.8@other"};
  auto rebalancer = make({});
  EXPECT_TRUE(rebalancer->rebalance());
  EXPECT_TRUE(rebalancer->owned_queues().empty());
}

TEST_F(RebalancerTest, BroadcastingTakesEveryQueueWithoutAskingForConsumers) {
  consumer_ids_ = {"10.0.0.8@other"};
  auto rebalancer = make({.message_model = MessageModel::kBroadcasting});
  EXPECT_TRUE(rebalancer->rebalance());
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);
  EXPECT_TRUE(cluster_.transport()->calls_with_code(rq::kGetConsumerListByGroup).empty());
}

TEST_F(RebalancerTest, TopicWithoutRouteFailsTheRoundAndIsRetried) {
  auto rebalancer = make({});
  rebalancer->set_subscription(*make_subscription("NoSuchTopic", "*"));
  EXPECT_FALSE(rebalancer->rebalance());
  EXPECT_EQ(rebalancer->owned_queues().size(), 8u);  // T is still balanced
}

TEST_F(RebalancerTest, RetryTopicsStartAtZeroAndTimestampsAreSearched) {
  cluster_.add_topic("%RETRY%g", "broker-a", 1);
  auto rebalancer = make({});
  EXPECT_EQ(*rebalancer->compute_pull_from_where(MessageQueue{"%RETRY%g", "broker-a", 0}), 0);
  cluster_.set_broker_handler(rq::kSearchOffsetByTimestamp, [](const std::string&, const RemotingCommand& r) {
    return ok_with_offset(std::stoll(std::string(r.ext_fields.get("timestamp").value_or("0"))) / 1000);
  });
  auto by_time = make({.consume_from_where = ConsumeFromWhere::kTimestamp, .consume_timestamp_ms = 7000});
  EXPECT_EQ(*by_time->compute_pull_from_where(kA0), 7);
}

TEST_F(RebalancerTest, OrderlyTakesOnlyQueuesItCouldLockAndUnlocksWhatItGivesUp) {
  locked_elsewhere_ = {kA0};
  auto rebalancer = make({.orderly = true});
  EXPECT_TRUE(rebalancer->rebalance());
  EXPECT_EQ(rebalancer->owned_queues().size(), 7u);
  EXPECT_FALSE(rebalancer->owned_queues().contains(kA0));
  for (const auto& [queue, process_queue] : rebalancer->process_queues()) EXPECT_TRUE(process_queue->lock_valid());
  // Lock maintenance: a refused re-lock clears the lock state.
  locked_elsewhere_ = {MessageQueue{"T", "broker-b", 1}};
  rebalancer->lock_all();
  EXPECT_FALSE(rebalancer->process_queue(MessageQueue{"T", "broker-b", 1})->lock_valid());
  EXPECT_TRUE(rebalancer->process_queue(MessageQueue{"T", "broker-b", 2})->lock_valid());
  // Once free, the queue is taken on the next round.
  locked_elsewhere_.clear();
  ASSERT_TRUE(rebalancer->rebalance());
  EXPECT_TRUE(rebalancer->owned_queues().contains(kA0));
  const auto unlocks_before = cluster_.transport()->calls_with_code(rq::kUnlockBatchMq).size();
  rebalancer->remove_all();
  EXPECT_TRUE(rebalancer->owned_queues().empty());
  EXPECT_GE(cluster_.transport()->calls_with_code(rq::kUnlockBatchMq).size(), unlocks_before + 7);
}

TEST_F(RebalancerTest, RemoteOffsetStoreReadsAndPersistsOwnedQueuesOnly) {
  RemoteOffsetStore store(instance_, "g");
  ASSERT_TRUE(instance_->route("T").is_ok());
  const MessageQueue b1{"T", "broker-b", 1};
  EXPECT_EQ(*store.read(kA0, ReadOffsetType::kMemoryThenStore), -1);  // QUERY_NOT_FOUND
  broker_offsets_[kA0] = 12;
  EXPECT_EQ(*store.read(kA0, ReadOffsetType::kMemory), -1);
  EXPECT_EQ(*store.read(kA0, ReadOffsetType::kStore), 12);
  EXPECT_EQ(*store.read(kA0, ReadOffsetType::kMemory), 12);  // cached by the store read
  store.update(kA0, 20, true);
  store.update(b1, 5, false);
  store.persist_all({kA0});
  EXPECT_EQ(broker_offsets_.at(kA0), 20);
  EXPECT_FALSE(broker_offsets_.contains(b1));        // not owned: not written ...
  EXPECT_EQ(*store.read(b1, ReadOffsetType::kMemory), -1);  // ... and forgotten
  cluster_.set_unreachable("broker-a", true);
  EXPECT_FALSE(store.read(kA0, ReadOffsetType::kStore).is_ok());
}

}  // namespace
}  // namespace mqkit::client
