#include "mqkit/broker/consume/admin_broker_processor.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <fstream>

#include "child_process.hpp"
#include "consume_test_support.hpp"
#include "pop_service.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/broker/consume/admin_bodies.hpp"
#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "mqkit/protocol/broker_stats_data.hpp"
#include "mqkit/protocol/store_bodies.hpp"
#include "mqkit/protocol/subscription_group.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/connection.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/java_properties.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using plugin::v1::MessageQueue;
using testing::FakeChannel;
using testing::TestMessage;

class AdminBrokerProcessorTest : public testing::ProcessorTest<AdminBrokerProcessor> {
 protected:
  // Three messages in T:0, one in T:1.
  void fill() {
    testing::create_topic(context(), "T", 2);
    for (int i = 0; i < 3; ++i) stored_.push_back(testing::append(context(), TestMessage{"T", 0, "m", "", "", ""}));
    testing::append(context(), TestMessage{"T", 1, "m", "", "", ""});
    harness_.wait_dispatched();
  }

  RemotingCommand queue_request(std::int32_t code, std::int32_t queue_id,
                                std::initializer_list<std::pair<std::string, std::string>> more = {}) {
    auto request = testing::make_request(code, {{"topic", "T"}, {"queueId", std::to_string(queue_id)}});
    for (const auto& [k, v] : more) request.ext_fields.set(k, v);
    return request;
  }

  RemotingCommand lock_request(std::int32_t code, const std::string& client_id, std::set<MessageQueue> queues) {
    protocol::LockBatchRequest body;
    body.consumer_group = "cg";
    body.client_id = client_id;
    body.mq_set = std::move(queues);
    auto request = testing::make_request(code, {});
    protocol::set_body(request, protocol::encode(body));
    return request;
  }

  void join(const std::shared_ptr<FakeChannel>& channel, const std::string& client_id,
            plugin::v1::LanguageCode language) {
    protocol::ConsumerData data;
    data.group_name = "cg";
    data.consume_type = "CONSUME_PASSIVELY";
    data.message_model = "CLUSTERING";
    data.consume_from_where = "CONSUME_FROM_LAST_OFFSET";
    protocol::SubscriptionData s;
    s.topic = "T";
    s.sub_string = "*";
    data.subscription_data_set.push_back(s);
    context().consumers->register_consumer(data, {channel, client_id, language, 401, 0});
  }

  std::vector<plugin::v1::AppendResult> stored_;
};

TEST_F(AdminBrokerProcessorTest, CreateTopicBumpsTheDataVersion) {
  const auto before = context().topics->snapshot().data_version;
  const RemotingCommand created =
      call(testing::make_request(rq::kUpdateAndCreateTopic, {{"topic", "Orders"},
                                                             {"defaultTopic", "TBW102"},
                                                             {"readQueueNums", "4"},
                                                             {"writeQueueNums", "2"},
                                                             {"perm", "6"},
                                                             {"topicFilterType", "SINGLE_TAG"},
                                                             {"topicSysFlag", "0"},
                                                             {"order", "true"}}));
  ASSERT_EQ(created.code, rc::kSuccess) << created.remark.value_or("");
  const auto topic = context().topics->find("Orders");
  ASSERT_TRUE(topic.has_value());
  EXPECT_EQ(topic->read_queue_nums, 4);
  EXPECT_EQ(topic->write_queue_nums, 2);
  EXPECT_TRUE(topic->order);
  EXPECT_GT(context().topics->snapshot().data_version.counter, before.counter);

  const RemotingCommand all = call(testing::make_request(rq::kGetAllTopicConfig, {}));
  auto table = protocol::decode_topic_config_table(protocol::body_text(all));
  ASSERT_TRUE(table.is_ok()) << table.status().to_string();
  EXPECT_EQ(table->topic_config_table.at("Orders").write_queue_nums, 2);
  EXPECT_EQ(table->data_version, context().topics->snapshot().data_version);
}

// What RocketMQ 5.x tools and dashboards ask for one at a time.
TEST_F(AdminBrokerProcessorTest, OneTopicsAndOneGroupsConfig) {
  testing::create_topic(context(), "T", 3);
  const RemotingCommand topic = call(testing::make_request(rq::kGetTopicConfig, {{"topic", "T"}}));
  ASSERT_EQ(topic.code, rc::kSuccess) << topic.remark.value_or("");
  const auto config = protocol::decode_topic_config(protocol::body_text(topic));
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(*config, *context().topics->find("T"));
  EXPECT_EQ(config->read_queue_nums, 3);
  const RemotingCommand missing = call(testing::make_request(rq::kGetTopicConfig, {{"topic", "Nope"}}));
  EXPECT_EQ(missing.code, rc::kTopicNotExist);
  EXPECT_EQ(missing.remark.value_or(""), "No topic in this broker. topic: Nope");
  EXPECT_EQ(call(testing::make_request(rq::kGetTopicConfig, {})).code, rc::kSystemError);

  // The harness broker creates groups on demand, as RocketMQ's default does.
  const RemotingCommand group = call(testing::make_request(rq::kGetSubscriptionGroupConfig, {{"group", "G1"}}));
  ASSERT_EQ(group.code, rc::kSuccess) << group.remark.value_or("");
  const auto settings = protocol::decode_subscription_group(protocol::body_text(group));
  ASSERT_TRUE(settings.is_ok()) << settings.status().to_string();
  EXPECT_EQ(settings->group_name, "G1");
  EXPECT_EQ(settings->retry_max_times, 16);
  EXPECT_TRUE(context().groups->find("G1").has_value());
}

TEST_F(AdminBrokerProcessorTest, AGroupUnknownWithoutAutoCreationIsNamedNotExisting) {
  testing::BrokerHarness strict("auto_create_subscription_group = false");
  AdminBrokerProcessor processor(strict.context());
  const RemotingCommand group =
      testing::call(processor, channel_, testing::make_request(rq::kGetSubscriptionGroupConfig, {{"group", "G2"}}));
  EXPECT_EQ(group.code, rc::kSubscriptionGroupNotExist);
  EXPECT_EQ(group.remark.value_or(""), "No group in this broker");
}

