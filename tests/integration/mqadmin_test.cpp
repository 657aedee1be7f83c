// mqadmin as users run it: the real binary against a real name server and broker (and, for
// consumerStatus, consumerConnection and producerConnection, a push consumer and a producer of
// this process), checking what it prints, its JSON and its exit codes.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"

namespace mqkit::testing {
namespace {

// What an export command wrote.
std::string file_text(const std::string& path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

using AdminRun = mqkit::testing::ToolRun;

class MqadminTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new LocalCluster("mqadmin_test");
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a"}).is_ok());
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  // Runs mqadmin with `args` plus -n; bounded by a 30 s wait.
  AdminRun mqadmin(std::vector<std::string> args, bool with_namesrv = true) {
    if (with_namesrv) {
      args.push_back("-n");
      args.push_back(cluster_->namesrv_addrs());
    }
    return mqkit::testing::run_tool("mqadmin", args, "mqadmin-" + args.front());
  }

  bool eventually(const std::function<bool()>& condition) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return condition();
  }

  static LocalCluster* cluster_;
};

LocalCluster* MqadminTest::cluster_ = nullptr;

// RocketMQ 5's -a: the broker keeps the attribute (docs/proxy.md), refusals are named.
TEST_F(MqadminTest, UpdateTopicWithAttributes) {
  auto fifo = mqadmin({"updateTopic", "-t", "FifoTopic", "-c", "DefaultCluster", "-a", "+message.type=FIFO"});
  ASSERT_EQ(fifo.code, 0) << fifo.out << fifo.err;
  const std::string dir = (cluster_->directory() / "attributes").string();
  auto exported = mqadmin({"exportMetadata", "-c", "DefaultCluster", "-f", dir});
  ASSERT_EQ(exported.code, 0) << exported.err;
  const std::string metadata = file_text(dir + "/metadata.json");
  EXPECT_NE(metadata.find("\"message.type\":\"FIFO\""), std::string::npos) << metadata;

  auto unsupported = mqadmin({"updateTopic", "-t", "FifoTopic", "-c", "DefaultCluster", "-a", "+queue.type=BatchCQ"});
  EXPECT_NE(unsupported.code, 0);
  EXPECT_NE(unsupported.err.find("unsupported topic attribute: queue.type"), std::string::npos) << unsupported.err;
  auto unsigned_change = mqadmin({"updateTopic", "-t", "FifoTopic", "-c", "DefaultCluster", "-a", "message.type=FIFO"});
  EXPECT_NE(unsigned_change.code, 0);
  EXPECT_NE(unsigned_change.err.find("must start with +"), std::string::npos) << unsigned_change.err;
}

TEST_F(MqadminTest, UpdateTopicThenRouteAndList) {
  auto created = mqadmin({"updateTopic", "-t", "AdminTopic", "-c", "DefaultCluster", "-r", "4", "-w", "4"});
  ASSERT_EQ(created.code, 0) << created.out;
  EXPECT_NE(created.out.find("success"), std::string::npos) << created.out;
  // The broker registers the new topic before it answers, as RocketMQ's does.
  AdminRun route = mqadmin({"topicRoute", "-t", "AdminTopic"});
  ASSERT_EQ(route.code, 0) << route.out << route.err;
  EXPECT_NE(route.out.find("broker-a"), std::string::npos) << route.out;
  auto list = mqadmin({"topicList"});
  ASSERT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("AdminTopic"), std::string::npos) << list.out;

  auto clusters = mqadmin({"topicClusterList", "-t", "AdminTopic"});
  ASSERT_EQ(clusters.code, 0) << clusters.err;
  EXPECT_EQ(clusters.out, "DefaultCluster\n");
  EXPECT_NE(mqadmin({"topicClusterList", "-t", "NoSuchTopic"}).code, 0);

  auto json = mqadmin({"topicRoute", "-t", "AdminTopic", "--json"});
  ASSERT_EQ(json.code, 0);
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.out.c_str()).HasParseError()) << json.out;
  ASSERT_TRUE(doc.HasMember("queueDatas"));
  ASSERT_EQ(doc["queueDatas"].Size(), 1u);
  EXPECT_EQ(doc["queueDatas"][0]["readQueueNums"].GetInt(), 4);
}

TEST_F(MqadminTest, DeleteTopicRemovesRoute) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "DoomedTopic", "-c", "DefaultCluster"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "DoomedTopic"}).code == 0; }));
  auto deleted = mqadmin({"deleteTopic", "-t", "DoomedTopic", "-c", "DefaultCluster"});
  ASSERT_EQ(deleted.code, 0) << deleted.out;
  EXPECT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "DoomedTopic"}).code != 0; }));
  EXPECT_NE(mqadmin({"deleteTopic", "-t", "DoomedTopic", "-c", "NoSuchCluster"}).code, 0);
}

// wipeWritePerm drains a broker before maintenance: the name servers' routes show its queues
// read-only until addWritePerm (or the broker's next topic table change).
TEST_F(MqadminTest, WipeAndAddWritePermOfABroker) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "DrainTopic", "-c", "DefaultCluster"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "DrainTopic"}).code == 0; }));
  const auto perm = [&] {
    auto json = mqadmin({"topicRoute", "-t", "DrainTopic", "--json"});
    rapidjson::Document doc;
    if (json.code != 0 || doc.Parse(json.out.c_str()).HasParseError() || doc["queueDatas"].Size() != 1) return -1;
    return doc["queueDatas"][0]["perm"].GetInt();
  };
  EXPECT_EQ(perm(), 6);

  auto wiped = mqadmin({"wipeWritePerm", "-b", "broker-a"});
  ASSERT_EQ(wiped.code, 0) << wiped.out << wiped.err;
  EXPECT_NE(wiped.out.find("wipe write perm of broker[broker-a] in name server[" + cluster_->namesrv_addr(0) + "] OK, "),
            std::string::npos)
      << wiped.out;
  EXPECT_EQ(perm(), 4);  // read only

  auto added = mqadmin({"addWritePerm", "-b", "broker-a", "--json"});
  ASSERT_EQ(added.code, 0) << added.out << added.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(added.out.c_str()).HasParseError()) << added.out;
  ASSERT_EQ(doc.Size(), 1u);
  EXPECT_GE(doc[0]["addTopicCount"].GetInt64(), 1);
  EXPECT_EQ(perm(), 6);
  EXPECT_NE(mqadmin({"wipeWritePerm"}).code, 0);  // -b is required
}

// updateTopicPerm changes only the permission: the queue numbers and the order flag stay.
TEST_F(MqadminTest, UpdateTopicPermKeepsTheQueues) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "PermTopic", "-c", "DefaultCluster", "-r", "2", "-w", "2", "-o", "true"}).code,
            0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "PermTopic"}).code == 0; }));
  const std::string broker = cluster_->broker_addr(0);
  auto updated = mqadmin({"updateTopicPerm", "-t", "PermTopic", "-p", "4", "-c", "DefaultCluster"});
  ASSERT_EQ(updated.code, 0) << updated.out << updated.err;
  EXPECT_NE(updated.out.find("update topic perm from 6 to 4 in " + broker + " success."), std::string::npos)
      << updated.out;
  rapidjson::Document doc;
  EXPECT_TRUE(eventually([&] {
    auto json = mqadmin({"topicRoute", "-t", "PermTopic", "--json"});
    return json.code == 0 && !doc.Parse(json.out.c_str()).HasParseError() && doc["queueDatas"].Size() == 1 &&
           doc["queueDatas"][0]["perm"].GetInt() == 4;
  }));
  EXPECT_EQ(doc["queueDatas"][0]["readQueueNums"].GetInt(), 2);
  EXPECT_EQ(doc["queueDatas"][0]["writeQueueNums"].GetInt(), 2);
  // The broker's own config (GET_TOPIC_CONFIG, what the tool starts from) is still ordered.
  auto instance = client::ClientInstance::get_or_create(fast_client_config(*cluster_));
  ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
  const auto config = (*instance)->api().get_topic_config(broker, "PermTopic");
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_TRUE(config->order);
  EXPECT_EQ(config->perm, 4);
  EXPECT_EQ(config->read_queue_nums, 2);
  EXPECT_FALSE((*instance)->api().get_topic_config(broker, "NoSuchTopic").is_ok());
  const auto group = (*instance)->api().get_subscription_group(broker, "PermGroup");
  ASSERT_TRUE(group.is_ok()) << group.status().to_string();
  EXPECT_EQ(group->group_name, "PermGroup");
  auto again = mqadmin({"updateTopicPerm", "-t", "PermTopic", "-p", "4", "-b", broker});
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("new perm equals to the old one"), std::string::npos) << again.out;
  EXPECT_NE(mqadmin({"updateTopicPerm", "-t", "PermTopic", "-p", "4", "-b", "127.0.0.1:1"}).code, 0);
  EXPECT_NE(mqadmin({"updateTopicPerm", "-t", "NoSuchTopic", "-p", "4", "-c", "DefaultCluster"}).code, 0);
}

