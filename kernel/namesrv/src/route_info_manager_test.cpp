#include "mqkit/namesrv/route_info_manager.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/codes.hpp"
#include "registration_test_support.hpp"

namespace mqkit::namesrv {
namespace {

BrokerRegistration broker(std::string name, std::string addr, std::int64_t id, std::vector<std::string> topics,
                          std::int64_t version = 1) {
  BrokerRegistration r = testing::registration("DefaultCluster", std::move(name), std::move(addr), id, topics, version);
  r.ha_server_addr = r.broker_addr.substr(0, r.broker_addr.find(':')) + ":10912";
  return r;
}

TEST(RouteInfoManagerTest, RoutesListQueuesAndBrokersOfATopic) {
  RouteInfoManager m;
  m.register_broker(broker("broker-b", "10.0.0.2:10911", 0, {"T"}), 0);
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "U"}), 0);
  auto route = m.route("T");
  ASSERT_TRUE(route.has_value());
  ASSERT_EQ(route->queue_datas.size(), 2u);
  EXPECT_EQ(route->queue_datas[0].broker_name, "broker-a");  // sorted by broker name
  EXPECT_EQ(route->queue_datas[0].write_queue_nums, 4);
  ASSERT_EQ(route->broker_datas.size(), 2u);
  EXPECT_EQ(route->broker_datas[0].broker_addrs.at(0), "10.0.0.1:10911");
  EXPECT_EQ(m.route("U")->broker_datas.size(), 1u);
  EXPECT_FALSE(m.route("nope").has_value());
  EXPECT_EQ(m.topics(), (std::set<std::string>{"T", "U"}));
}

TEST(RouteInfoManagerTest, SlavesLearnTheirMasterAndDoNotChangeQueues) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T"}), 0);
  const auto result = m.register_broker(broker("broker-a", "10.0.0.9:10911", 1, {"T", "ignored"}), 0);
  EXPECT_EQ(result.master_addr, "10.0.0.1:10911");
  EXPECT_EQ(result.ha_server_addr, "10.0.0.1:10912");
  EXPECT_FALSE(m.route("ignored").has_value());
  EXPECT_EQ(m.route("T")->broker_datas[0].broker_addrs.size(), 2u);
}

TEST(RouteInfoManagerTest, SilentBrokersExpireAndTheirTopicsGo) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T"}), 0);
  m.register_broker(broker("broker-b", "10.0.0.2:10911", 0, {"T"}), 100'000);
  EXPECT_TRUE(m.expire_brokers(119'000, 120'000).empty());
  EXPECT_EQ(m.expire_brokers(121'000, 120'000), std::vector<std::string>{"10.0.0.1:10911"});
  auto route = m.route("T");
  ASSERT_TRUE(route.has_value());
  ASSERT_EQ(route->broker_datas.size(), 1u);
  EXPECT_EQ(route->broker_datas[0].broker_name, "broker-b");
  EXPECT_EQ(m.cluster_info().cluster_addr_table.at("DefaultCluster"), std::set<std::string>{"broker-b"});
  m.expire_brokers(300'000, 120'000);
  EXPECT_FALSE(m.route("T").has_value());
  EXPECT_TRUE(m.cluster_info().broker_addr_table.empty());
}

TEST(RouteInfoManagerTest, ReRegistrationWithAChangedTableUpdatesAndRemovesTopics) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "Old"}, 1), 0);
  auto changed = broker("broker-a", "10.0.0.1:10911", 0, {"T", "New"}, 2);
  changed.topics.topic_config_table["T"].write_queue_nums = 8;
  m.register_broker(changed, 10);
  EXPECT_FALSE(m.route("Old").has_value());
  EXPECT_TRUE(m.route("New").has_value());
  EXPECT_EQ(m.route("T")->queue_datas[0].write_queue_nums, 8);
}

// A RocketMQ broker registers a topic an admin just created alone, with a new data version
// (registerIncrementBrokerData): its other topics stay routed.
TEST(RouteInfoManagerTest, AnIncrementalRegistrationAddsTopicsAndKeepsTheOthers) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "U"}, 1), 0);
  auto incremental = broker("broker-a", "10.0.0.1:10911", 0, {"New"}, 2);
  incremental.full_topic_table = false;
  incremental.topics.topic_config_table["New"].write_queue_nums = 8;
  m.register_broker(incremental, 10);
  EXPECT_TRUE(m.route("T").has_value());
  EXPECT_TRUE(m.route("U").has_value());
  ASSERT_TRUE(m.route("New").has_value());
  EXPECT_EQ(m.route("New")->queue_datas[0].write_queue_nums, 8);
  // The next whole table carries the same version: nothing to redo, nothing lost.
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "U", "New"}, 2), 20);
  EXPECT_EQ(m.topics(), (std::set<std::string>{"New", "T", "U"}));
}