// RocketMQ 5's topic attributes: "+key=value" sets, "-key" removes, no attributes keeps them.
TEST_F(AdminBrokerProcessorTest, CreateTopicAppliesAttributeChanges) {
  const auto update = [&](const std::string& attributes) {
    auto request = testing::make_request(
        rq::kUpdateAndCreateTopic, {{"topic", "Typed"}, {"readQueueNums", "2"}, {"writeQueueNums", "2"}, {"perm", "6"}});
    if (!attributes.empty()) request.ext_fields.set("attributes", attributes);
    return call(std::move(request));
  };
  const auto attributes = [&] { return context().topics->find("Typed").value_or(protocol::TopicConfig{}).attributes; };
  const RemotingCommand removal_on_create = update("-message.type");
  EXPECT_EQ(removal_on_create.code, rc::kInvalidParameter);
  EXPECT_FALSE(context().topics->find("Typed").has_value());
  ASSERT_EQ(update("+message.type=FIFO").code, rc::kSuccess);
  EXPECT_EQ(attributes(), (std::map<std::string, std::string>{{"message.type", "FIFO"}}));
  ASSERT_EQ(update("").code, rc::kSuccess);  // an update without attributes keeps them
  EXPECT_EQ(attributes().at("message.type"), "FIFO");

  const RemotingCommand unsupported = update("+queue.type=BatchCQ");
  EXPECT_EQ(unsupported.code, rc::kInvalidParameter);
  EXPECT_NE(unsupported.remark.value_or("").find("unsupported topic attribute: queue.type"), std::string::npos);
  EXPECT_EQ(update("+message.type=LATER").code, rc::kInvalidParameter);
  EXPECT_EQ(update("message.type=FIFO").code, rc::kInvalidParameter);
  EXPECT_EQ(attributes().at("message.type"), "FIFO");

  ASSERT_EQ(update("-message.type").code, rc::kSuccess);
  EXPECT_TRUE(attributes().empty());
  EXPECT_EQ(update("-message.type").code, rc::kInvalidParameter);  // nothing left to remove
}

TEST_F(AdminBrokerProcessorTest, CreateTopicRefusesReservedAndInvalidNames) {
  const auto create = [&](const std::string& name) {
    return call(testing::make_request(rq::kUpdateAndCreateTopic,
                                      {{"topic", name}, {"readQueueNums", "1"}, {"writeQueueNums", "1"}, {"perm", "6"}}));
  };
  const RemotingCommand cluster = create(harness_.config().cluster_name);
  EXPECT_EQ(cluster.code, rc::kSystemError);
  EXPECT_EQ(cluster.remark, "the topic[DefaultCluster] is conflict with system reserved words.");
  EXPECT_EQ(create("TBW102").remark, "The topic[TBW102] is conflict with system topic.");
  EXPECT_EQ(create("bad topic").code, rc::kSystemError);
  EXPECT_EQ(call(testing::make_request(rq::kUpdateAndCreateTopic, {{"topic", "X"}})).code, rc::kSystemError);
}

TEST_F(AdminBrokerProcessorTest, DeleteTopicForgetsConfigMessagesOffsetsAndPops) {
  fill();
  context().offsets->commit("cg", "T", 0, 2);
  const PopRequest pop_queue_0{.group = "pg", .topic = "T", .queue_id = 0, .read_queue_nums = 2};
  ASSERT_EQ(context().pops->pop(pop_queue_0).value().records.size(), 3U);
  const auto before = context().topics->snapshot().data_version;
  EXPECT_EQ(call(testing::make_request(rq::kDeleteTopicInBroker, {{"topic", "T"}})).code, rc::kSuccess);
  EXPECT_FALSE(context().topics->find("T").has_value());
  EXPECT_GT(context().topics->snapshot().data_version.counter, before.counter);
  EXPECT_FALSE(context().offsets->query("cg", "T", 0).has_value());
  EXPECT_EQ(context().store->max_offset("T", 0), 0);
  EXPECT_EQ(call(testing::make_request(rq::kDeleteTopicInBroker, {{"topic", "TBW102"}})).code, rc::kSystemError);
  EXPECT_TRUE(context().topics->find("TBW102").has_value());

  // Created again, the topic's queues start at offset 0, and a pop takes its first message.
  testing::create_topic(context(), "T", 2);
  testing::append(context(), TestMessage{"T", 0, "new", "", "", ""});
  harness_.wait_dispatched();
  EXPECT_EQ(context().pops->pop(pop_queue_0).value().records.size(), 1U);
}