TEST_F(MqadminTest, ClusterListShowsBrokerWithItsLoad) {
  auto in_today = [&] {
    rapidjson::Document doc;
    const auto json = mqadmin({"clusterList", "--json"});
    if (doc.Parse(json.out.c_str()).HasParseError()) return std::int64_t{-1};
    return doc["DefaultCluster"][0]["brokers"][0]["inTotalToday"].GetInt64();
  };
  const std::int64_t before = in_today();
  ASSERT_GE(before, 0);
  // Something to count: the broker's put total and its oldest message.
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "LoadTopic", "-b", cluster_->broker_addr(0), "-r", "1", "-w", "1"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "LoadTopic"}).code == 0; }));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(mqadmin({"sendMessage", "-t", "LoadTopic", "-p", "x"}).code, 0);

  auto list = mqadmin({"clusterList"});
  ASSERT_EQ(list.code, 0) << list.out << list.err;
  for (const char* header : {"#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)",
                             "#OutTPS(LOAD)", "#PCWait(ms)", "#Hour", "#SPACE"}) {
    EXPECT_NE(list.out.find(header), std::string::npos) << header << "\n" << list.out;
  }
  EXPECT_NE(list.out.find("broker-a"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("DefaultCluster"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(cluster_->broker_addr(0)), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("V4_9_4"), std::string::npos) << list.out;
  // The rate, then (requests queued, the oldest one's wait): "0.00(0,0ms)" on an idle broker.
  EXPECT_TRUE(std::regex_search(list.out, std::regex(R"([0-9]+\.[0-9]{2}\([0-9]+,[0-9]+ms\))"))) << list.out;

  auto json = mqadmin({"clusterList", "--json"});
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.out.c_str()).HasParseError()) << json.out;
  ASSERT_TRUE(doc.HasMember("DefaultCluster"));
  const auto& broker = doc["DefaultCluster"][0];
  EXPECT_STREQ(broker["brokerName"].GetString(), "broker-a");
  EXPECT_STREQ(broker["brokerAddrs"]["0"].GetString(), cluster_->broker_addr(0).c_str());
  const auto& figures = broker["brokers"][0];
  EXPECT_STREQ(figures["version"].GetString(), "V4_9_4");
  EXPECT_EQ(figures["inTotalToday"].GetInt64(), before + 3);
  EXPECT_GT(figures["hours"].GetDouble(), 0.0);
  EXPECT_LT(figures["hours"].GetDouble(), 1.0);
  EXPECT_GE(figures["pageCacheLockTimeMs"].GetInt64(), 0);
  EXPECT_GE(figures["sendQueueSize"].GetInt64(), 0);

  auto more = mqadmin({"clusterList", "-m"});
  ASSERT_EQ(more.code, 0) << more.out << more.err;
  EXPECT_NE(more.out.find("#InTotalToday"), std::string::npos) << more.out;
  std::smatch totals;
  ASSERT_TRUE(std::regex_search(more.out, totals, std::regex(R"(broker-a +([0-9]+) +([0-9]+) +([0-9]+) +[0-9]+)")))
      << more.out;
  EXPECT_EQ(std::stoll(totals[3].str()), before + 3) << more.out;
}

TEST_F(MqadminTest, KvConfigAndOrderConfLiveOnTheNameServer) {
  auto put = mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "put", "-v", "broker-a:4"});
  ASSERT_EQ(put.code, 0) << put.out << put.err;
  EXPECT_NE(put.out.find("update orderConf success. topic=[OrderedT], orderConf=[broker-a:4]"), std::string::npos)
      << put.out;
  auto get = mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "get"});
  ASSERT_EQ(get.code, 0) << get.out << get.err;
  EXPECT_NE(get.out.find("orderConf=[broker-a:4]"), std::string::npos) << get.out;

  // The same entry through the generic KV commands.
  auto update = mqadmin({"updateKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k", "OrderedT", "-v", "broker-a:8"});
  ASSERT_EQ(update.code, 0) << update.out << update.err;
  EXPECT_NE(update.out.find("create or update kv config to namespace success."), std::string::npos) << update.out;
  auto json = mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "get", "--json"});
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.out.c_str()).HasParseError()) << json.out;
  EXPECT_STREQ(doc["value"].GetString(), "broker-a:8");

  auto removed = mqadmin({"deleteKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k", "OrderedT"});
  ASSERT_EQ(removed.code, 0) << removed.out << removed.err;
  EXPECT_NE(removed.out.find("delete kv config from namespace success."), std::string::npos) << removed.out;
  EXPECT_NE(mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "get"}).code, 0);  // gone

  EXPECT_EQ(mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "put", "-v", "broker-a:2"}).code, 0);
  auto deleted = mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "delete"});
  ASSERT_EQ(deleted.code, 0) << deleted.out;
  EXPECT_NE(deleted.out.find("delete orderConf success. topic=[OrderedT]"), std::string::npos) << deleted.out;
  EXPECT_NE(mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "get"}).code, 0);

  auto bad_method = mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "replace"});
  EXPECT_NE(bad_method.code, 0);
  EXPECT_NE(bad_method.err.find("-m must be get, put or delete"), std::string::npos) << bad_method.err;
  EXPECT_NE(mqadmin({"updateOrderConf", "-t", "OrderedT", "-m", "put"}).code, 0);  // no -v
}

TEST_F(MqadminTest, NamesrvConfigIsListedAndItsLiveKeysChange) {
  const std::string ns = cluster_->namesrv_addrs();
  auto listed = mqadmin({"getNamesrvConfig", "--json"});
  ASSERT_EQ(listed.code, 0) << listed.out << listed.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(listed.out.c_str()).HasParseError()) << listed.out;
  ASSERT_TRUE(doc.HasMember(ns.c_str())) << listed.out;
  EXPECT_STREQ(doc[ns.c_str()]["orderMessageEnable"].GetString(), "false");
  EXPECT_TRUE(doc[ns.c_str()].HasMember("brokerExpiry")) << listed.out;

  auto updated = mqadmin({"updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true"});
  ASSERT_EQ(updated.code, 0) << updated.out << updated.err;
  EXPECT_NE(updated.out.find("update name server config success![" + ns + "]"), std::string::npos) << updated.out;
  auto table = mqadmin({"getNamesrvConfig"});
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("============" + ns + "============"), std::string::npos) << table.out;
  EXPECT_TRUE(std::regex_search(table.out, std::regex("orderMessageEnable +=  true"))) << table.out;

  auto refused = mqadmin({"updateNamesrvConfig", "-k", "listenPort", "-v", "1"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("namesrv.toml"), std::string::npos) << refused.err;
  EXPECT_EQ(mqadmin({"updateNamesrvConfig", "-k", "noSuchKey", "-v", "1"}).code, 1);
}

TEST_F(MqadminTest, ClusterListWithAnIntervalPrintsAgainUntilStopped) {
  auto child = ChildProcess::spawn("mqadmin", {"clusterList", "-i", "1", "-n", cluster_->namesrv_addrs()},
                                   "mqadmin-clusterList-interval");
  ASSERT_TRUE(child.is_ok()) << child.status().to_string();
  auto headers = [&] {
    const std::string out = child->output();
    std::size_t count = 0;
    for (auto at = out.find("#InTPS(LOAD)"); at != std::string::npos; at = out.find("#InTPS(LOAD)", at + 1)) ++count;
    return count;
  };
  ASSERT_TRUE(eventually([&] { return headers() >= 2; })) << child->output();
  EXPECT_TRUE(child->running());
  child->stop();
}

TEST_F(MqadminTest, SendConsumeStatusProgressAndQuery) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "MsgTopic", "-b", cluster_->broker_addr(0), "-r", "2", "-w", "2"}).code,
            0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "MsgTopic"}).code == 0; }));
  for (int i = 0; i < 3; ++i) {
    auto sent = mqadmin({"sendMessage", "-t", "MsgTopic", "-p", "hello-" + std::to_string(i), "-c", "TagA", "-k",
                         "key-" + std::to_string(i), "--json"});
    ASSERT_EQ(sent.code, 0) << sent.out;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(sent.out.c_str()).HasParseError()) << sent.out;
    EXPECT_STREQ(doc["sendStatus"].GetString(), "SEND_OK");
  }

  auto status = mqadmin({"topicStatus", "-t", "MsgTopic", "--json"});
  ASSERT_EQ(status.code, 0) << status.out;
  rapidjson::Document stats;
  ASSERT_FALSE(stats.Parse(status.out.c_str()).HasParseError()) << status.out;
  std::int64_t total = 0;
  for (const auto& q : stats.GetArray()) total += q["maxOffset"].GetInt64();
  EXPECT_EQ(total, 3);
  EXPECT_EQ(mqadmin({"topicStatus", "-t", "MsgTopic"}).out.find("#Max Offset") != std::string::npos, true);

  auto consumed = mqadmin({"consumeMessage", "-t", "MsgTopic", "-g", "AdminGroup"});
  ASSERT_EQ(consumed.code, 0) << consumed.out;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(consumed.out.find("hello-" + std::to_string(i)), std::string::npos) << consumed.out;
  }

  auto progress = mqadmin({"consumerProgress", "-g", "AdminGroup", "-t", "MsgTopic", "--json"});
  ASSERT_EQ(progress.code, 0) << progress.out;
  rapidjson::Document lag;
  ASSERT_FALSE(lag.Parse(progress.out.c_str()).HasParseError()) << progress.out;
  EXPECT_EQ(lag["totalLag"].GetInt64(), 0);
  std::int64_t consumer_total = 0;
  for (const auto& q : lag["queues"].GetArray()) consumer_total += q["consumerOffset"].GetInt64();
  EXPECT_EQ(consumer_total, 3);

  // The broker-wide view (every group) agrees: this group's queues, nothing behind.
  auto broker_stats = mqadmin({"brokerConsumeStats", "-b", cluster_->broker_addr(0), "--json"});
  ASSERT_EQ(broker_stats.code, 0) << broker_stats.out << broker_stats.err;
  rapidjson::Document broker_doc;
  ASSERT_FALSE(broker_doc.Parse(broker_stats.out.c_str()).HasParseError()) << broker_stats.out;
  EXPECT_STREQ(broker_doc["brokerAddr"].GetString(), cluster_->broker_addr(0).c_str());
  std::int64_t group_total = 0;
  for (const auto& q : broker_doc["queues"].GetArray()) {
    if (std::string(q["group"].GetString()) != "AdminGroup") continue;
    EXPECT_STREQ(q["topic"].GetString(), "MsgTopic");
    EXPECT_EQ(q["diff"].GetInt64(), 0);
    EXPECT_GT(q["lastTimestamp"].GetInt64(), 0);
    group_total += q["consumerOffset"].GetInt64();
  }
  EXPECT_EQ(group_total, 3) << broker_stats.out;
  auto broker_table = mqadmin({"brokerConsumeStats", "-b", cluster_->broker_addr(0)});
  ASSERT_EQ(broker_table.code, 0) << broker_table.out;
  EXPECT_NE(broker_table.out.find("#Consumer Offset"), std::string::npos) << broker_table.out;
  EXPECT_NE(broker_table.out.find("AdminGroup"), std::string::npos) << broker_table.out;
  EXPECT_NE(broker_table.out.find("Diff Total: "), std::string::npos) << broker_table.out;
  // -l 1: only queues behind, and this group's are not.
  auto behind = mqadmin({"brokerConsumeStats", "-b", cluster_->broker_addr(0), "-l", "1"});
  ASSERT_EQ(behind.code, 0) << behind.out;
  EXPECT_EQ(behind.out.find("AdminGroup"), std::string::npos) << behind.out;
  EXPECT_NE(mqadmin({"brokerConsumeStats", "-b", "127.0.0.1:1", "-t", "2000"}).code, 0);

  // A new group takes over where AdminGroup stopped.
  auto cloned = mqadmin({"cloneGroupOffset", "-s", "AdminGroup", "-d", "CloneGroup", "-t", "MsgTopic", "-o", "true"});
  ASSERT_EQ(cloned.code, 0) << cloned.out << cloned.err;
  EXPECT_NE(cloned.out.find("clone group offset success. srcGroup[AdminGroup], destGroup=[CloneGroup], topic[MsgTopic]"),
            std::string::npos)
      << cloned.out;
  auto clone_progress = mqadmin({"consumerProgress", "-g", "CloneGroup", "-t", "MsgTopic", "--json"});
  ASSERT_EQ(clone_progress.code, 0) << clone_progress.out;
  rapidjson::Document clone_lag;
  ASSERT_FALSE(clone_lag.Parse(clone_progress.out.c_str()).HasParseError()) << clone_progress.out;
  EXPECT_EQ(clone_lag["totalLag"].GetInt64(), 0) << clone_progress.out;
  EXPECT_NE(mqadmin({"cloneGroupOffset", "-s", "AdminGroup", "-d", "CloneGroup", "-t", "NoSuchTopic"}).code, 0);

  // Moving the group back to the beginning makes everything lag again.
  auto reset = mqadmin({"resetOffsetByTime", "-g", "AdminGroup", "-t", "MsgTopic", "-s", "0", "--json"});
  ASSERT_EQ(reset.code, 0) << reset.out;
  // The broker's answer names every queue's new offset (its ResetOffsetBody).
  rapidjson::Document reset_doc;
  ASSERT_FALSE(reset_doc.Parse(reset.out.c_str()).HasParseError()) << reset.out;
  ASSERT_EQ(reset_doc.Size(), 2u) << reset.out;
  for (const auto& q : reset_doc.GetArray()) {
    EXPECT_STREQ(q["brokerName"].GetString(), "broker-a");
    EXPECT_EQ(q["offset"].GetInt64(), 0);
    EXPECT_TRUE(q["resetByBroker"].GetBool());
  }
  auto reset_table = mqadmin({"resetOffsetByTime", "-g", "AdminGroup", "-t", "MsgTopic", "-s", "0"});
  ASSERT_EQ(reset_table.code, 0) << reset_table.out;
  EXPECT_NE(reset_table.out.find("#New Offset"), std::string::npos) << reset_table.out;
  EXPECT_NE(reset_table.out.find("broker-a"), std::string::npos) << reset_table.out;
  AdminRun after;
  EXPECT_TRUE(eventually([&] {
    after = mqadmin({"consumerProgress", "-g", "AdminGroup", "-t", "MsgTopic", "--json"});
    rapidjson::Document d;
    return after.code == 0 && !d.Parse(after.out.c_str()).HasParseError() && d["totalLag"].GetInt64() == 3;
  })) << after.out;
  // And skipping the backlog moves it to the end of every queue.
  auto skipped = mqadmin({"skipAccumulatedMessage", "-g", "AdminGroup", "-t", "MsgTopic"});
  ASSERT_EQ(skipped.code, 0) << skipped.out << skipped.err;
  EXPECT_NE(skipped.out.find("#brokerName"), std::string::npos) << skipped.out;
  EXPECT_TRUE(eventually([&] {
    after = mqadmin({"consumerProgress", "-g", "AdminGroup", "-t", "MsgTopic", "--json"});
    rapidjson::Document d;
    return after.code == 0 && !d.Parse(after.out.c_str()).HasParseError() && d["totalLag"].GetInt64() == 0;
  })) << after.out;
  EXPECT_NE(mqadmin({"skipAccumulatedMessage", "-g", "AdminGroup", "-t", "NoSuchTopic"}).code, 0);

  // The key index is built after the message is stored; wait for it.
  AdminRun found;
  EXPECT_TRUE(eventually([&] {
    found = mqadmin({"queryMsgByKey", "-t", "MsgTopic", "-k", "key-1"});
    return found.code == 0 && found.out.find("hello-1") != std::string::npos;
  })) << found.out;

  auto one = mqadmin({"consumeMessage", "-t", "MsgTopic", "-c", "1", "--json"});
  rapidjson::Document msgs;
  ASSERT_FALSE(msgs.Parse(one.out.c_str()).HasParseError()) << one.out;
  ASSERT_EQ(msgs.Size(), 1u);
  const std::string offset_id = msgs[0]["offsetMsgId"].GetString();
  auto by_id = mqadmin({"queryMsgById", "-i", offset_id});
  ASSERT_EQ(by_id.code, 0) << by_id.out;
  EXPECT_NE(by_id.out.find(msgs[0]["body"].GetString()), std::string::npos) << by_id.out;
}

