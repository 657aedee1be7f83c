#include "mqkit/client/client_instance.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using testing::FakeCluster;

ClientConfig test_config() {
  ClientConfig config;
  config.namesrv_addresses = {FakeCluster::kNamesrv};
  config.client_ip = "10.0.0.9";
  config.instance_name = "instance-test";
  config.plugin_dirs = {MQKIT_PLUGIN_DIR};
  return config;
}

class ClientInstanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.add_broker("broker-a", "10.0.0.1:10911");
    cluster_.add_broker("broker-b", "10.0.0.2:10911");
    cluster_.add_topic("T", "broker-a", 4);
    cluster_.add_topic("T", "broker-b", 2);
    cluster_.add_topic("TBW102", "broker-a", 8, 7);
    auto made = ClientInstance::create(test_config(), cluster_.transport());
    ASSERT_TRUE(made.is_ok()) << made.status().to_string();
    instance_ = std::move(made).value();
  }
  FakeCluster cluster_;
  std::shared_ptr<ClientInstance> instance_;
};

// A task on the instance's own async thread holding its last reference (a consumer the
// application destroyed while one of its tasks was queued): destroying the instance there would
// join that very thread (std::terminate); the reaper thread destroys it instead.
TEST_F(ClientInstanceTest, ItsLastReferenceDroppedOnItsOwnThreadDoesNotJoinThatThread) {
  const auto transport_refs_with_instance = cluster_.transport().use_count();
  std::promise<void> test_let_go;
  ASSERT_TRUE(instance_->execute([owner = instance_, let_go = test_let_go.get_future().share()]() mutable {
    let_go.wait();
    owner.reset();  // the last reference
  }));
  instance_.reset();
  test_let_go.set_value();
  // Destroyed once it let go of the transport (its last member to hold one).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cluster_.transport().use_count() >= transport_refs_with_instance &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_LT(cluster_.transport().use_count(), transport_refs_with_instance);
}

TEST_F(ClientInstanceTest, CachesRoutesAndBrokerAddresses) {
  EXPECT_EQ(instance_->cached_route("T"), nullptr);
  auto route = instance_->route("T");
  ASSERT_TRUE(route.is_ok()) << route.status().to_string();
  EXPECT_EQ((*route)->publish.queues.size(), 6u);
  EXPECT_EQ((*route)->subscribe_queues.size(), 6u);
  EXPECT_FALSE((*route)->from_default_topic);
  EXPECT_EQ(instance_->find_broker_master("broker-b"), "10.0.0.2:10911");
  EXPECT_EQ(instance_->find_broker_master("broker-x"), "");
  auto slave = instance_->find_broker("broker-a", 1, false);
  ASSERT_TRUE(slave.has_value());
  EXPECT_EQ(slave->address, "10.0.0.1:10911");
  EXPECT_FALSE(slave->slave);
  EXPECT_FALSE(instance_->find_broker("broker-a", 1, true).has_value());
  EXPECT_FALSE(instance_->find_broker_address_of_topic("T").empty());
  const auto lookups = cluster_.transport()->calls_with_code(rq::kGetRouteInfoByTopic).size();
  ASSERT_TRUE(instance_->route("T").is_ok());
  EXPECT_EQ(cluster_.transport()->calls_with_code(rq::kGetRouteInfoByTopic).size(), lookups);  // cached
}

// RocketMQ's findBrokerAddressInSubscribe: a missing slave id falls to the next id, then (unless
// only that broker will do) to the lowest id known.
TEST_F(ClientInstanceTest, FindBrokerFallsFromAMissingSlaveToTheNextIdThenToTheLowest) {
  cluster_.add_slave("broker-b", 2, "10.0.0.22:10911");
  cluster_.add_slave("broker-b", 4, "10.0.0.24:10911");
  ASSERT_TRUE(instance_->route("T").is_ok());
  const auto exact = instance_->find_broker("broker-b", 2, true);
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ(exact->address, "10.0.0.22:10911");
  EXPECT_TRUE(exact->slave);
  const auto next = instance_->find_broker("broker-b", 3, true);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->address, "10.0.0.24:10911");
  EXPECT_TRUE(next->slave);
  EXPECT_FALSE(instance_->find_broker("broker-b", 5, true).has_value()) << "only the next id is tried";
  const auto lowest = instance_->find_broker("broker-b", 5, false);
  ASSERT_TRUE(lowest.has_value());
  EXPECT_EQ(lowest->address, "10.0.0.2:10911");
  EXPECT_FALSE(lowest->slave);
}