TEST_F(AdminBrokerProcessorTest, QueueOffsetsAndTimes) {
  fill();
  EXPECT_EQ(testing::ext_int(call(queue_request(rq::kGetMaxOffset, 0)), "offset"), 3);
  EXPECT_EQ(testing::ext_int(call(queue_request(rq::kGetMinOffset, 0)), "offset"), 0);
  EXPECT_EQ(testing::ext_int(call(queue_request(rq::kGetMaxOffset, 5)), "offset"), 0);

  const std::int64_t first_time = stored_.front().store_timestamp;
  EXPECT_EQ(testing::ext_int(call(queue_request(rq::kGetEarliestMsgStoreTime, 0)), "timestamp"), first_time);
  EXPECT_EQ(testing::ext_int(call(queue_request(rq::kGetEarliestMsgStoreTime, 5)), "timestamp"), -1);

  const auto search = [&](std::int64_t time) {
    return testing::ext_int(call(queue_request(rq::kSearchOffsetByTimestamp, 0, {{"timestamp", std::to_string(time)}})),
                            "offset");
  };
  EXPECT_EQ(search(0), 0);
  EXPECT_EQ(search(first_time), 0);
  EXPECT_EQ(search(stored_.back().store_timestamp + 60'000), 3);  // nothing that late: the end

  EXPECT_EQ(call(testing::make_request(rq::kGetMaxOffset, {{"topic", "T"}})).remark,
            "the custom field <queueId> is null");
}

TEST_F(AdminBrokerProcessorTest, LocksAreExclusivePerClient) {
  const MessageQueue q0{"T", "broker-a", 0}, q1{"T", "broker-a", 1}, q2{"T", "broker-a", 2};
  const auto locked = [&](const RemotingCommand& response) {
    auto body = protocol::decode_lock_batch_response(protocol::body_text(response));
    EXPECT_TRUE(body.is_ok()) << body.status().to_string();
    return body ? body->lock_ok_mq_set : std::set<MessageQueue>{};
  };
  EXPECT_EQ(locked(call(lock_request(rq::kLockBatchMq, "c1", {q0, q1}))), (std::set<MessageQueue>{q0, q1}));
  EXPECT_EQ(locked(call(lock_request(rq::kLockBatchMq, "c2", {q1, q2}))), std::set<MessageQueue>{q2});
  EXPECT_EQ(call(lock_request(rq::kUnlockBatchMq, "c1", {q1})).code, rc::kSuccess);
  EXPECT_EQ(locked(call(lock_request(rq::kLockBatchMq, "c2", {q1}))), std::set<MessageQueue>{q1});

  auto bad = testing::make_request(rq::kLockBatchMq, {});
  protocol::set_body(bad, "[");
  EXPECT_EQ(call(std::move(bad)).code, rc::kSystemError);
}

TEST_F(AdminBrokerProcessorTest, ConsumeAndTopicStats) {
  fill();
  context().offsets->commit("cg", "T", 0, 2);
  const RemotingCommand consume =
      call(testing::make_request(rq::kGetConsumeStats, {{"consumerGroup", "cg"}, {"topic", "T"}}));
  auto stats = protocol::decode_consume_stats(protocol::body_text(consume));
  ASSERT_TRUE(stats.is_ok()) << stats.status().to_string();
  ASSERT_EQ(stats->offset_table.size(), 2u);
  const auto& q0 = stats->offset_table.at({"T", "broker-a", 0});
  EXPECT_EQ(q0.broker_offset, 3);
  EXPECT_EQ(q0.consumer_offset, 2);
  EXPECT_EQ(q0.last_timestamp, stored_[1].store_timestamp);
  const auto& q1 = stats->offset_table.at({"T", "broker-a", 1});
  EXPECT_EQ(q1.broker_offset, 1);
  EXPECT_EQ(q1.consumer_offset, 0);
  EXPECT_EQ(q1.last_timestamp, 0);

  // Without a topic: every topic the group has offsets for.
  auto all = protocol::decode_consume_stats(
      protocol::body_text(call(testing::make_request(rq::kGetConsumeStats, {{"consumerGroup", "cg"}}))));
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->offset_table.size(), 2u);

  auto topic = protocol::decode_topic_stats(
      protocol::body_text(call(testing::make_request(rq::kGetTopicStatsInfo, {{"topic", "T"}}))));
  ASSERT_TRUE(topic.is_ok()) << topic.status().to_string();
  const auto& range = topic->offset_table.at({"T", "broker-a", 0});
  EXPECT_EQ(range.min_offset, 0);
  EXPECT_EQ(range.max_offset, 3);
  EXPECT_EQ(range.last_update_timestamp, stored_[2].store_timestamp);
  EXPECT_EQ(call(testing::make_request(rq::kGetTopicStatsInfo, {{"topic", "Nope"}})).code, rc::kTopicNotExist);
}

// What mqadmin brokerConsumeStats shows: every group, each topic it has offsets for.
TEST_F(AdminBrokerProcessorTest, BrokerConsumeStatsCoverEveryGroupAndCanKeepOnlyOrderedTopics) {
  fill();  // T: queue 0 holds 3 messages, queue 1 holds 1
  protocol::TopicConfig ordered;
  ordered.topic_name = "O";
  ordered.read_queue_nums = ordered.write_queue_nums = 1;
  ordered.perm = 6;
  ordered.order = true;
  ASSERT_TRUE(context().topics->update(ordered).is_ok());
  for (int i = 0; i < 2; ++i) testing::append(context(), TestMessage{"O", 0, "m", "", "", ""});
  harness_.wait_dispatched();
  ASSERT_TRUE(context().groups->find_or_create("cg").has_value());
  ASSERT_TRUE(context().groups->find_or_create("idle").has_value());
  context().offsets->commit("cg", "T", 0, 2);
  context().offsets->commit("cg", "O", 0, 1);

  auto fetch = [&](const char* is_order) {
    return protocol::decode_consume_stats_list(
        protocol::body_text(call(testing::make_request(rq::kGetBrokerConsumeStats, {{"isOrder", is_order}}))));
  };
  auto groups_of = [](const protocol::ConsumeStatsList& list) {
    std::map<std::string, std::vector<protocol::ConsumeStats>> by_group;
    for (const auto& entry : list.consume_stats_list) by_group.insert(entry.begin(), entry.end());
    return by_group;
  };
  auto all = fetch("false");
  ASSERT_TRUE(all.is_ok()) << all.status().to_string();
  EXPECT_EQ(all->broker_addr, context().config->address());
  auto by_group = groups_of(*all);
  ASSERT_EQ(by_group.count("cg"), 1u);
  EXPECT_EQ(by_group.at("cg").size(), 2u);  // T and O
  ASSERT_EQ(by_group.count("idle"), 1u);
  EXPECT_TRUE(by_group.at("idle").empty());
  EXPECT_EQ(all->total_diff, (3 - 2) + (1 - 0) + (2 - 1));

  auto only_ordered = fetch("true");
  ASSERT_TRUE(only_ordered.is_ok()) << only_ordered.status().to_string();
  by_group = groups_of(*only_ordered);
  ASSERT_EQ(by_group.at("cg").size(), 1u);
  const auto& queue = by_group.at("cg")[0].offset_table.at({"O", "broker-a", 0});
  EXPECT_EQ(queue.broker_offset, 2);
  EXPECT_EQ(queue.consumer_offset, 1);
  EXPECT_GT(queue.last_timestamp, 0);
  EXPECT_EQ(only_ordered->total_diff, 1);
}

TEST_F(AdminBrokerProcessorTest, RuntimeInfoReportsTheStore) {
  fill();
  auto info = protocol::decode_kv_table(
      protocol::body_text(call(testing::make_request(rq::kGetBrokerRuntimeInfo, {}))));
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->table.at("commitLogMaxOffset"), std::to_string(context().store->stats().commit_log_max_offset));
  EXPECT_EQ(info->table.at("commitLogMinOffset"), "0");
  EXPECT_EQ(info->table.at("earliestMessageTimeStamp"), std::to_string(stored_.front().store_timestamp));
}

// The counters RocketMQ's brokerStatus shows come from BrokerStats, fed by the send and pull paths.
TEST_F(AdminBrokerProcessorTest, RuntimeInfoCarriesRocketMqsMessageCounters) {
  context().stats->count_put("T", 4, 400);
  context().stats->count_get("T", "G", 3, 300);
  auto info = protocol::decode_kv_table(
      protocol::body_text(call(testing::make_request(rq::kGetBrokerRuntimeInfo, {}))));
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->table.at("msgPutTotalTodayNow"), "4");
  EXPECT_EQ(info->table.at("msgGetTotalTodayNow"), "3");
  EXPECT_EQ(info->table.at("bootTimestamp"), std::to_string(context().boot_timestamp_ms));
  EXPECT_TRUE(std::regex_match(info->table.at("runtime"),
                               std::regex(R"(\[ 0 days, 0 hours, \d+ minutes, \d+ seconds \])")))
      << info->table.at("runtime");
  for (const char* key : {"msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning", "msgGetTotalTodayMorning",
                          "msgGetTotalYesterdayMorning", "putTps", "getTransferedTps", "getTransferredTps"}) {
    EXPECT_TRUE(info->table.count(key)) << key;
  }
  // RocketMQ's store figures of what was put: 4 messages of 400 bytes in all.
  EXPECT_EQ(info->table.at("putMessageTimesTotal"), "4");
  EXPECT_EQ(info->table.at("putMessageSizeTotal"), "400");
  EXPECT_EQ(info->table.at("putMessageAverageSize"), "100.0");
  EXPECT_GT(std::stoll(info->table.at("totalMemKBytes")), 0);
}