// consumerStatus asks the running consumer, through the broker, for its running info while its
// listener holds one message.
TEST_F(MqadminTest, ConsumerStatusShowsALiveConsumersQueuesAndSettings) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "StatusTopic", "-b", cluster_->broker_addr(0), "-r", "2", "-w", "2"}).code,
            0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "StatusTopic"}).code == 0; }));
  struct Holder {
    std::mutex mutex;
    std::condition_variable cv;
    bool released = false;
    std::atomic<bool> holding{false};
    void release() {
      {
        std::lock_guard lock(mutex);
        released = true;
      }
      cv.notify_all();
    }
  } holder;
  client::ConsumerConfig config;
  config.client = fast_client_config(*cluster_);
  config.client.instance_name = "status-consumer";
  config.group = "StatusGroup";
  config.consume_from_where = client::ConsumeFromWhere::kFirstOffset;
  client::PushConsumer consumer(config);
  ASSERT_TRUE(consumer.subscribe("StatusTopic", "TagA").is_ok());
  ASSERT_TRUE(consumer
                  .register_listener([&](std::span<const client::MessageExt> messages, client::ConsumeConcurrentlyContext&) {
                    if (messages[0].body() == "held") {
                      holder.holding = true;
                      std::unique_lock lock(holder.mutex);
                      holder.cv.wait_for(lock, std::chrono::seconds(60), [&] { return holder.released; });
                    }
                    return client::ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer.start().is_ok());
  // The held listener returns before the consumer shuts down, however the test ends.
  struct ReleaseOnExit {
    Holder& holder;
    ~ReleaseOnExit() { holder.release(); }
  } release_on_exit{holder};
  const std::string client_id = consumer.instance()->client_id();
  ASSERT_EQ(mqadmin({"sendMessage", "-t", "StatusTopic", "-p", "held", "-c", "TagA"}).code, 0);
  ASSERT_TRUE(eventually([&] { return holder.holding.load(); }));

  AdminRun all;
  rapidjson::Document doc;
  ASSERT_TRUE(eventually([&] {
    all = mqadmin({"consumerStatus", "-g", "StatusGroup", "--json"});
    return all.code == 0 && !doc.Parse(all.out.c_str()).HasParseError();
  })) << all.out;
  EXPECT_TRUE(doc["sameSubscription"].GetBool());
  ASSERT_EQ(doc["consumers"].Size(), 1u);
  const auto& info = doc["consumers"][0];
  EXPECT_EQ(std::string(info["clientId"].GetString()), client_id);
  EXPECT_STREQ(info["properties"]["consumerGroup"].GetString(), "StatusGroup");
  EXPECT_STREQ(info["properties"]["consumeFromWhere"].GetString(), "CONSUME_FROM_FIRST_OFFSET");
  EXPECT_STREQ(info["properties"]["PROP_CONSUME_TYPE"].GetString(), "CONSUME_PASSIVELY");
  EXPECT_STREQ(info["properties"]["PROP_CONSUMEORDERLY"].GetString(), "false");
  std::map<std::string, std::string> subscriptions;
  for (const auto& s : info["subscriptionSet"].GetArray()) subscriptions[s["topic"].GetString()] = s["subString"].GetString();
  EXPECT_EQ(subscriptions, (std::map<std::string, std::string>{{"%RETRY%StatusGroup", "*"}, {"StatusTopic", "TagA"}}));
  int topic_queues = 0;
  int cached = 0;
  for (const auto& q : info["mqTable"].GetArray()) {
    if (std::string(q["topic"].GetString()) == "StatusTopic") ++topic_queues;
    cached += q["cachedMsgCount"].GetInt();
  }
  EXPECT_EQ(topic_queues, 2);
  EXPECT_EQ(cached, 1);  // "held", in its listener

  auto table = mqadmin({"consumerStatus", "-g", "StatusGroup"});
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find(client_id), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Same subscription in the same group of consumer"), std::string::npos) << table.out;

  auto one = mqadmin({"consumerStatus", "-g", "StatusGroup", "-i", client_id});
  ASSERT_EQ(one.code, 0) << one.out;
  for (const char* expected : {"#Consumer Properties#", "#Consumer Subscription#", "#Consumer MQ Detail#",
                               "PROP_CONSUMER_START_TIMESTAMP", "StatusTopic"}) {
    EXPECT_NE(one.out.find(expected), std::string::npos) << expected << " missing from\n" << one.out;
  }
  EXPECT_NE(mqadmin({"consumerStatus", "-g", "StatusGroup", "-i", "10.9.9.9@nobody"}).code, 0);
  EXPECT_NE(mqadmin({"consumerStatus", "-g", "NoSuchGroup"}).code, 0);

  // getConsumerStatus: the offsets the consumer holds in memory, through the broker
  // (GET_CONSUMER_STATUS_FROM_CLIENT); "held" counts once consumed.
  holder.release();
  AdminRun offsets;
  ASSERT_TRUE(eventually([&] {
    offsets = mqadmin({"getConsumerStatus", "-g", "StatusGroup", "-t", "StatusTopic", "--json"});
    rapidjson::Document d;
    if (offsets.code != 0 || d.Parse(offsets.out.c_str()).HasParseError() || d["consumers"].Size() != 1) return false;
    const auto& status = d["consumers"][0];
    std::int64_t consumed = 0;
    for (const auto& q : status["queues"].GetArray()) consumed += q["offset"].GetInt64();
    // The empty queue shows up once its first long poll ends, maybe later than this.
    return std::string(status["clientId"].GetString()) == client_id && consumed == 1;
  })) << offsets.out;
  auto offsets_table = mqadmin({"getConsumerStatus", "-g", "StatusGroup", "-t", "StatusTopic", "-i", client_id});
  ASSERT_EQ(offsets_table.code, 0) << offsets_table.out;
  EXPECT_NE(offsets_table.out.find("#clientId"), std::string::npos) << offsets_table.out;
  EXPECT_NE(offsets_table.out.find(client_id), std::string::npos) << offsets_table.out;
  auto nobody = mqadmin({"getConsumerStatus", "-g", "StatusGroup", "-t", "StatusTopic", "-i", "10.9.9.9@nobody",
                         "--json"});
  ASSERT_EQ(nobody.code, 0) << nobody.out;
  EXPECT_NE(nobody.out.find(R"("consumers":[])"), std::string::npos) << nobody.out;
  EXPECT_NE(mqadmin({"getConsumerStatus", "-g", "NoSuchGroup", "-t", "StatusTopic"}).code, 0);

  // consumerProgress without a group: one line per group with a retry topic, this one online.
  auto groups = mqadmin({"consumerProgress", "--json"});
  ASSERT_EQ(groups.code, 0) << groups.out << groups.err;
  ASSERT_FALSE(doc.Parse(groups.out.c_str()).HasParseError()) << groups.out;
  const rapidjson::Value* status_group = nullptr;
  for (const auto& g : doc.GetArray()) {
    if (std::string(g["group"].GetString()) == "StatusGroup") status_group = &g;
  }
  ASSERT_NE(status_group, nullptr) << groups.out;
  EXPECT_EQ((*status_group)["count"].GetInt64(), 1);
  EXPECT_STREQ((*status_group)["type"].GetString(), "PUSH");
  EXPECT_STREQ((*status_group)["model"].GetString(), "CLUSTERING");
  EXPECT_TRUE(std::string((*status_group)["version"].GetString()).starts_with("V")) << groups.out;
  EXPECT_EQ((*status_group)["diffTotal"].GetInt64(), 0);
  auto groups_table = mqadmin({"consumerProgress"});
  ASSERT_EQ(groups_table.code, 0) << groups_table.out;
  EXPECT_NE(groups_table.out.find("#Diff Total"), std::string::npos) << groups_table.out;
  EXPECT_NE(groups_table.out.find("StatusGroup"), std::string::npos) << groups_table.out;
}

// printMsg prints a topic's messages between two store times, filtered by tag.
TEST_F(MqadminTest, PrintMsgPrintsATimeRangeOfMessages) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "PrintTopic", "-c", "DefaultCluster", "-r", "1", "-w", "1"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "PrintTopic"}).code == 0; }));
  int sent = 0;
  for (const char* tag : {"TagA", "TagB", "TagA"}) {
    ASSERT_EQ(mqadmin({"sendMessage", "-t", "PrintTopic", "-p", "print-" + std::to_string(sent++), "-c", tag}).code, 0);
  }
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  AdminRun all;
  ASSERT_TRUE(eventually([&] {
    all = mqadmin({"printMsg", "-t", "PrintTopic"});
    return all.code == 0 && count(all.out, "MSGID: ") == 3;
  })) << all.out << all.err;
  EXPECT_NE(all.out.find("minOffset=0, maxOffset=3, MessageQueue [topic=PrintTopic, brokerName=broker-a, queueId=0]"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("BODY: print-2"), std::string::npos) << all.out;

  auto tagged = mqadmin({"printMsg", "-t", "PrintTopic", "-s", "TagA", "-d", "false"});
  ASSERT_EQ(tagged.code, 0) << tagged.err;
  EXPECT_EQ(count(tagged.out, "MSGID: "), 2u) << tagged.out;
  EXPECT_EQ(count(tagged.out, "BODY: NOT PRINT BODY"), 2u) << tagged.out;

  const std::string later = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::system_clock::now().time_since_epoch()).count() + 3'600'000);
  auto none = mqadmin({"printMsg", "-t", "PrintTopic", "-b", later, "--json"});
  ASSERT_EQ(none.code, 0) << none.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(none.out.c_str()).HasParseError()) << none.out;
  ASSERT_EQ(doc.Size(), 1u);
  EXPECT_EQ(doc[0]["messages"].Size(), 0u) << none.out;
  auto until_then = mqadmin({"printMsg", "-t", "PrintTopic", "-b", "2020-01-01#00:00:00:000", "-e", later, "--json"});
  ASSERT_EQ(until_then.code, 0) << until_then.err;
  ASSERT_FALSE(doc.Parse(until_then.out.c_str()).HasParseError()) << until_then.out;
  EXPECT_EQ(doc[0]["messages"].Size(), 3u) << until_then.out;
  EXPECT_NE(mqadmin({"printMsg", "-t", "PrintTopic", "-b", "yesterday"}).code, 0);

  // One queue: messages with -p, tag counts with -f (most first).
  auto by_queue = mqadmin({"printMsgByQueue", "-t", "PrintTopic", "-a", "broker-a", "-i", "0", "-p", "true", "-f", "true"});
  ASSERT_EQ(by_queue.code, 0) << by_queue.err;
  EXPECT_EQ(count(by_queue.out, "MSGID: "), 3u) << by_queue.out;
  EXPECT_EQ(count(by_queue.out, "BODY: NOT PRINT BODY"), 3u) << "bodies only with -d true: " << by_queue.out;
  const auto tag_a = by_queue.out.find("Tag: TagA                           Count: 2");
  const auto tag_b = by_queue.out.find("Tag: TagB                           Count: 1");
  EXPECT_NE(tag_a, std::string::npos) << by_queue.out;
  EXPECT_LT(tag_a, tag_b) << by_queue.out;
  auto counted = mqadmin({"printMsgByQueue", "-t", "PrintTopic", "-a", "broker-a", "-i", "0", "-f", "true", "-s", "TagB"});
  ASSERT_EQ(counted.code, 0) << counted.err;
  EXPECT_EQ(counted.out, "Tag: TagB                           Count: 1\n");
  EXPECT_NE(mqadmin({"printMsgByQueue", "-t", "PrintTopic", "-a", "no-such-broker", "-i", "0"}).code, 0);
  EXPECT_NE(mqadmin({"printMsg", "-t", "NoSuchTopic"}).code, 0);
}