// A name server that restarted may hear of a broker first through a registration of one new topic;
// the broker's next registration, its whole table at the same data version, still counts.
TEST(RouteInfoManagerTest, AFirstRegistrationThatMayBePartialIsFollowedByTheWholeTable) {
  RouteInfoManager m;
  auto incremental = broker("broker-a", "10.0.0.1:10911", 0, {"New"}, 2);
  incremental.full_topic_table = false;
  m.register_broker(incremental, 0);
  EXPECT_EQ(m.topics(), (std::set<std::string>{"New"}));
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "New"}, 2), 10);
  EXPECT_EQ(m.topics(), (std::set<std::string>{"New", "T"}));
}

// mqadmin wipeWritePerm / addWritePerm: only the named broker's queue entries change, and the
// change holds while the broker re-registers an unchanged topic table (RocketMQ's behaviour).
TEST(RouteInfoManagerTest, WritePermOfABrokerIsWipedAndAddedBack) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "U"}, 1), 0);
  m.register_broker(broker("broker-b", "10.0.0.2:10911", 0, {"T"}, 1), 0);
  const auto perm_of = [&](const std::string& topic, const std::string& broker_name) {
    const auto route = m.route(topic);
    if (!route) return -1;
    for (const auto& q : route->queue_datas) {
      if (q.broker_name == broker_name) return q.perm;
    }
    return -1;
  };
  EXPECT_EQ(m.set_write_perm_of_broker("broker-a", false), 2);
  EXPECT_EQ(perm_of("T", "broker-a"), protocol::perm::kRead);
  EXPECT_EQ(perm_of("U", "broker-a"), protocol::perm::kRead);
  EXPECT_EQ(perm_of("T", "broker-b"), protocol::perm::kRead | protocol::perm::kWrite);
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "U"}, 1), 30'000);  // same data version
  EXPECT_EQ(perm_of("T", "broker-a"), protocol::perm::kRead);
  EXPECT_EQ(m.set_write_perm_of_broker("broker-a", true), 2);
  EXPECT_EQ(perm_of("T", "broker-a"), protocol::perm::kRead | protocol::perm::kWrite);
  EXPECT_EQ(m.set_write_perm_of_broker("no-such-broker", false), 0);
}

TEST(RouteInfoManagerTest, DataVersionQueriesRefreshLiveness) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T"}, 5), 0);
  EXPECT_FALSE(m.data_version_changed("10.0.0.1:10911", {1000, 5, 0}, 100'000));
  EXPECT_TRUE(m.data_version_changed("10.0.0.1:10911", {1000, 6, 0}, 100'000));
  EXPECT_TRUE(m.data_version_changed("10.9.9.9:10911", {1000, 5, 0}, 100'000));
  EXPECT_TRUE(m.expire_brokers(200'000, 120'000).empty());  // refreshed at 100 s
}

TEST(RouteInfoManagerTest, ClosedChannelsAndUnregisterRemoveBrokers) {
  RouteInfoManager m;
  auto a = broker("broker-a", "10.0.0.1:10911", 0, {"T"});
  a.channel_id = 7;
  m.register_broker(a, 0);
  m.register_broker(broker("broker-b", "10.0.0.2:10911", 0, {"T"}), 0);
  EXPECT_EQ(m.on_channel_closed(7), std::vector<std::string>{"10.0.0.1:10911"});
  m.unregister_broker("DefaultCluster", "10.0.0.2:10911", "broker-b", 0);
  EXPECT_FALSE(m.route("T").has_value());
}

TEST(RouteInfoManagerTest, AnAddressServesUnderOneBrokerIdOnly) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 1, {"T"}), 0);
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T"}), 0);  // promoted
  const auto addrs = m.cluster_info().broker_addr_table.at("broker-a").broker_addrs;
  EXPECT_EQ(addrs.size(), 1u);
  EXPECT_EQ(addrs.at(0), "10.0.0.1:10911");
}

TEST(RouteInfoManagerTest, TopicsByClusterAndDelete) {
  RouteInfoManager m;
  m.register_broker(broker("broker-a", "10.0.0.1:10911", 0, {"T", "U"}), 0);
  EXPECT_EQ(m.topics_of_cluster("DefaultCluster"), (std::set<std::string>{"T", "U"}));
  EXPECT_TRUE(m.topics_of_cluster("Other").empty());
  m.delete_topic("T");
  EXPECT_FALSE(m.route("T").has_value());
}

}  // namespace
}  // namespace mqkit::namesrv