TEST_F(AdminBrokerProcessorTest, HaStatusAnswersWhatTheReplicationServiceSees) {
  const RemotingCommand none = call(testing::make_request(rq::kGetBrokerHaStatus, {}));
  EXPECT_EQ(none.code, rc::kSystemError);
  EXPECT_EQ(none.remark.value_or(""), "this broker runs no replication service");

  context().ha_runtime_info = [] {
    protocol::HaRuntimeInfo info;
    info.master = true;
    info.master_commit_log_max_offset = 900;
    info.ha_connection_info.push_back({"127.0.0.1:5000", 800, 100, true, 0, 800});
    return plugin::v1::Result<protocol::HaRuntimeInfo>(info);
  };
  const RemotingCommand answer = call(testing::make_request(rq::kGetBrokerHaStatus, {}));
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  const auto decoded = protocol::decode_ha_runtime_info(protocol::body_text(answer));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->ha_connection_info.at(0).slave_ack_offset, 800);

  context().ha_runtime_info = [] {
    return plugin::v1::Result<protocol::HaRuntimeInfo>(plugin::v1::Status::unavailable("the HA thread did not answer"));
  };
  const RemotingCommand stuck = call(testing::make_request(rq::kGetBrokerHaStatus, {}));
  EXPECT_EQ(stuck.code, rc::kSystemError);
  EXPECT_NE(stuck.remark.value_or("").find("did not answer"), std::string::npos);
}

// What mqadmin statsAll reads: one stats item's minute, hour and day, by RocketMQ's names and keys.
TEST_F(AdminBrokerProcessorTest, ViewBrokerStatsDataAnswersAnItemsWindowsOrSaysItDoesNotExist) {
  fill();
  context().stats->count_put("T", 4, 400);
  context().stats->count_get("T", "cg", 3, 300);
  context().stats->sample(context().clock(), 1);  // the broker answers as of its clock
  const auto view = [&](const std::string& name, const std::string& key) {
    return call(testing::make_request(rq::kViewBrokerStatsData, {{"statsName", name}, {"statsKey", key}}));
  };
  const RemotingCommand put = view("TOPIC_PUT_NUMS", "T");
  ASSERT_EQ(put.code, rc::kSuccess) << put.remark.value_or("");
  auto data = protocol::decode_broker_stats_data(protocol::body_text(put));
  ASSERT_TRUE(data.is_ok()) << data.status().to_string();
  EXPECT_EQ(data->stats_minute.sum, 4);
  EXPECT_NEAR(data->stats_minute.tps, 0.4, 0.01);  // 4 in the 10 s before the sample, and a few ms since
  EXPECT_EQ(data->stats_day.sum, 4);

  data = protocol::decode_broker_stats_data(protocol::body_text(view("GROUP_GET_NUMS", protocol::stats_key("T", "cg"))));
  ASSERT_TRUE(data.is_ok());
  EXPECT_EQ(data->stats_minute.sum, 3);
  EXPECT_EQ(view("BROKER_PUT_NUMS", context().config->cluster_name).code, rc::kSuccess);

  const RemotingCommand missing = view("TOPIC_PUT_NUMS", "Nope");
  EXPECT_EQ(missing.code, rc::kSystemError);
  EXPECT_EQ(missing.remark.value_or(""), "The stats <TOPIC_PUT_NUMS> <Nope> not exist");
  EXPECT_EQ(call(testing::make_request(rq::kViewBrokerStatsData, {{"statsName", "TOPIC_PUT_NUMS"}})).code,
            rc::kSystemError);

  // GET_CONSUME_STATS carries the group's pull rate over the last minute.
  auto stats = protocol::decode_consume_stats(protocol::body_text(
      call(testing::make_request(rq::kGetConsumeStats, {{"consumerGroup", "cg"}, {"topic", "T"}}))));
  ASSERT_TRUE(stats.is_ok()) << stats.status().to_string();
  EXPECT_NEAR(stats->consume_tps, 0.3, 0.01);
}

// statsAll's consumer groups of a topic: online subscribers and groups with offsets on it.
TEST_F(AdminBrokerProcessorTest, TopicConsumeByWhoListsOnlineAndCommittedGroups) {
  fill();
  join(std::make_shared<FakeChannel>(), "client-1", plugin::v1::LanguageCode::kJava);  // cg subscribes to T
  context().offsets->commit("offline", "T", 0, 1);
  context().offsets->commit("elsewhere", "U", 0, 1);
  auto groups = protocol::decode_group_list(
      protocol::body_text(call(testing::make_request(rq::kQueryTopicConsumeByWho, {{"topic", "T"}}))));
  ASSERT_TRUE(groups.is_ok()) << groups.status().to_string();
  EXPECT_EQ(groups->group_list, (std::set<std::string>{"cg", "offline"}));
  EXPECT_EQ(call(testing::make_request(rq::kQueryTopicConsumeByWho, {})).code, rc::kSystemError);
}