// exportMetadata writes the user topics and groups, without system ones, to a JSON file.
TEST_F(MqadminTest, ExportMetadataWritesUserTopicsAndGroups) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "ExportTopic", "-c", "DefaultCluster", "-r", "3", "-w", "3"}).code, 0);
  ASSERT_EQ(mqadmin({"updateSubGroup", "-c", "DefaultCluster", "-g", "ExportGroup", "-r", "9"}).code, 0);
  const std::string dir = (cluster_->directory() / "export").string();
  auto exported = mqadmin({"exportMetadata", "-c", "DefaultCluster", "-f", dir});
  ASSERT_EQ(exported.code, 0) << exported.out << exported.err;
  EXPECT_EQ(exported.out, "export " + dir + "/metadata.json success\n");
  const std::string text = file_text(dir + "/metadata.json");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(text.c_str()).HasParseError()) << text;
  const auto& topics = doc["topicConfigTable"];
  ASSERT_TRUE(topics.HasMember("ExportTopic")) << text;
  EXPECT_EQ(topics["ExportTopic"]["readQueueNums"].GetInt(), 3);
  EXPECT_FALSE(topics.HasMember("TBW102")) << "system topics stay out";
  EXPECT_FALSE(topics.HasMember("broker-a")) << "so does the broker's own topic";
  EXPECT_FALSE(topics.HasMember("DefaultCluster"));
  EXPECT_FALSE(topics.HasMember("DefaultCluster_REPLY_TOPIC")) << "the cluster's reply topic is a system topic";
  for (const auto& topic : topics.GetObject()) {
    EXPECT_FALSE(std::string(topic.name.GetString()).starts_with("%RETRY%")) << "without -s";
  }
  const auto& groups = doc["subscriptionGroupTable"];
  ASSERT_TRUE(groups.HasMember("ExportGroup")) << text;
  EXPECT_EQ(groups["ExportGroup"]["retryMaxTimes"].GetInt(), 9);
  EXPECT_FALSE(groups.HasMember("TOOLS_CONSUMER"));
  EXPECT_GT(doc["exportTime"].GetInt64(), 0);

  auto topics_only = mqadmin({"exportMetadata", "-b", cluster_->broker_addr(0), "-f", dir, "-t", "-s", "--json"});
  ASSERT_EQ(topics_only.code, 0) << topics_only.err;
  ASSERT_FALSE(doc.Parse(topics_only.out.c_str()).HasParseError()) << topics_only.out;
  EXPECT_EQ(std::string(doc["path"].GetString()), dir + "/topic.json");
  const std::string topic_text = file_text(dir + "/topic.json");
  EXPECT_EQ(topic_text.find("subscriptionGroupTable"), std::string::npos) << topic_text;
  EXPECT_NE(mqadmin({"exportMetadata", "-c", "DefaultCluster", "-f", "/proc/no-such-dir"}).code, 0);
  EXPECT_NE(mqadmin({"exportMetadata", "-c", "DefaultCluster", "-t", "-g"}).code, 0);
}