TEST_F(ClientInstanceTest, TopicWithoutRouteGetsTheCreateTopicKeysRoute) {
  EXPECT_EQ(instance_->route("NewTopic").status().code(), StatusCode::kNotFound);
  auto route = instance_->publish_route("NewTopic", DefaultTopicRoute{"TBW102", 4});
  ASSERT_TRUE(route.is_ok()) << route.status().to_string();
  EXPECT_TRUE((*route)->from_default_topic);
  ASSERT_EQ((*route)->publish.queues.size(), 4u);  // min(4, 8)
  EXPECT_EQ((*route)->publish.queues[0].topic, "NewTopic");
  // Once the name server knows it, a refresh replaces the borrowed route.
  cluster_.add_topic("NewTopic", "broker-b", 3);
  ASSERT_TRUE(instance_->update_route("NewTopic").is_ok());
  EXPECT_FALSE(instance_->cached_route("NewTopic")->from_default_topic);
  EXPECT_EQ(instance_->cached_route("NewTopic")->publish.queues.size(), 3u);

  auto nothing = instance_->publish_route("Nothing", DefaultTopicRoute{"NoSuchKey", 4});
  EXPECT_EQ(nothing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(nothing.status().message().find("No route info of this topic: Nothing"), std::string::npos);
}

TEST_F(ClientInstanceTest, HeartbeatsCarryTheGroupsAndGoToMastersOnly) {
  EXPECT_TRUE(instance_->send_heartbeat_to_all_brokers().is_ok());  // nothing registered: nothing sent
  EXPECT_TRUE(cluster_.transport()->calls_with_code(rq::kHeartBeat).empty());
  ASSERT_TRUE(instance_->register_producer("PG").is_ok());
  EXPECT_EQ(instance_->register_producer("PG").code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(instance_->route("T").is_ok());
  EXPECT_TRUE(instance_->send_heartbeat_to_all_brokers().is_ok());
  const auto beats = cluster_.transport()->calls_with_code(rq::kHeartBeat);
  ASSERT_EQ(beats.size(), 2u);
  std::set<std::string> addresses;
  for (const auto& beat : beats) {
    addresses.insert(beat.address);
    auto data = protocol::decode_heartbeat(protocol::body_text(beat.request));
    ASSERT_TRUE(data.is_ok());
    EXPECT_EQ(data->client_id, "10.0.0.9@instance-test");
    EXPECT_EQ(data->producer_groups, std::vector<std::string>{"PG"});
  }
  EXPECT_EQ(addresses, (std::set<std::string>{"10.0.0.1:10911", "10.0.0.2:10911"}));
  instance_->unregister_producer("PG");
  EXPECT_EQ(cluster_.transport()->calls_with_code(rq::kUnregisterClient).size(), 2u);
  EXPECT_TRUE(instance_->producer_groups().empty());
}

class NoChecker final : public TransactionChecker {
 public:
  void check_transaction_state(const std::string&, MessageExt,
                               protocol::transaction::CheckTransactionStateHeader) override {}
};

TEST_F(ClientInstanceTest, ATransactionCheckerBelongsToARegisteredProducerGroup) {
  const auto checker = std::make_shared<NoChecker>();
  EXPECT_EQ(instance_->set_transaction_checker("PG", checker).code(), StatusCode::kNotFound);
  ASSERT_TRUE(instance_->register_producer("PG").is_ok());
  EXPECT_TRUE(instance_->set_transaction_checker("PG", checker).is_ok());
  EXPECT_EQ(checker.use_count(), 2);  // the instance holds it
  instance_->unregister_producer("PG");
  EXPECT_EQ(checker.use_count(), 1);  // and lets go with the group
  EXPECT_EQ(instance_->set_transaction_checker("PG", checker).code(), StatusCode::kNotFound);
}

class CountingConsumer final : public ConsumerMember {
 public:
  std::string group() const override { return "CG"; }
  protocol::ConsumerData consumer_data() const override {
    protocol::ConsumerData data;
    data.group_name = "CG";
    data.consume_type = "CONSUME_PASSIVELY";
    data.message_model = "CLUSTERING";
    data.consume_from_where = "CONSUME_FROM_LAST_OFFSET";
    return data;
  }
  std::vector<std::string> subscribed_topics() const override { return {"T"}; }
  void rebalance() override { ++rebalances; }
  void persist_offsets() override { ++persists; }
  protocol::ConsumerRunningInfo running_info() const override {
    protocol::ConsumerRunningInfo info;
    info.properties["consumerGroup"] = "CG";
    info.mq_table[{"T", "broker-a", 0}].commit_offset = 42;
    return info;
  }
  std::map<MessageQueue, std::int64_t> offset_table(std::string_view topic) const override {
    std::map<MessageQueue, std::int64_t> all{{{"T", "broker-a", 0}, 42}, {{"U", "broker-a", 1}, 7}};
    std::erase_if(all, [&](const auto& entry) { return !topic.empty() && entry.first.topic != topic; });
    return all;
  }
  std::atomic<int> rebalances{0};
  std::atomic<int> persists{0};
};

TEST_F(ClientInstanceTest, BrokerNoticeOfGroupChangeRebalancesConsumers) {
  auto consumer = std::make_shared<CountingConsumer>();
  ASSERT_TRUE(instance_->register_consumer(consumer).is_ok());
  EXPECT_EQ(instance_->register_consumer(consumer).code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(instance_->start().is_ok());
  ASSERT_TRUE(instance_->route("T").is_ok());
  // The connection the client opened is how the broker reaches it.
  ASSERT_TRUE(instance_->api().heartbeat("10.0.0.1:10911", protocol::HeartbeatData{}).is_ok());
  auto notice = RemotingCommand::request(rq::kNotifyConsumerIdsChanged);
  notice.flag |= RemotingCommand::kOnewayFlag;
  notice.ext_fields.set("consumerGroup", std::string("CG"));
  cluster_.transport()->deliver_request("10.0.0.1:10911", std::move(notice));
  for (int i = 0; i < 500 && consumer->rebalances.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(consumer->rebalances.load(), 1);
  EXPECT_TRUE(cluster_.transport()->client_responses().empty());  // one-way: not answered

  // Codes nobody serves are refused, as RocketMQ does.
  cluster_.transport()->deliver_request("10.0.0.1:10911", RemotingCommand::request(rq::kConsumeMessageDirectly));
  const auto responses = cluster_.transport()->client_responses();
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].code, rc::kRequestCodeNotSupported);

  // Heartbeats now include the consumer and reach every broker address.
  EXPECT_TRUE(instance_->send_heartbeat_to_all_brokers().is_ok());
  instance_->unregister_consumer("CG");
}

TEST_F(ClientInstanceTest, AnswersConsumerRunningInfoForItsGroups) {
  auto consumer = std::make_shared<CountingConsumer>();
  ASSERT_TRUE(instance_->register_consumer(consumer).is_ok());
  ASSERT_TRUE(instance_->api().heartbeat("10.0.0.1:10911", protocol::HeartbeatData{}).is_ok());
  auto ask = [&](const std::string& group) {
    auto request = RemotingCommand::request(rq::kGetConsumerRunningInfo);
    request.opaque = 77;
    request.ext_fields.set("consumerGroup", group);
    request.ext_fields.set("clientId", instance_->client_id());
    request.ext_fields.set("jstackEnable", false);
    cluster_.transport()->deliver_request("10.0.0.1:10911", std::move(request));
    return cluster_.transport()->client_responses().back();
  };
  const RemotingCommand answer = ask("CG");
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  EXPECT_EQ(answer.opaque, 77);
  auto info = protocol::decode_consumer_running_info(protocol::body_text(answer));
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->properties.at("consumerGroup"), "CG");
  EXPECT_EQ(info->properties.at("PROP_CONSUME_TYPE"), "CONSUME_PASSIVELY");
  EXPECT_EQ(info->properties.at("PROP_CLIENT_VERSION"), "V4_9_4");
  EXPECT_EQ(info->properties.at("PROP_NAMESERVER_ADDR"), std::string(FakeCluster::kNamesrv) + ";");
  EXPECT_EQ(info->mq_table.at({"T", "broker-a", 0}).commit_offset, 42);

  const RemotingCommand unknown = ask("NotHere");
  EXPECT_EQ(unknown.code, rc::kSystemError);
  EXPECT_EQ(unknown.remark.value_or(""), "The Consumer Group <NotHere> not exist in this consumer");
  instance_->unregister_consumer("CG");
}

TEST_F(ClientInstanceTest, AnswersConsumerStatusWithTheGroupsOffsetsOfTheTopic) {
  auto consumer = std::make_shared<CountingConsumer>();
  ASSERT_TRUE(instance_->register_consumer(consumer).is_ok());
  ASSERT_TRUE(instance_->api().heartbeat("10.0.0.1:10911", protocol::HeartbeatData{}).is_ok());
  auto ask = [&](const std::string& group, const std::string& topic) {
    auto request = RemotingCommand::request(rq::kGetConsumerStatusFromClient);
    request.opaque = 78;
    request.ext_fields.set("topic", topic);
    request.ext_fields.set("group", group);
    cluster_.transport()->deliver_request("10.0.0.1:10911", std::move(request));
    return cluster_.transport()->client_responses().back();
  };
  const RemotingCommand answer = ask("CG", "T");
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  EXPECT_EQ(answer.opaque, 78);
  // GetConsumerStatusBody as a Java client writes it: the offsets in messageQueueTable.
  EXPECT_EQ(protocol::body_text(answer),
            R"({"consumerTable":{},"messageQueueTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:42}})");
  // A group not consuming here answers an empty table, as RocketMQ's client does.
  const RemotingCommand unknown = ask("NotHere", "T");
  EXPECT_EQ(unknown.code, rc::kSuccess);
  EXPECT_EQ(protocol::body_text(unknown), R"({"consumerTable":{},"messageQueueTable":{}})");
  instance_->unregister_consumer("CG");
}

TEST_F(ClientInstanceTest, ProcessesRegisteredRequestCodes) {
  std::atomic<int> served{0};
  instance_->register_request_processor(rq::kResetConsumerClientOffset,
                                        [&](const std::shared_ptr<plugin::v1::Channel>&, RemotingCommand) { ++served; });
  ASSERT_TRUE(instance_->api().heartbeat("10.0.0.2:10911", protocol::HeartbeatData{}).is_ok());
  cluster_.transport()->deliver_request("10.0.0.2:10911", RemotingCommand::request(rq::kResetConsumerClientOffset));
  EXPECT_EQ(served.load(), 1);
}

}  // namespace
}  // namespace mqkit::client