// mqadmin updateAclConfig / deleteAcl / updateGlobalWhiteAddr: the broker changes its ACL file.
TEST_F(AdminBrokerProcessorTest, AclRequestsChangeTheAclFileOrSayAclIsOff) {
  auto update = testing::make_request(rq::kUpdateAndCreateAclConfig,
                                      {{"accessKey", "operator1"}, {"secretKey", "operator-secret"},
                                       {"admin", "false"}, {"topicPerms", "Orders=PUB,Audit=SUB"}, {"groupPerms", ""}});
  const RemotingCommand off = call(update);
  EXPECT_EQ(off.code, rc::kUpdateAndCreateAclConfigFailed);
  EXPECT_NE(off.remark.value_or("").find("not enabled"), std::string::npos) << off.remark.value_or("");

  const auto dir = mqkit::testing::fresh_directory("admin-acl");
  const auto file = dir / "acl.toml";
  std::ofstream(file) << "[[accounts]]\naccess_key = \"admin-user\"\nsecret_key = \"admin-secret\"\nadmin = true\n";
  auto control = acl::AccessControl::load(file);
  ASSERT_TRUE(control.is_ok()) << control.status().to_string();
  context().access_control = *control;
  ASSERT_EQ(call(update).code, rc::kSuccess);
  auto rules_text = [&] {
    std::ifstream in(file);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_NE(rules_text().find(R"(topic_perms = ["Orders=PUB", "Audit=SUB"])"), std::string::npos) << rules_text();
  ASSERT_EQ(call(testing::make_request(rq::kUpdateGlobalWhiteAddrsConfig, {{"globalWhiteAddrs", "10.0.0.*,127.0.0.1"}})).code,
            rc::kSuccess);
  EXPECT_NE(rules_text().find(R"(global_white_remote_addresses = ["10.0.0.*", "127.0.0.1"])"), std::string::npos)
      << rules_text();
  ASSERT_EQ(call(testing::make_request(rq::kDeleteAclConfig, {{"accessKey", "operator1"}})).code, rc::kSuccess);
  EXPECT_EQ(rules_text().find("operator1"), std::string::npos) << rules_text();
  const RemotingCommand gone = call(testing::make_request(rq::kDeleteAclConfig, {{"accessKey", "operator1"}}));
  EXPECT_EQ(gone.code, rc::kDeleteAclConfigFailed);
  EXPECT_NE(gone.remark.value_or("").find("operator1"), std::string::npos);

  // Three changes made so far: the file's version says so (GET_BROKER_CLUSTER_ACL_INFO), also
  // after the file is read again.
  const RemotingCommand version = call(testing::make_request(rq::kGetBrokerClusterAclInfo, {}));
  ASSERT_EQ(version.code, rc::kSuccess) << version.remark.value_or("");
  const auto current = protocol::decode_data_version(version.ext_fields.get("version").value_or(""));
  ASSERT_TRUE(current.is_ok()) << current.status().to_string();
  EXPECT_EQ(current->counter, 3);
  EXPECT_GT(current->timestamp, 0);
  const auto by_file = protocol::decode_data_versions(version.ext_fields.get("allAclFileVersion").value_or(""));
  ASSERT_TRUE(by_file.is_ok()) << by_file.status().to_string();
  EXPECT_EQ(by_file->at(file.string()), *current);
  EXPECT_EQ(version.ext_fields.get("brokerName").value_or(""), harness_.config().broker_name);
  EXPECT_EQ(version.ext_fields.get("clusterName").value_or(""), "DefaultCluster");
  EXPECT_EQ(version.ext_fields.get("brokerAddr").value_or(""), harness_.config().address());
  EXPECT_NE(rules_text().find("data_version_counter = 3"), std::string::npos) << rules_text();
  auto reloaded = acl::AccessControl::load(file);
  ASSERT_TRUE(reloaded.is_ok()) << reloaded.status().to_string();
  EXPECT_EQ((*reloaded)->rules()->version_counter, 3);
  context().access_control = nullptr;
  EXPECT_EQ(call(testing::make_request(rq::kGetBrokerClusterAclInfo, {})).code, rc::kSystemError);
  std::filesystem::remove_all(dir);
}

// What mqadmin clusterList shows as #PCWait and the LOAD of #InTPS / #OutTPS.
TEST_F(AdminBrokerProcessorTest, RuntimeInfoCarriesTheStoresLockTimeAndTheRequestQueue) {
  class FixedQueue final : public plugin::v1::RequestQueue {
   public:
    plugin::v1::RequestQueueFigures figures() const noexcept override { return {7, 42}; }
  } queue;
  context().request_queue = &queue;
  auto info = protocol::decode_kv_table(
      protocol::body_text(call(testing::make_request(rq::kGetBrokerRuntimeInfo, {}))));
  context().request_queue = nullptr;
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->table.at("pageCacheLockTimeMills"), "0");  // no append under way
  EXPECT_EQ(info->table.at("sendThreadPoolQueueSize"), "7");
  EXPECT_EQ(info->table.at("pullThreadPoolQueueSize"), "7");
  EXPECT_EQ(info->table.at("sendThreadPoolQueueHeadWaitTimeMills"), "42");
  EXPECT_EQ(info->table.at("pullThreadPoolQueueHeadWaitTimeMills"), "42");

  auto without = protocol::decode_kv_table(
      protocol::body_text(call(testing::make_request(rq::kGetBrokerRuntimeInfo, {}))));
  ASSERT_TRUE(without.is_ok());
  EXPECT_FALSE(without->table.count("sendThreadPoolQueueSize"));
}

TEST_F(AdminBrokerProcessorTest, BrokerConfigIsPropertiesTextWithRocketMqKeys) {
  const RemotingCommand answer = call(testing::make_request(rq::kGetBrokerConfig, {}));
  ASSERT_EQ(answer.code, rc::kSuccess);
  auto properties = protocol::decode_java_properties(protocol::body_text(answer));
  ASSERT_TRUE(properties.is_ok()) << properties.status().to_string();
  EXPECT_EQ(properties->at("brokerIP1"), "127.0.0.1");
  EXPECT_EQ(properties->at("brokerPermission"), "6");
  EXPECT_EQ(properties->at("registerNameServerPeriod"), "30000");  // milliseconds, as RocketMQ's
  EXPECT_EQ(properties->at("brokerRole"), "ASYNC_MASTER");
  EXPECT_TRUE(answer.ext_fields.get("version").has_value());
}

TEST_F(AdminBrokerProcessorTest, UpdateBrokerConfigChangesLiveSettingsOnly) {
  auto update = [&](const std::map<std::string, std::string>& properties) {
    auto request = testing::make_request(rq::kUpdateBrokerConfig, {});
    protocol::set_body(request, protocol::encode_java_properties(properties));
    return call(std::move(request));
  };
  EXPECT_EQ(update({{"brokerPermission", "4"}, {"autoCreateTopicEnable", "false"}}).code, rc::kSuccess);
  EXPECT_EQ(context().config->broker_permission, 4);
  EXPECT_FALSE(context().config->auto_create_topic_enable);
  auto properties = protocol::decode_java_properties(
      protocol::body_text(call(testing::make_request(rq::kGetBrokerConfig, {}))));
  EXPECT_EQ(properties->at("brokerPermission"), "4");

  // Refused whole: a restart-only key, an unknown key, a value out of bounds.
  const RemotingCommand restart = update({{"listenPort", "1"}, {"brokerPermission", "6"}});
  EXPECT_EQ(restart.code, rc::kNoPermission);
  EXPECT_NE(restart.remark.value_or("").find("listenPort"), std::string::npos);
  EXPECT_EQ(update({{"noSuchKey", "1"}}).code, rc::kInvalidParameter);
  EXPECT_EQ(update({{"brokerPermission", "9"}}).code, rc::kInvalidParameter);
  EXPECT_EQ(update({{"slaveReadEnable", "maybe"}}).code, rc::kInvalidParameter);
  EXPECT_EQ(context().config->broker_permission, 4);
}