// exportConfigs writes the masters' settings RocketMQ's tool keeps and the cluster's scale.
TEST_F(MqadminTest, ExportConfigsWritesBrokerSettingsAndScale) {
  const std::string dir = (cluster_->directory() / "export-configs").string();
  auto exported = mqadmin({"exportConfigs", "-c", "DefaultCluster", "-f", dir});
  ASSERT_EQ(exported.code, 0) << exported.out << exported.err;
  EXPECT_EQ(exported.out, "export " + dir + "/configs.json success\n");
  const std::string text = file_text(dir + "/configs.json");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(text.c_str()).HasParseError()) << text;
  const auto& broker = doc["brokerConfigs"]["broker-a"];
  EXPECT_STREQ(broker["brokerName"].GetString(), "broker-a") << text;
  EXPECT_STREQ(broker["brokerClusterName"].GetString(), "DefaultCluster") << text;
  EXPECT_STREQ(broker["brokerRole"].GetString(), "ASYNC_MASTER") << text;
  EXPECT_STREQ(broker["fileReservedTime"].GetString(), "72") << "hours, as RocketMQ counts them";
  EXPECT_FALSE(broker.HasMember("brokerIP1")) << "only the settings RocketMQ's tool keeps";
  EXPECT_EQ(doc["clusterScale"]["masterBrokerSize"].GetInt(), 1);
  EXPECT_EQ(doc["clusterScale"]["slaveBrokerSize"].GetInt(), 0);
  EXPECT_GE(doc["clusterScale"]["namesrvSize"].GetInt(), 1);

  auto json = mqadmin({"exportConfigs", "-c", "DefaultCluster", "-f", dir, "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  ASSERT_FALSE(doc.Parse(json.out.c_str()).HasParseError()) << json.out;
  EXPECT_EQ(std::string(doc["path"].GetString()), dir + "/configs.json");
  EXPECT_NE(mqadmin({"exportConfigs", "-c", "NoSuchCluster", "-f", dir}).code, 0);
  EXPECT_NE(mqadmin({"exportConfigs", "-c", "DefaultCluster", "-f", "/proc/no/such/dir"}).code, 0);
}

// exportMetrics writes each master's load, traffic and clients, and the cluster's sums.
TEST_F(MqadminTest, ExportMetricsWritesEachMastersFigures) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "MetricsTopic", "-b", cluster_->broker_addr(0), "-r", "1", "-w", "1"}).code,
            0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "MetricsTopic"}).code == 0; }));
  ASSERT_EQ(mqadmin({"sendMessage", "-t", "MetricsTopic", "-p", "hello metrics"}).code, 0);
  const std::string dir = (cluster_->directory() / "export-metrics").string();
  auto exported = mqadmin({"exportMetrics", "-c", "DefaultCluster", "-f", dir});
  ASSERT_EQ(exported.code, 0) << exported.out << exported.err;
  EXPECT_EQ(exported.out, "export " + dir + "/metrics.json success\n");
  const std::string text = file_text(dir + "/metrics.json");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(text.c_str()).HasParseError()) << text;
  const auto& broker = doc["evaluateReport"]["broker-a"];
  EXPECT_GT(std::stoll(broker["runtimeEnv"]["totalMemKBytes"].GetString()), 0) << text;
  const auto& quota = broker["runtimeQuota"];
  EXPECT_TRUE(quota["diskRatio"]["commitLogDiskRatio"].IsString()) << text;
  EXPECT_TRUE(quota["tps"]["normalInTps"].IsNumber()) << text;
  EXPECT_TRUE(quota["oneDayNum"]["transOneDayInNum"].IsInt64()) << text;
  EXPECT_GT(std::stod(quota["messageAverageSize"].GetString()), 0.0) << text;
  EXPECT_GE(quota["topicSize"].GetInt64(), 1) << text;
  EXPECT_TRUE(broker["runtimeVersion"]["clientInfo"].IsArray()) << text;
  EXPECT_TRUE(doc["totalData"]["totalTps"]["totalNormalInTps"].IsNumber()) << text;
  EXPECT_TRUE(doc["totalData"]["totalOneDayNum"]["normalOneDayInNum"].IsInt64()) << text;
  EXPECT_NE(mqadmin({"exportMetrics", "-c", "NoSuchCluster", "-f", dir}).code, 0);
}

TEST_F(MqadminTest, UpdateAndDeleteSubGroup) {
  const std::string broker = cluster_->broker_addr(0);
  auto created = mqadmin({"updateSubGroup", "-c", "DefaultCluster", "-g", "AdminSubGroup", "-q", "2", "-r", "5", "-s",
                          "false", "-w", "1", "-i", "0"});
  ASSERT_EQ(created.code, 0) << created.out;
  EXPECT_NE(created.out.find("create subscription group to " + broker + " success."), std::string::npos)
      << created.out;
  EXPECT_NE(created.out.find("retryMaxTimes"), std::string::npos) << created.out;

  auto json = mqadmin({"updateSubGroup", "-b", broker, "-g", "AdminSubGroup", "-q", "2", "-r", "7", "--json"});
  ASSERT_EQ(json.code, 0) << json.out;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.out.c_str()).HasParseError()) << json.out;
  EXPECT_EQ(doc["group"]["retryMaxTimes"].GetInt(), 7);
  EXPECT_FALSE(doc["group"]["consumeBroadcastEnable"].GetBool());  // RocketMQ's tool default
  EXPECT_STREQ(doc["brokerAddrs"][0].GetString(), broker.c_str());

  // A group name the broker refuses, and no target.
  EXPECT_NE(mqadmin({"updateSubGroup", "-b", broker, "-g", "bad group!"}).code, 0);
  EXPECT_NE(mqadmin({"updateSubGroup", "-g", "AdminSubGroup"}).code, 0);
  EXPECT_NE(mqadmin({"updateSubGroup", "-c", "NoSuchCluster", "-g", "AdminSubGroup"}).code, 0);

  auto deleted = mqadmin({"deleteSubGroup", "-c", "DefaultCluster", "-g", "AdminSubGroup", "--json"});
  ASSERT_EQ(deleted.code, 0) << deleted.out;
  ASSERT_FALSE(doc.Parse(deleted.out.c_str()).HasParseError()) << deleted.out;
  EXPECT_EQ(doc["deletedTopics"].Size(), 2u);
  // Gone now: deleting again names the group.
  auto again = mqadmin({"deleteSubGroup", "-b", broker, "-g", "AdminSubGroup"});
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.err.find("no subscription group AdminSubGroup"), std::string::npos) << again.err;
  EXPECT_NE(mqadmin({"deleteSubGroup", "-b", "127.0.0.1:1", "-g", "AdminSubGroup", "--timeout", "1000"}).code, 0);
}

// updateTopicList / updateSubGroupList read RocketMQ's JSON arrays and send one batch request;
// getConsumerConfig shows a group on every broker.
TEST_F(MqadminTest, TopicAndGroupListsFromFilesAndConsumerConfig) {
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (cluster_->directory() / name).string();
    std::ofstream(path) << text;
    return path;
  };
  const std::string topics = write("topics.json", R"([{"topicName":"ListTopicA","readQueueNums":3,"writeQueueNums":3,)"
                                                  R"("perm":6},{"topicName":"ListTopicB","readQueueNums":2,)"
                                                  R"("writeQueueNums":2,"perm":6,"order":true}])");
  auto created = mqadmin({"updateTopicList", "-c", "DefaultCluster", "-f", topics});
  ASSERT_EQ(created.code, 0) << created.out << created.err;
  EXPECT_EQ(created.out, "submit batch of topic config to " + cluster_->broker_addr(0) + " success. 2 topic(s)\n");
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "ListTopicB"}).code == 0; }));
  auto route = mqadmin({"topicRoute", "-t", "ListTopicA", "--json"});
  ASSERT_EQ(route.code, 0) << route.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(route.out.c_str()).HasParseError()) << route.out;
  EXPECT_EQ(doc["queueDatas"][0]["writeQueueNums"].GetInt(), 3) << route.out;

  const std::string groups =
      write("groups.json", R"([{"groupName":"ListGroupA","retryMaxTimes":4},{"groupName":"ListGroupB"}])");
  auto updated = mqadmin({"updateSubGroupList", "-b", cluster_->broker_addr(0), "-f", groups, "--json"});
  ASSERT_EQ(updated.code, 0) << updated.out << updated.err;
  ASSERT_FALSE(doc.Parse(updated.out.c_str()).HasParseError()) << updated.out;
  EXPECT_TRUE(doc[0]["ok"].GetBool());
  auto shown = mqadmin({"getConsumerConfig", "-g", "ListGroupA"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("=============================DefaultCluster:broker-a============================="),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("retryMaxTimes                           =  4\n"), std::string::npos) << shown.out;
  auto shown_json = mqadmin({"getConsumerConfig", "-g", "ListGroupA", "--json"});
  ASSERT_EQ(shown_json.code, 0) << shown_json.err;
  ASSERT_FALSE(doc.Parse(shown_json.out.c_str()).HasParseError()) << shown_json.out;
  EXPECT_EQ(doc[0]["subscriptionGroupConfig"]["retryMaxTimes"].GetInt(), 4);

  // Files that cannot be read, hold no array or refused names: clear errors, exit 1, nothing applied.
  const auto missing = mqadmin({"updateTopicList", "-b", cluster_->broker_addr(0), "-f", "/nonexistent/x.json"});
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("cannot read /nonexistent/x.json"), std::string::npos) << missing.err;
  const auto object = mqadmin({"updateTopicList", "-b", cluster_->broker_addr(0), "-f", write("o.json", "{}")});
  EXPECT_NE(object.err.find("does not hold a JSON array"), std::string::npos) << object.err;
  EXPECT_NE(mqadmin({"updateTopicList", "-b", cluster_->broker_addr(0), "-f", write("e.json", "[]")}).code, 0);
  const auto refused = mqadmin({"updateTopicList", "-b", cluster_->broker_addr(0), "-f",
                                write("r.json", R"([{"topicName":"ListTopicC"},{"topicName":"TBW102"}])")});
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.err.find("conflict with system topic"), std::string::npos) << refused.err;
  EXPECT_NE(mqadmin({"topicRoute", "-t", "ListTopicC"}).code, 0);
  EXPECT_NE(mqadmin({"updateSubGroupList", "-f", groups}).code, 0) << "needs -b or -c";
}

TEST_F(MqadminTest, BrokerStatusCountsPutAndGet) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "StatsTopic", "-b", cluster_->broker_addr(0), "-r", "1", "-w", "1"}).code,
            0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "StatsTopic"}).code == 0; }));
  auto before = mqadmin({"brokerStatus", "-b", cluster_->broker_addr(0), "--json"});
  ASSERT_EQ(before.code, 0) << before.out;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(before.out.c_str()).HasParseError()) << before.out;
  const auto& was = doc[cluster_->broker_addr(0).c_str()];
  const long long put_before = std::stoll(was["msgPutTotalTodayNow"].GetString());
  const long long get_before = std::stoll(was["msgGetTotalTodayNow"].GetString());
  for (int i = 0; i < 2; ++i) ASSERT_EQ(mqadmin({"sendMessage", "-t", "StatsTopic", "-p", "x"}).code, 0);
  ASSERT_EQ(mqadmin({"consumeMessage", "-t", "StatsTopic"}).code, 0);

  auto after = mqadmin({"brokerStatus", "-b", cluster_->broker_addr(0), "--json"});
  ASSERT_FALSE(doc.Parse(after.out.c_str()).HasParseError()) << after.out;
  const auto& now = doc[cluster_->broker_addr(0).c_str()];
  EXPECT_EQ(std::stoll(now["msgPutTotalTodayNow"].GetString()), put_before + 2);
  EXPECT_GE(std::stoll(now["msgGetTotalTodayNow"].GetString()), get_before + 2);
  EXPECT_TRUE(now.HasMember("putTps"));
  EXPECT_TRUE(now.HasMember("msgPutTotalYesterdayMorning"));

  auto table = mqadmin({"brokerStatus", "-c", "DefaultCluster"});
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find(cluster_->broker_addr(0)), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("msgGetTotalTodayNow"), std::string::npos) << table.out;
  EXPECT_NE(mqadmin({"brokerStatus", "-b", "127.0.0.1:1", "--timeout", "1000"}).code, 0);
  EXPECT_NE(mqadmin({"brokerStatus"}).code, 0);
}

// The store commands: queryCq shows a queue's units; the maintenance commands run on one broker,
// a cluster or every broker and say what the broker did; haStatus shows a master without slaves.
TEST_F(MqadminTest, StoreInspectionAndMaintenance) {
  const std::string broker = cluster_->broker_addr(0);
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "CqTopic", "-b", broker, "-r", "1", "-w", "1"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "CqTopic"}).code == 0; }));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(mqadmin({"sendMessage", "-t", "CqTopic", "-p", "x", "-c", "TagA"}).code, 0);

  AdminRun cq;
  // Consume queues are built just after the store answers the send: the last unit may lag.
  ASSERT_TRUE(eventually([&] {
    cq = mqadmin({"queryCq", "-t", "CqTopic", "-q", "0", "-i", "1", "-c", "5"});
    return cq.code == 0 && cq.out.find("Queue data: \nmax: 3, min: 0\n") != std::string::npos;
  })) << cq.out << cq.err;
  EXPECT_NE(cq.out.find("idx: 1\nConsumeQueueData{physicOffset="), std::string::npos) << cq.out;
  EXPECT_NE(cq.out.find("idx: 2\n"), std::string::npos) << cq.out;
  EXPECT_EQ(cq.out.find("idx: 3"), std::string::npos) << "queue offsets stop at the max: " << cq.out;
  EXPECT_NE(cq.out.find("tagsCode=" + std::to_string(plugin::v1::java_string_hash("TagA"))), std::string::npos) << cq.out;
  auto with_group = mqadmin({"queryCq", "-t", "CqTopic", "-q", "0", "-i", "0", "-g", "NobodyHere", "--json"});
  ASSERT_EQ(with_group.code, 0) << with_group.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(with_group.out.c_str()).HasParseError()) << with_group.out;
  EXPECT_STREQ(doc["filterData"].GetString(), "NobodyHere@CqTopic is not online!");
  EXPECT_EQ(doc["queueData"].Size(), 3u);
  auto missing_queue = mqadmin({"queryCq", "-t", "CqTopic", "-q", "7", "-i", "0", "-b", broker});
  EXPECT_EQ(missing_queue.code, 1);
  EXPECT_NE(missing_queue.err.find("7@CqTopic is not exist!"), std::string::npos) << missing_queue.err;

  auto deleted = mqadmin({"deleteExpiredCommitLog", "-b", broker});
  ASSERT_EQ(deleted.code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "delete expired commit log files on " + broker + " success. deleted 0 expired commit log file(s)\n");
  auto cleaned = mqadmin({"cleanExpiredCQ", "-c", "DefaultCluster"});
  ASSERT_EQ(cleaned.code, 0) << cleaned.err;
  EXPECT_EQ(cleaned.out, "clean expired consume queues on " + broker + " success. dropped 0 expired consume queue(s)\n");
  auto unused = mqadmin({"cleanUnusedTopic", "--json"});  // every broker of every cluster
  ASSERT_EQ(unused.code, 0) << unused.err;
  ASSERT_FALSE(doc.Parse(unused.out.c_str()).HasParseError()) << unused.out;
  ASSERT_EQ(doc.Size(), 1u);
  EXPECT_STREQ(doc[0]["brokerAddr"].GetString(), broker.c_str());
  EXPECT_TRUE(doc[0]["ok"].GetBool());
  EXPECT_NE(mqadmin({"queryCq", "-t", "CqTopic", "-q", "0", "-i", "0"}).out.find("max: 3"), std::string::npos)
      << "a configured topic keeps its queues";
  EXPECT_EQ(mqadmin({"cleanExpiredCQ", "-b", "127.0.0.1:1", "--timeout", "1000"}).code, 1);

  auto ha = mqadmin({"haStatus", "-b", broker});
  ASSERT_EQ(ha.code, 0) << ha.err;
  EXPECT_NE(ha.out.find("#MasterAddr\t" + broker + "\n#MasterCommitLogMaxOffset\t"), std::string::npos) << ha.out;
  EXPECT_NE(ha.out.find("#SlaveNum\t0\n#InSyncSlaveNum\t0"), std::string::npos) << ha.out;
  EXPECT_NE(ha.out.find("#SlaveAddr"), std::string::npos) << ha.out;
}

// statsAll sums what the broker counted per topic and per group; its minute window is sampled
// every 10 s, so the figures show up within one period.
TEST_F(MqadminTest, StatsAllShowsEachTopicsGroupsBacklogAndTraffic) {
  for (const char* topic : {"StatsAllTopic", "StatsAllIdle"}) {
    ASSERT_EQ(mqadmin({"updateTopic", "-t", topic, "-b", cluster_->broker_addr(0), "-r", "2", "-w", "2"}).code, 0);
    ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", topic}).code == 0; }));
  }
  for (int i = 0; i < 3; ++i) ASSERT_EQ(mqadmin({"sendMessage", "-t", "StatsAllTopic", "-p", "x"}).code, 0);
  ASSERT_EQ(mqadmin({"consumeMessage", "-t", "StatsAllTopic", "-g", "StatsAllGroup", "-c", "2"}).code, 0);

  rapidjson::Document doc;
  const rapidjson::Value* row = nullptr;
  ASSERT_TRUE(eventually([&] {
    auto run = mqadmin({"statsAll", "-t", "StatsAllTopic", "--json"});
    if (run.code != 0 || doc.Parse(run.out.c_str()).HasParseError() || !doc.IsArray() || doc.Size() != 1) return false;
    row = &doc[0];
    return (*row)["inMsg24Hour"].GetInt64() == 3 && (*row)["outMsg24Hour"].GetInt64() == 2;
  })) << mqadmin({"statsAll", "-t", "StatsAllTopic", "--json"}).out;
  EXPECT_STREQ((*row)["topic"].GetString(), "StatsAllTopic");
  EXPECT_STREQ((*row)["group"].GetString(), "StatsAllGroup");
  EXPECT_EQ((*row)["accumulation"].GetInt64(), 1);  // 3 sent, 2 consumed and committed
  EXPECT_GT((*row)["inTps"].GetDouble(), 0.0);
  EXPECT_GT((*row)["outTps"].GetDouble(), 0.0);

  auto table = mqadmin({"statsAll"});
  ASSERT_EQ(table.code, 0) << table.out << table.err;
  EXPECT_NE(table.out.find("#Accumulation"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("StatsAllGroup"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("%RETRY%"), std::string::npos) << table.out;
  const auto idle = table.out.find("StatsAllIdle");
  ASSERT_NE(idle, std::string::npos) << table.out;
  EXPECT_NE(table.out.find("NO_CONSUMER", idle), std::string::npos) << table.out;
  // -a: topics without traffic over the last day are left out.
  auto active = mqadmin({"statsAll", "-a"});
  ASSERT_EQ(active.code, 0) << active.out;
  EXPECT_EQ(active.out.find("StatsAllIdle"), std::string::npos) << active.out;
  EXPECT_NE(active.out.find("StatsAllTopic"), std::string::npos) << active.out;

  // consumerProgress shows the group's pull rate from the same stats.
  auto progress = mqadmin({"consumerProgress", "-g", "StatsAllGroup", "-t", "StatsAllTopic", "--json"});
  ASSERT_EQ(progress.code, 0) << progress.out;
  ASSERT_FALSE(doc.Parse(progress.out.c_str()).HasParseError()) << progress.out;
  EXPECT_GT(doc["consumeTps"].GetDouble(), 0.0) << progress.out;

  // topicList -c: each topic's cluster and the groups consuming it.
  auto clusters = mqadmin({"topicList", "-c", "--json"});
  ASSERT_EQ(clusters.code, 0) << clusters.out << clusters.err;
  ASSERT_FALSE(doc.Parse(clusters.out.c_str()).HasParseError()) << clusters.out;
  std::map<std::string, std::string> groups_of;
  for (const auto& t : doc.GetArray()) {
    EXPECT_STREQ(t["cluster"].GetString(), "DefaultCluster") << t["topic"].GetString();
    std::string groups;
    for (const auto& g : t["groups"].GetArray()) groups += std::string(g.GetString()) + ";";
    groups_of[t["topic"].GetString()] = groups;
  }
  EXPECT_EQ(groups_of["StatsAllTopic"], "StatsAllGroup;");
  EXPECT_EQ(groups_of["StatsAllIdle"], "");
  EXPECT_FALSE(groups_of.count("%RETRY%StatsAllGroup"));
  auto clusters_table = mqadmin({"topicList", "-c"});
  ASSERT_EQ(clusters_table.code, 0) << clusters_table.out;
  EXPECT_NE(clusters_table.out.find("#Consumer Group"), std::string::npos) << clusters_table.out;

  auto unknown = mqadmin({"statsAll", "-t", "NoSuchTopic"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("NoSuchTopic"), std::string::npos) << unknown.err;
}

TEST_F(MqadminTest, SendRoundTripsPerQueueAndPerBroker) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "RtTopic", "-b", cluster_->broker_addr(0), "-r", "2", "-w", "2"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "RtTopic"}).code == 0; }));
  auto queues = mqadmin({"checkMsgSendRT", "-t", "RtTopic", "-a", "4", "-s", "64", "--json"});
  ASSERT_EQ(queues.code, 0) << queues.out << queues.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(queues.out.c_str()).HasParseError()) << queues.out;
  ASSERT_EQ(doc["sends"].Size(), 4u);
  std::set<int> queue_ids;
  for (const auto& send : doc["sends"].GetArray()) {
    EXPECT_TRUE(send["ok"].GetBool());
    EXPECT_GE(send["rtMs"].GetDouble(), 0.0);
    queue_ids.insert(send["queueId"].GetInt());
  }
  EXPECT_EQ(queue_ids, (std::set<int>{0, 1}));  // the queues in turn
  auto table = mqadmin({"checkMsgSendRT", "-t", "RtTopic", "-a", "2"});
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("Avg RT: "), std::string::npos) << table.out;
  EXPECT_NE(mqadmin({"checkMsgSendRT", "-t", "RtTopic", "-a", "0"}).code, 0);

  // clusterRT: through the topic each broker serves under its own name.
  auto brokers = mqadmin({"clusterRT", "-a", "3", "--json"});
  ASSERT_EQ(brokers.code, 0) << brokers.out << brokers.err;
  ASSERT_FALSE(doc.Parse(brokers.out.c_str()).HasParseError()) << brokers.out;
  ASSERT_EQ(doc.Size(), 1u) << brokers.out;
  EXPECT_STREQ(doc[0]["brokerName"].GetString(), "broker-a");
  EXPECT_EQ(doc[0]["successCount"].GetInt64(), 3);
  EXPECT_EQ(doc[0]["failCount"].GetInt64(), 0);
  EXPECT_EQ(mqadmin({"clusterRT", "-c", "NoSuchCluster"}).code, 1);

  // sendMsgStatus: each send's time and result, through the broker's own topic.
  auto status = mqadmin({"sendMsgStatus", "-b", "broker-a", "-c", "2", "-s", "32"});
  ASSERT_EQ(status.code, 0) << status.out << status.err;
  EXPECT_EQ(std::count(status.out.begin(), status.out.end(), '\n'), 2) << status.out;
  EXPECT_EQ(status.out.rfind("rt=", 0), 0u) << status.out;
  EXPECT_NE(status.out.find("ms, SendResult=SendResult [sendStatus=SEND_OK, msgId="), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("messageQueue=MessageQueue [topic=broker-a, brokerName=broker-a, queueId="),
            std::string::npos)
      << status.out;
  auto status_json = mqadmin({"sendMsgStatus", "-b", "broker-a", "-c", "1", "--json"});
  ASSERT_EQ(status_json.code, 0) << status_json.err;
  ASSERT_FALSE(doc.Parse(status_json.out.c_str()).HasParseError()) << status_json.out;
  ASSERT_EQ(doc.Size(), 1u);
  EXPECT_STREQ(doc[0]["sendStatus"].GetString(), "SEND_OK");
  EXPECT_GE(doc[0]["queueOffset"].GetInt64(), 0);
  const auto unknown = mqadmin({"sendMsgStatus", "-b", "no-such-broker", "-c", "1"});
  EXPECT_NE(unknown.code, 0);
  EXPECT_NE(unknown.err.find("no broker named no-such-broker"), std::string::npos) << unknown.err;
}