TEST_F(AdminBrokerProcessorTest, ResetOffsetByTimeCommitsAndTellsOnlineConsumers) {
  fill();
  context().offsets->commit("cg", "T", 0, 3);
  context().offsets->commit("cg", "T", 1, 1);
  auto java = std::make_shared<FakeChannel>(11);
  auto cpp = std::make_shared<FakeChannel>(12);
  join(java, "java-client", plugin::v1::LanguageCode::kJava);
  join(cpp, "cpp-client", plugin::v1::LanguageCode::kCpp);

  const RemotingCommand reset = call(testing::make_request(
      rq::kInvokeBrokerToResetOffset, {{"topic", "T"}, {"group", "cg"}, {"timestamp", "0"}, {"isForce", "true"}}));
  ASSERT_EQ(reset.code, rc::kSuccess) << reset.remark.value_or("");
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 0);
  EXPECT_EQ(context().offsets->query("cg", "T", 1), 0);
  const std::map<MessageQueue, std::int64_t> zero{{{"T", "broker-a", 0}, 0}, {{"T", "broker-a", 1}, 0}};
  EXPECT_EQ(protocol::body_text(reset), encode_reset_offset_body(zero, plugin::v1::LanguageCode::kCpp));

  ASSERT_EQ(java->sent().size(), 1u);
  const RemotingCommand notice = java->last();
  EXPECT_EQ(notice.code, rq::kResetConsumerClientOffset);
  EXPECT_TRUE(notice.is_oneway());
  EXPECT_EQ(notice.ext_fields.get("group"), "cg");
  EXPECT_EQ(notice.ext_fields.get("timestamp"), "0");
  EXPECT_EQ(protocol::body_text(notice),
            R"({"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:0,)"
            R"({"brokerName":"broker-a","queueId":1,"topic":"T"}:0}})");
  ASSERT_EQ(cpp->sent().size(), 1u);
  EXPECT_EQ(protocol::body_text(cpp->last()),
            R"({"offsetTable":[{"brokerName":"broker-a","offset":0,"queueId":0,"topic":"T"},)"
            R"({"brokerName":"broker-a","offset":0,"queueId":1,"topic":"T"}]})");

  // To the end, but without force an earlier offset stays.
  context().offsets->commit("cg", "T", 0, 2);
  context().offsets->commit("cg", "T", 1, 1);
  ASSERT_EQ(call(testing::make_request(rq::kInvokeBrokerToResetOffset,
                                       {{"topic", "T"}, {"group", "cg"}, {"timestamp", "-1"}, {"isForce", "false"}}))
                .code,
            rc::kSuccess);
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 2);
  EXPECT_EQ(context().offsets->query("cg", "T", 1), 1);
  ASSERT_EQ(call(testing::make_request(rq::kInvokeBrokerToResetOffset,
                                       {{"topic", "T"}, {"group", "cg"}, {"timestamp", "-1"}}))
                .code,
            rc::kSuccess);
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 3);
  EXPECT_EQ(context().offsets->query("cg", "T", 1), 1);

  EXPECT_EQ(call(testing::make_request(rq::kInvokeBrokerToResetOffset,
                                       {{"topic", "Nope"}, {"group", "cg"}, {"timestamp", "0"}}))
                .remark,
            "[reset-offset] reset offset failed, no topic in this broker. topic=Nope");
  EXPECT_EQ(call(testing::make_request(rq::kInvokeBrokerToResetOffset,
                                       {{"topic", "T"}, {"group", "typo"}, {"timestamp", "0"}}))
                .remark,
            "THe consumer group <typo> not exist");
  EXPECT_TRUE(context().offsets->offsets("typo", "T").empty());
}

// RocketMQ 5's batch requests (mqadmin updateTopicList / updateSubGroupList).
TEST_F(AdminBrokerProcessorTest, TopicAndGroupListsAreAppliedWholeOrNotAtAll) {
  const auto before = context().topics->snapshot().data_version;
  protocol::TopicConfig a;
  a.topic_name = "ListA";
  a.read_queue_nums = a.write_queue_nums = 2;
  protocol::TopicConfig b = a;
  b.topic_name = "ListB";
  b.order = true;
  auto topics = testing::make_request(rq::kUpdateAndCreateTopicList, {});
  protocol::set_body(topics, protocol::encode_topic_config_list({a, b}));
  const RemotingCommand created = call(std::move(topics));
  ASSERT_EQ(created.code, rc::kSuccess) << created.remark.value_or("");
  EXPECT_EQ(context().topics->find("ListA"), a);
  EXPECT_EQ(context().topics->find("ListB"), b);
  EXPECT_GT(context().topics->snapshot().data_version.counter, before.counter);

  // One refused topic and nothing of the list is applied; the remark names it.
  protocol::TopicConfig c = a;
  c.topic_name = "ListC";
  protocol::TopicConfig system = a;
  system.topic_name = "TBW102";
  auto refused = testing::make_request(rq::kUpdateAndCreateTopicList, {});
  protocol::set_body(refused, protocol::encode_topic_config_list({c, system}));
  const RemotingCommand answer = call(std::move(refused));
  EXPECT_EQ(answer.code, rc::kInvalidParameter);
  EXPECT_EQ(answer.remark.value_or(""), "The topic[TBW102] is conflict with system topic.");
  EXPECT_FALSE(context().topics->find("ListC").has_value());
  protocol::TopicConfig bad_name = a;
  bad_name.topic_name = "bad topic";
  auto invalid = testing::make_request(rq::kUpdateAndCreateTopicList, {});
  protocol::set_body(invalid, protocol::encode_topic_config_list({c, bad_name}));
  EXPECT_EQ(call(std::move(invalid)).code, rc::kInvalidParameter);
  EXPECT_FALSE(context().topics->find("ListC").has_value());
  auto empty = testing::make_request(rq::kUpdateAndCreateTopicList, {});
  protocol::set_body(empty, R"({"topicConfigList":[]})");
  EXPECT_EQ(call(std::move(empty)).remark.value_or(""), "topicConfigList is empty");
  auto garbage = testing::make_request(rq::kUpdateAndCreateTopicList, {});
  protocol::set_body(garbage, R"({"topicConfigList":{"topicName":"X"}})");
  EXPECT_EQ(call(std::move(garbage)).code, rc::kInvalidParameter);

  auto groups = testing::make_request(rq::kUpdateAndCreateSubscriptionGroupList, {});
  protocol::set_body(groups, R"({"groupConfigList":[{"groupName":"lg1","retryMaxTimes":3},{"groupName":"lg2"}]})");
  ASSERT_EQ(call(std::move(groups)).code, rc::kSuccess);
  ASSERT_TRUE(context().groups->find("lg1").has_value());
  EXPECT_EQ(context().groups->find("lg1")->retry_max_times, 3);
  EXPECT_TRUE(context().groups->find("lg2").has_value());
  auto nameless = testing::make_request(rq::kUpdateAndCreateSubscriptionGroupList, {});
  protocol::set_body(nameless, R"({"groupConfigList":[{"groupName":"lg3"},{"retryMaxTimes":1}]})");
  EXPECT_EQ(call(std::move(nameless)).code, rc::kInvalidParameter);
  EXPECT_FALSE(context().groups->find("lg3").has_value());
}