TEST_F(MqadminTest, AllocateMqSharesATopicsQueuesWithTheChosenAllocator) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "AllocTopic", "-b", cluster_->broker_addr(0), "-r", "4", "-w", "4"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "AllocTopic"}).code == 0; }));
  const auto owned = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"allocateMQ", "-t", "AllocTopic", "-i", "client-b,client-a", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = mqadmin(args);
    EXPECT_EQ(run.code, 0) << run.out << run.err;
    std::map<std::string, std::vector<int>> queues;
    rapidjson::Document doc;
    if (doc.Parse(run.out.c_str()).HasParseError()) return queues;
    for (const auto& [client, list] : doc["result"].GetObject()) {
      for (const auto& q : list.GetArray()) queues[client.GetString()].push_back(q["queueId"].GetInt());
    }
    return queues;
  };
  // Averagely: the sorted clients take consecutive halves; by circle: every other queue.
  EXPECT_EQ(owned({}), (std::map<std::string, std::vector<int>>{{"client-a", {0, 1}}, {"client-b", {2, 3}}}));
  EXPECT_EQ(owned({"-a", "AllocateMessageQueueAveragelyByCircle"}),
            (std::map<std::string, std::vector<int>>{{"client-a", {0, 2}}, {"client-b", {1, 3}}}));
  EXPECT_EQ(owned({"-a", "by_config", "-s", "queues=broker-a:3"}),
            (std::map<std::string, std::vector<int>>{{"client-a", {3}}, {"client-b", {3}}}));
  auto table = mqadmin({"allocateMQ", "-t", "AllocTopic", "-i", "client-a"});
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("#Client"), std::string::npos) << table.out;

  auto unknown = mqadmin({"allocateMQ", "-t", "AllocTopic", "-i", "c", "-a", "no_such_allocator"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("no_such_allocator"), std::string::npos) << unknown.err;
  EXPECT_NE(mqadmin({"allocateMQ", "-t", "AllocTopic", "-i", "c", "-s", "not-a-setting"}).code, 0);
}

TEST_F(MqadminTest, GetAndUpdateBrokerConfig) {
  const std::string broker = cluster_->broker_addr(0);
  auto shown = mqadmin({"getBrokerConfig", "-b", broker});
  ASSERT_EQ(shown.code, 0) << shown.out;
  EXPECT_NE(shown.out.find("============" + broker + "============"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("brokerName"), std::string::npos) << shown.out;
  // The store's and the transport's settings too, as RocketMQ lists its MessageStoreConfig and
  // NettyServerConfig with the broker's.
  EXPECT_NE(shown.out.find("flushDiskType"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("workerThreads"), std::string::npos) << shown.out;

  auto updated = mqadmin({"updateBrokerConfig", "-c", "DefaultCluster", "-k", "autoCreateSubscriptionGroup", "-v",
                          "false"});
  ASSERT_EQ(updated.code, 0) << updated.out;
  EXPECT_NE(updated.out.find("update broker config success, " + broker), std::string::npos) << updated.out;
  auto json = mqadmin({"getBrokerConfig", "-c", "DefaultCluster", "--json"});
  ASSERT_EQ(json.code, 0) << json.out;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.out.c_str()).HasParseError()) << json.out;
  EXPECT_STREQ(doc[broker.c_str()]["autoCreateSubscriptionGroup"].GetString(), "false");
  ASSERT_EQ(mqadmin({"updateBrokerConfig", "-b", broker, "-k", "autoCreateSubscriptionGroup", "-v", "true"}).code, 0);

  // A key that needs a restart, an unknown key, a bad value: refused with the broker's reason.
  auto restart = mqadmin({"updateBrokerConfig", "-b", broker, "-k", "listenPort", "-v", "1"});
  EXPECT_NE(restart.code, 0);
  EXPECT_NE(restart.err.find("restart"), std::string::npos) << restart.err;
  EXPECT_NE(mqadmin({"updateBrokerConfig", "-b", broker, "-k", "noSuchKey", "-v", "1"}).code, 0);
  EXPECT_NE(mqadmin({"updateBrokerConfig", "-b", broker, "-k", "brokerPermission", "-v", "99"}).code, 0);
  EXPECT_NE(mqadmin({"getBrokerConfig", "-c", "NoSuchCluster"}).code, 0);
}