TEST_F(AdminBrokerProcessorTest, SubscriptionGroupsCanBeManaged) {
  auto update = testing::make_request(rq::kUpdateAndCreateSubscriptionGroup, {});
  protocol::set_body(update, R"({"groupName":"g1","consumeEnable":false,"retryMaxTimes":"3","retryQueueNums":2})");
  ASSERT_EQ(call(std::move(update)).code, rc::kSuccess);
  const auto g1 = context().groups->find("g1");
  ASSERT_TRUE(g1.has_value());
  EXPECT_FALSE(g1->consume_enable);
  EXPECT_EQ(g1->retry_max_times, 3);
  EXPECT_EQ(g1->retry_queue_nums, 2);
  EXPECT_TRUE(g1->consume_broadcast_enable);  // default kept

  auto nameless = testing::make_request(rq::kUpdateAndCreateSubscriptionGroup, {});
  protocol::set_body(nameless, R"({"consumeEnable":true})");
  EXPECT_EQ(call(std::move(nameless)).code, rc::kSystemError);

  const RemotingCommand all = call(testing::make_request(rq::kGetAllSubscriptionGroupConfig, {}));
  EXPECT_NE(protocol::body_text(all).find(R"("g1":{"brokerId":0,)"), std::string_view::npos)
      << protocol::body_text(all);

  context().offsets->commit("g1", "T", 0, 4);
  EXPECT_EQ(call(testing::make_request(rq::kDeleteSubscriptionGroup, {{"groupName", "g1"}, {"cleanOffset", "true"}}))
                .code,
            rc::kSuccess);
  EXPECT_FALSE(context().groups->find("g1").has_value());
  EXPECT_FALSE(context().offsets->query("g1", "T", 0).has_value());
}

// Deleting a group with cleanOffset drops what it popped too; without, its pops stay, as its offsets do.
TEST_F(AdminBrokerProcessorTest, DeleteGroupWithCleanOffsetForgetsItsPops) {
  fill();
  const auto delete_group = [this](const char* group, const char* clean) {
    auto create = testing::make_request(rq::kUpdateAndCreateSubscriptionGroup, {});
    protocol::set_body(create, std::string(R"({"groupName":")") + group + R"("})");
    ASSERT_EQ(call(std::move(create)).code, rc::kSuccess);
    ASSERT_EQ(call(testing::make_request(rq::kDeleteSubscriptionGroup, {{"groupName", group}, {"cleanOffset", clean}})).code,
              rc::kSuccess);
  };
  const auto popped = [this](const char* group) {
    auto outcome = context().pops->pop(PopRequest{.group = group, .topic = "T", .queue_id = 0, .read_queue_nums = 2});
    EXPECT_TRUE(outcome.is_ok()) << outcome.status().to_string();
    return outcome.is_ok() ? outcome->records.size() : 0U;
  };
  ASSERT_EQ(popped("kept"), 3U);
  ASSERT_EQ(popped("cleaned"), 3U);
  delete_group("kept", "false");
  delete_group("cleaned", "true");
  EXPECT_EQ(popped("kept"), 0U) << "still invisible: its pops were kept";
  EXPECT_EQ(popped("cleaned"), 3U) << "its pops were forgotten: it reads the queue from its start again";
}

TEST_F(AdminBrokerProcessorTest, AllConsumerOffsetsAndGroupsForSlaves) {
  context().offsets->commit("g1", "T", 0, 4);
  context().offsets->commit("g1", "T", 1, 9);
  const RemotingCommand offsets = call(testing::make_request(rq::kGetAllConsumerOffset, {}));
  ASSERT_EQ(offsets.code, rc::kSuccess);
  EXPECT_EQ(protocol::body_text(offsets), R"({"offsetTable":{"T@g1":{"0":4,"1":9}}})");

  ASSERT_TRUE(context().groups->find_or_create("g1").has_value());
  const RemotingCommand groups = call(testing::make_request(rq::kGetAllSubscriptionGroupConfig, {}));
  auto decoded = protocol::decode_subscription_group_table(protocol::body_text(groups));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, context().groups->all());
  // RocketMQ's wrapper carries a data version and fields mqkit does not keep; a group may lack its name.
  auto rocketmq = protocol::decode_subscription_group_table(
      R"({"dataVersion":{"counter":3,"timestamp":1},"subscriptionGroupTable":{"g2":{"retryMaxTimes":2,"groupSysFlag":0}}})");
  ASSERT_TRUE(rocketmq.is_ok()) << rocketmq.status().to_string();
  EXPECT_EQ(rocketmq->at("g2").group_name, "g2");
  EXPECT_EQ(rocketmq->at("g2").retry_max_times, 2);

  // No delayed delivery in this context: refused as RocketMQ refuses a store without it.
  EXPECT_EQ(call(testing::make_request(rq::kGetAllDelayOffset, {})).code, rc::kSystemError);
}

TEST_F(AdminBrokerProcessorTest, ConsumerConnectionList) {
  const RemotingCommand offline = call(testing::make_request(rq::kGetConsumerConnectionList, {{"consumerGroup", "cg"}}));
  EXPECT_EQ(offline.code, rc::kConsumerNotOnline);
  EXPECT_EQ(offline.remark, "the consumer group[cg] not online");

  join(std::make_shared<FakeChannel>(5, "10.0.0.5:4000"), "c1", plugin::v1::LanguageCode::kJava);
  const RemotingCommand online = call(testing::make_request(rq::kGetConsumerConnectionList, {{"consumerGroup", "cg"}}));
  ASSERT_EQ(online.code, rc::kSuccess);
  const std::string_view body = protocol::body_text(online);
  EXPECT_NE(body.find(R"({"connectionSet":[{"clientAddr":"10.0.0.5:4000","clientId":"c1","language":"JAVA","version":401}])"),
            std::string_view::npos)
      << body;
  EXPECT_NE(body.find(R"("messageModel":"CLUSTERING","subscriptionTable":{"T":{)"), std::string_view::npos) << body;
  EXPECT_NE(body.find(R"("subString":"*")"), std::string_view::npos) << body;
  auto decoded = protocol::decode_consumer_connection(body);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->consume_from_where, "CONSUME_FROM_LAST_OFFSET");
  EXPECT_EQ(decoded->subscription_table.at("T").sub_string, "*");
}

TEST_F(AdminBrokerProcessorTest, ProducerConnectionList) {
  const auto ask = [&](const std::string& group) {
    return call(testing::make_request(rq::kGetProducerConnectionList, {{"producerGroup", group}}));
  };
  const RemotingCommand none = ask("pg");
  EXPECT_EQ(none.code, rc::kSystemError);
  EXPECT_EQ(none.remark, "the producer group[pg] not exist");

  context().producers->register_producer(
      "pg", {std::make_shared<FakeChannel>(7, "10.0.0.7:5000"), "p1", plugin::v1::LanguageCode::kCpp, 401, 0});
  context().producers->register_producer(
      "pg", {std::make_shared<FakeChannel>(8, "10.0.0.8:5000"), "p2", plugin::v1::LanguageCode::kJava, 453, 0});
  context().producers->register_producer(
      "other", {std::make_shared<FakeChannel>(9, "10.0.0.9:5000"), "p3", plugin::v1::LanguageCode::kGo, 413, 0});
  const RemotingCommand online = ask("pg");
  ASSERT_EQ(online.code, rc::kSuccess) << online.remark.value_or("");
  EXPECT_EQ(protocol::body_text(online),
            R"({"connectionSet":[{"clientAddr":"10.0.0.7:5000","clientId":"p1","language":"CPP","version":401},)"
            R"({"clientAddr":"10.0.0.8:5000","clientId":"p2","language":"JAVA","version":453}]})");

  // Gone with its last connection.
  context().producers->on_channel_closed(7);
  context().producers->on_channel_closed(8);
  EXPECT_EQ(ask("pg").code, rc::kSystemError);
  EXPECT_EQ(ask("other").code, rc::kSuccess);
  const RemotingCommand headerless = call(testing::make_request(rq::kGetProducerConnectionList, {}));
  EXPECT_EQ(headerless.code, rc::kSystemError);
  EXPECT_EQ(headerless.remark, "the custom field <producerGroup> is null");
}