// consumerConnection and producerConnection list the clients of this process while they run,
// and fail once they are gone.
TEST_F(MqadminTest, ConnectionsOfALiveConsumerAndProducer) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "ConnTopic", "-b", cluster_->broker_addr(0), "-r", "2", "-w", "2"}).code, 0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "ConnTopic"}).code == 0; }));
  client::ConsumerConfig consumer_config;
  consumer_config.client = fast_client_config(*cluster_);
  consumer_config.client.instance_name = "conn-consumer";
  consumer_config.group = "ConnGroup";
  consumer_config.consume_from_where = client::ConsumeFromWhere::kFirstOffset;
  auto consumer = std::make_unique<client::PushConsumer>(consumer_config);
  ASSERT_TRUE(consumer->subscribe("ConnTopic", "TagA || TagB").is_ok());
  ASSERT_TRUE(consumer
                  ->register_listener([](std::span<const client::MessageExt>, client::ConsumeConcurrentlyContext&) {
                    return client::ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  const std::string consumer_id = consumer->instance()->client_id();
  client::ProducerConfig producer_config;
  producer_config.client = fast_client_config(*cluster_);
  producer_config.client.instance_name = "conn-producer";
  producer_config.group = "ConnProducer";
  auto producer = std::make_unique<client::Producer>(producer_config);
  ASSERT_TRUE(producer->start().is_ok());
  // Sending gives the producer the topic's route; its heartbeats then reach the topic's broker.
  ASSERT_TRUE(producer->send(client::Message("ConnTopic", "TagA", "", "hello")).is_ok());
  const std::string producer_id = producer->instance()->client_id();
  ASSERT_NE(consumer_id, producer_id);

  AdminRun consumers;
  rapidjson::Document doc;
  ASSERT_TRUE(eventually([&] {
    consumers = mqadmin({"consumerConnection", "-g", "ConnGroup", "--json"});
    return consumers.code == 0 && !doc.Parse(consumers.out.c_str()).HasParseError();
  })) << consumers.out << consumers.err;
  ASSERT_EQ(doc["connectionSet"].Size(), 1u);
  EXPECT_EQ(std::string(doc["connectionSet"][0]["clientId"].GetString()), consumer_id);
  EXPECT_STREQ(doc["connectionSet"][0]["language"].GetString(), "CPP");
  EXPECT_NE(std::string(doc["connectionSet"][0]["clientAddr"].GetString()).find("127.0.0.1:"), std::string::npos);
  EXPECT_STREQ(doc["consumeType"].GetString(), "CONSUME_PASSIVELY");
  EXPECT_STREQ(doc["messageModel"].GetString(), "CLUSTERING");
  EXPECT_STREQ(doc["consumeFromWhere"].GetString(), "CONSUME_FROM_FIRST_OFFSET");
  EXPECT_STREQ(doc["subscriptionTable"]["ConnTopic"]["subString"].GetString(), "TagA || TagB");

  auto table = mqadmin({"consumerConnection", "-g", "ConnGroup", "-b", cluster_->broker_addr(0)});
  ASSERT_EQ(table.code, 0) << table.err;
  for (const std::string& expected : std::vector<std::string>{"#ClientId", "#ClientAddr", "#Language", "#Version", consumer_id, "V4_9_4",
                                     "Below is subscription:", "#SubExpression", "TagA || TagB",
                                     "ConsumeType: CONSUME_PASSIVELY", "MessageModel: CLUSTERING",
                                     "ConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET"}) {
    EXPECT_NE(table.out.find(expected), std::string::npos) << expected << " missing from\n" << table.out;
  }

  AdminRun producers;
  ASSERT_TRUE(eventually([&] {
    producers = mqadmin({"producerConnection", "-g", "ConnProducer", "-t", "ConnTopic", "--json"});
    return producers.code == 0 && !doc.Parse(producers.out.c_str()).HasParseError();
  })) << producers.out << producers.err;
  ASSERT_EQ(doc["connectionSet"].Size(), 1u);
  EXPECT_EQ(std::string(doc["connectionSet"][0]["clientId"].GetString()), producer_id);
  EXPECT_EQ(doc["connectionSet"][0]["version"].GetInt(), 401);
  auto numbered = mqadmin({"producerConnection", "-g", "ConnProducer", "-t", "ConnTopic"});
  ASSERT_EQ(numbered.code, 0) << numbered.err;
  EXPECT_EQ(numbered.out.rfind("0001  " + producer_id, 0), 0u) << numbered.out;
  EXPECT_NE(numbered.out.find("CPP"), std::string::npos) << numbered.out;
  EXPECT_NE(numbered.out.find("V4_9_4"), std::string::npos) << numbered.out;
  // Every producer of the broker, by group (GET_ALL_PRODUCER_INFO).
  auto every = mqadmin({"producer", "-b", cluster_->broker_addr(0)});
  ASSERT_EQ(every.code, 0) << every.err;
  EXPECT_NE(every.out.find("producer group (ConnProducer) instance : clientId=" + producer_id + ",remoteIP=127.0.0.1:"),
            std::string::npos)
      << every.out;
  EXPECT_NE(every.out.find(", language=CPP, version=401, lastUpdateTimestamp="), std::string::npos) << every.out;
  auto every_json = mqadmin({"producer", "-b", cluster_->broker_addr(0), "--json"});
  ASSERT_EQ(every_json.code, 0) << every_json.err;
  rapidjson::Document producer_table;
  ASSERT_FALSE(producer_table.Parse(every_json.out.c_str()).HasParseError()) << every_json.out;
  ASSERT_TRUE(producer_table["data"].HasMember("ConnProducer")) << every_json.out;
  EXPECT_GT(producer_table["data"]["ConnProducer"][0]["lastUpdateTimestamp"].GetInt64(), 0);
  EXPECT_NE(mqadmin({"producer", "-b", "127.0.0.1:1", "--timeout", "1000"}).code, 0);

  // Unknown groups and topics are named.
  auto unknown_group = mqadmin({"consumerConnection", "-g", "NoSuchGroup"});
  EXPECT_NE(unknown_group.code, 0);
  EXPECT_NE(unknown_group.err.find("no broker serves consumer group NoSuchGroup"), std::string::npos)
      << unknown_group.err;
  auto offline_group = mqadmin({"consumerConnection", "-g", "NoSuchGroup", "-b", cluster_->broker_addr(0)});
  EXPECT_NE(offline_group.code, 0);
  EXPECT_NE(offline_group.err.find("the consumer group[NoSuchGroup] not online"), std::string::npos)
      << offline_group.err;
  auto unknown_producer = mqadmin({"producerConnection", "-g", "NoSuchProducer", "-t", "ConnTopic"});
  EXPECT_NE(unknown_producer.code, 0);
  EXPECT_NE(unknown_producer.err.find("the producer group[NoSuchProducer] not exist"), std::string::npos)
      << unknown_producer.err;
  auto unknown_topic = mqadmin({"producerConnection", "-g", "ConnProducer", "-t", "NoSuchTopic"});
  EXPECT_NE(unknown_topic.code, 0);
  EXPECT_NE(unknown_topic.err.find("NoSuchTopic"), std::string::npos) << unknown_topic.err;
  EXPECT_NE(mqadmin({"producerConnection", "-g", "ConnProducer"}).code, 0);  // -t missing

  // Shut down, they unregister: the groups have no connection any more.
  consumer.reset();
  producer.reset();
  EXPECT_TRUE(eventually([&] { return mqadmin({"consumerConnection", "-g", "ConnGroup"}).code != 0; }));
  EXPECT_TRUE(eventually(
      [&] { return mqadmin({"producerConnection", "-g", "ConnProducer", "-t", "ConnTopic"}).code != 0; }));
}

// A message sent by mqadmin is found again by its unique message id (through the key index) and
// by its queue offset (a pull). A second message carrying the first one's id as its key is in the
// index under that id too, but is not the message with that id.
TEST_F(MqadminTest, QueryMessageByUniqueKeyAndByOffset) {
  ASSERT_EQ(mqadmin({"updateTopic", "-t", "QueryTopic", "-b", cluster_->broker_addr(0), "-r", "2", "-w", "2"}).code,
            0);
  ASSERT_TRUE(eventually([&] { return mqadmin({"topicRoute", "-t", "QueryTopic"}).code == 0; }));
  auto sent = mqadmin({"sendMessage", "-t", "QueryTopic", "-p", "the-original", "-c", "TagQ", "--json"});
  ASSERT_EQ(sent.code, 0) << sent.err;
  rapidjson::Document result;
  ASSERT_FALSE(result.Parse(sent.out.c_str()).HasParseError()) << sent.out;
  const std::string msg_id = result["msgId"].GetString();
  const std::string broker_name = result["brokerName"].GetString();
  const std::string queue_id = std::to_string(result["queueId"].GetInt());
  const std::string queue_offset = std::to_string(result["queueOffset"].GetInt64());
  ASSERT_EQ(mqadmin({"sendMessage", "-t", "QueryTopic", "-p", "the-decoy", "-k", msg_id}).code, 0);

  // The index is built after the messages are stored; wait for the decoy to be in it.
  AdminRun by_key;
  ASSERT_TRUE(eventually([&] {
    by_key = mqadmin({"queryMsgByKey", "-t", "QueryTopic", "-k", msg_id});
    return by_key.code == 0 && by_key.out.find("the-decoy") != std::string::npos;
  })) << by_key.out << by_key.err;

  auto all = mqadmin({"queryMsgByUniqueKey", "-i", msg_id, "-t", "QueryTopic", "-a", "--json"});
  ASSERT_EQ(all.code, 0) << all.err;
  rapidjson::Document found;
  ASSERT_FALSE(found.Parse(all.out.c_str()).HasParseError()) << all.out;
  ASSERT_EQ(found.Size(), 1u) << all.out;
  EXPECT_STREQ(found[0]["body"].GetString(), "the-original");
  EXPECT_EQ(std::string(found[0]["msgId"].GetString()), msg_id);
  EXPECT_EQ(std::string(found[0]["brokerName"].GetString()), broker_name);

  auto details = mqadmin({"queryMsgByUniqueKey", "-i", msg_id, "-t", "QueryTopic"});
  ASSERT_EQ(details.code, 0) << details.err;
  for (const std::string& expected : std::vector<std::string>{"Msg ID", msg_id, "the-original", "TagQ", "Queue Offset", "Store Host"}) {
    EXPECT_NE(details.out.find(expected), std::string::npos) << expected << " missing from\n" << details.out;
  }
  EXPECT_EQ(details.out.find("the-decoy"), std::string::npos) << details.out;

  auto at_offset = mqadmin({"queryMsgByOffset", "-t", "QueryTopic", "-b", broker_name, "-i", queue_id, "-o",
                            queue_offset, "--json"});
  ASSERT_EQ(at_offset.code, 0) << at_offset.err;
  ASSERT_FALSE(found.Parse(at_offset.out.c_str()).HasParseError()) << at_offset.out;
  ASSERT_EQ(found.Size(), 1u);
  EXPECT_EQ(std::string(found[0]["msgId"].GetString()), msg_id);
  EXPECT_EQ(std::to_string(found[0]["queueOffset"].GetInt64()), queue_offset);
  EXPECT_STREQ(found[0]["body"].GetString(), "the-original");
  auto at_offset_text = mqadmin({"queryMsgByOffset", "-t", "QueryTopic", "-b", broker_name, "-i", queue_id, "-o",
                                 queue_offset});
  ASSERT_EQ(at_offset_text.code, 0) << at_offset_text.err;
  EXPECT_NE(at_offset_text.out.find("the-original"), std::string::npos) << at_offset_text.out;
  EXPECT_NE(at_offset_text.out.find(msg_id), std::string::npos) << at_offset_text.out;

  // Nothing there, or nothing of that name: a reason and a non-zero exit.
  auto no_id = mqadmin({"queryMsgByUniqueKey", "-i", "7F0000010000000000000000DEADBEEF", "-t", "QueryTopic"});
  EXPECT_NE(no_id.code, 0);
  EXPECT_NE(no_id.err.find("no message of topic QueryTopic has this message id"), std::string::npos) << no_id.err;
  EXPECT_NE(mqadmin({"queryMsgByUniqueKey", "-i", msg_id, "-t", "NoSuchTopic"}).code, 0);
  auto past_end = mqadmin({"queryMsgByOffset", "-t", "QueryTopic", "-b", broker_name, "-i", queue_id, "-o", "1000"});
  EXPECT_NE(past_end.code, 0);
  EXPECT_NE(past_end.err.find("no message at this offset (the queue holds offsets 0 to"), std::string::npos)
      << past_end.err;
  auto no_broker = mqadmin({"queryMsgByOffset", "-t", "QueryTopic", "-b", "broker-x", "-i", "0", "-o", "0"});
  EXPECT_NE(no_broker.code, 0);
  EXPECT_NE(no_broker.err.find("no broker named broker-x serves the topic"), std::string::npos) << no_broker.err;
  auto no_queue = mqadmin({"queryMsgByOffset", "-t", "QueryTopic", "-b", broker_name, "-i", "9", "-o", "0"});
  EXPECT_NE(no_queue.code, 0);
  EXPECT_NE(no_queue.err.find("no readable queue 9"), std::string::npos) << no_queue.err;
  EXPECT_NE(mqadmin({"queryMsgByOffset", "-t", "QueryTopic", "-b", broker_name, "-i", queue_id, "-o", "-1"}).code, 0);
  EXPECT_NE(mqadmin({"queryMsgByOffset", "-t", "NoSuchTopic", "-b", broker_name, "-i", "0", "-o", "0"}).code, 0);
}

TEST_F(MqadminTest, ErrorsExitNonZero) {
  EXPECT_NE(mqadmin({"topicRoute", "-t", "NoSuchTopic"}).code, 0);
  EXPECT_NE(mqadmin({"topicStatus", "-t", "NoSuchTopic"}).code, 0);
  EXPECT_NE(mqadmin({"updateTopic"}).code, 0);                      // -t missing
  EXPECT_NE(mqadmin({"noSuchCommand"}).code, 0);
  EXPECT_NE(mqadmin({"resetOffsetByTime", "-g", "g", "-t", "MsgTopic", "-s", "yesterday"}).code, 0);
  // Nothing listens on port 1.
  EXPECT_NE(mqadmin({"topicList", "-n", "127.0.0.1:1", "--timeout", "1000"}, false).code, 0);
  EXPECT_NE(mqadmin({"topicList"}, false).code, 0);  // no name server at all (unless NAMESRV_ADDR)
}

}  // namespace
}  // namespace mqkit::testing