TEST_F(AdminBrokerProcessorTest, ConsumerRunningInfoIsForwardedToTheNamedClient) {
  const auto ask = [&](const std::string& client_id) {
    return call(testing::make_request(rq::kGetConsumerRunningInfo,
                                      {{"consumerGroup", "cg"}, {"clientId", client_id}, {"jstackEnable", "false"}}));
  };
  const RemotingCommand offline = ask("c1");
  EXPECT_EQ(offline.code, rc::kSystemError);
  EXPECT_EQ(offline.remark, "The Consumer <cg> <c1> not online");

  auto c1 = std::make_shared<FakeChannel>(5, "10.0.0.5:4000");
  auto c2 = std::make_shared<FakeChannel>(6, "10.0.0.6:4000");
  join(c1, "c1", plugin::v1::LanguageCode::kCpp);
  join(c2, "c2", plugin::v1::LanguageCode::kJava);
  // The fake channel never answers: the failure comes back named.
  const RemotingCommand failed = ask("c2");
  EXPECT_EQ(failed.code, rc::kSystemError);
  EXPECT_EQ(failed.remark, "invoke consumer <cg> <c2> Exception: fake channel does not answer");
  EXPECT_TRUE(c1->sent().empty());
  ASSERT_EQ(c2->sent().size(), 1u);
  const RemotingCommand forwarded = c2->last();
  EXPECT_EQ(forwarded.code, rq::kGetConsumerRunningInfo);
  EXPECT_FALSE(forwarded.is_oneway());
  EXPECT_EQ(forwarded.ext_fields.get("consumerGroup"), "cg");
  EXPECT_EQ(forwarded.ext_fields.get("clientId"), "c2");
  EXPECT_EQ(forwarded.ext_fields.get("jstackEnable"), "false");
  EXPECT_EQ(call(testing::make_request(rq::kGetConsumerRunningInfo, {{"consumerGroup", "cg"}})).code, rc::kSystemError);
}

TEST_F(AdminBrokerProcessorTest, ConsumerStatusAsksEveryOnlineConsumerAndListsTheirAnswers) {
  const auto ask = [&](const std::string& client_id) {
    auto request = testing::make_request(rq::kInvokeBrokerToGetConsumerStatus, {{"topic", "T"}, {"group", "cg"}});
    if (!client_id.empty()) request.ext_fields.set("clientAddr", client_id);
    return call(std::move(request));
  };
  const RemotingCommand offline = ask("");
  EXPECT_EQ(offline.code, rc::kSystemError);
  EXPECT_EQ(offline.remark, "No Any Consumer online in the consumer group: [cg]");

  auto c1 = std::make_shared<FakeChannel>(5, "10.0.0.5:4000");
  auto c2 = std::make_shared<FakeChannel>(6, "10.0.0.6:4000");
  auto c3 = std::make_shared<FakeChannel>(7, "10.0.0.7:4000");
  // c1 answers as a Java client does; c2 fails; c3 answers with an error code.
  c1->answer_with([](const RemotingCommand&) -> plugin::v1::Result<RemotingCommand> {
    RemotingCommand answer;
    protocol::set_body(answer, R"({"consumerTable":{},"messageQueueTable":{{"brokerName":"b","queueId":1,"topic":"T"}:12}})");
    return answer;
  });
  c3->answer_with([](const RemotingCommand&) -> plugin::v1::Result<RemotingCommand> {
    RemotingCommand answer;
    answer.code = rc::kSystemError;
    return answer;
  });
  join(c1, "c1", plugin::v1::LanguageCode::kJava);
  join(c2, "c2", plugin::v1::LanguageCode::kCpp);
  join(c3, "c3", plugin::v1::LanguageCode::kJava);

  const RemotingCommand all = ask("");
  ASSERT_EQ(all.code, rc::kSuccess) << all.remark.value_or("");
  auto body = protocol::decode_get_consumer_status_body(protocol::body_text(all));
  ASSERT_TRUE(body.is_ok()) << body.status().to_string();
  ASSERT_EQ(body->consumer_table.size(), 1u);  // only c1 answered with offsets
  EXPECT_EQ(body->consumer_table.at("c1"), (std::map<MessageQueue, std::int64_t>{{{"T", "b", 1}, 12}}));
  for (const auto& channel : {c1, c2, c3}) {
    ASSERT_EQ(channel->sent().size(), 1u);
    const RemotingCommand question = channel->last();
    EXPECT_EQ(question.code, rq::kGetConsumerStatusFromClient);
    EXPECT_FALSE(question.is_oneway());
    EXPECT_EQ(question.ext_fields.get("topic"), "T");
    EXPECT_EQ(question.ext_fields.get("group"), "cg");
  }

  // Only the named client is asked; an unknown one gets an empty table.
  const RemotingCommand one = ask("c3");
  ASSERT_EQ(one.code, rc::kSuccess);
  EXPECT_EQ(c1->sent().size(), 1u);
  EXPECT_EQ(c3->sent().size(), 2u);
  const RemotingCommand nobody = ask("c9");
  ASSERT_EQ(nobody.code, rc::kSuccess);
  EXPECT_EQ(protocol::body_text(nobody), R"({"consumerTable":{},"messageQueueTable":{}})");

  // A consumer older than 3.0.7 cannot answer: RocketMQ refuses the whole request.
  auto old = std::make_shared<FakeChannel>(8, "10.0.0.8:4000");
  protocol::ConsumerData data;
  data.group_name = "cg";
  context().consumers->register_consumer(data, {old, "c-old", plugin::v1::LanguageCode::kJava, 20, 0});
  const RemotingCommand refused = ask("");
  EXPECT_EQ(refused.code, rc::kSystemError);
  EXPECT_EQ(refused.remark, "the client does not support this feature. version=V3_0_3_SNAPSHOT");
  EXPECT_EQ(call(testing::make_request(rq::kInvokeBrokerToGetConsumerStatus, {{"topic", "T"}})).code,
            rc::kSystemError);
}

}  // namespace
}  // namespace mqkit::broker
