#include "mqkit/protocol/bodies.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TopicRouteData sample_route() {
  TopicRouteData r;
  r.queue_datas.push_back({"broker-a", 4, 4, 6, 0});
  r.broker_datas.push_back({"DefaultCluster", "broker-a", {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}}});
  return r;
}

TEST(BodiesTest, TopicRouteStandardJson) {
  EXPECT_EQ(encode(sample_route()),
            R"({"brokerDatas":[{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"},"brokerName":"broker-a",)"
            R"("cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,)"
            R"("readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]})");
}

TEST(BodiesTest, TopicRouteLegacyJsonHasBareBrokerIds) {
  const std::string legacy = encode(sample_route(), JsonStyle::kLegacy);
  EXPECT_NE(legacy.find(R"("brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"})"), std::string::npos) << legacy;
  // And we read it back, as the old C++ client does.
  auto decoded = decode_topic_route(legacy);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->broker_datas, sample_route().broker_datas);
  EXPECT_EQ(decoded->queue_datas, sample_route().queue_datas);
}

TEST(BodiesTest, TopicRouteAcceptsOldSpellingAndStringNumbers) {
  auto r = decode_topic_route(
      R"({"queueDatas":[{"brokerName":"b","readQueueNums":"8","writeQueueNums":8,"perm":6,"topicSynFlag":3}],)"
      R"("brokerDatas":[{"brokerName":"b","cluster":"c","brokerAddrs":{0:"1.2.3.4:10911"}}]})");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->queue_datas[0].read_queue_nums, 8);
  EXPECT_EQ(r->queue_datas[0].topic_sys_flag, 3);
  EXPECT_EQ(r->broker_datas[0].broker_addrs.at(0), "1.2.3.4:10911");
}

TEST(BodiesTest, MalformedBodiesGiveClearErrors) {
  EXPECT_EQ(decode_topic_route("{nope").status().message().rfind("TopicRouteData is not valid JSON: ", 0), 0u);
  EXPECT_EQ(decode_topic_route("[]").status().message(), "TopicRouteData is not a JSON object");
  EXPECT_EQ(decode_topic_route(R"({"queueDatas":{}})").status().message(),
            "TopicRouteData: field 'queueDatas' must be an array");
  EXPECT_EQ(decode_heartbeat(R"({"consumerDataSet":[]})").status().message(), "HeartbeatData: clientID is missing");
  EXPECT_EQ(decode_topic_route(R"({"brokerDatas":[{"brokerAddrs":{"x":"a"}}]})").status().message(),
            "BrokerData: brokerAddrs must map broker ids to addresses");
}

TEST(BodiesTest, QueueCountsBeyondAnyDeploymentAreRefused) {
  const auto route = [](std::string_view read) {
    return decode_topic_route(R"({"queueDatas":[{"brokerName":"b","readQueueNums":)" + std::string(read) +
                              R"(,"writeQueueNums":8,"perm":6}],"brokerDatas":[]})");
  };
  EXPECT_TRUE(route("65535").is_ok());
  EXPECT_EQ(route("2000000000").status().message(),
            "QueueData of 'b': readQueueNums 2000000000 is outside 0..65535");
  EXPECT_EQ(route("-1").status().message(), "QueueData of 'b': readQueueNums -1 is outside 0..65535");
  auto table = decode_topic_config_table(
      R"({"topicConfigTable":{"T":{"topicName":"T","readQueueNums":4,"writeQueueNums":70000,"perm":6}}})");
  EXPECT_EQ(table.status().message(), "TopicConfig of 'T': writeQueueNums 70000 is outside 0..65535");
}

TEST(BodiesTest, RegisterBrokerBodyRoundTrip) {
  RegisterBrokerBody body;
  body.topic_config_wrapper.data_version = {1700000000000, 12, 0};
  TopicConfig t;
  t.topic_name = "T";
  t.read_queue_nums = t.write_queue_nums = 4;
  body.topic_config_wrapper.topic_config_table["T"] = t;
  const std::string json = encode(body);
  EXPECT_EQ(json,
            R"({"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":12,"stateVersion":0,)"
            R"("timestamp":1700000000000},"topicConfigTable":{"T":{"attributes":{},"order":false,"perm":6,)"
            R"("readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"T","topicSysFlag":0,"writeQueueNums":4}}}})");
  auto decoded = decode_register_broker_body(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->topic_config_wrapper.data_version, body.topic_config_wrapper.data_version);
  EXPECT_EQ(decoded->topic_config_wrapper.topic_config_table.at("T"), t);
}

TEST(BodiesTest, HeartbeatFromAliOns) {
  // As sent by the ali-ons JS client (client-compat.md).
  auto h = decode_heartbeat(
      R"({"clientID":"192.0.2.2@c1","consumerDataSet":[{"groupName":"CG1","consumeType":"CONSUME_PASSIVELY",)"
      R"("messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[)"
      R"({"topic":"T1","subString":"TagA||TagB","classFilterMode":false,"tagsSet":["TagA","TagB"],)"
      R"("codeSet":[2598919,2598920],"subVersion":1795962299232},{"topic":"%RETRY%CG1","subString":"*",)"
      R"("classFilterMode":false,"tagsSet":[],"codeSet":[],"subVersion":1}],"unitMode":false}],)"
      R"("producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"}]})");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  EXPECT_EQ(h->client_id, "192.0.2.2@c1");
  ASSERT_EQ(h->consumer_data_set.size(), 1u);
  const auto& c = h->consumer_data_set[0];
  EXPECT_EQ(c.message_model, "CLUSTERING");
  ASSERT_EQ(c.subscription_data_set.size(), 2u);
  EXPECT_EQ(c.subscription_data_set[0].code_set, (std::set<std::int32_t>{2598919, 2598920}));
  EXPECT_EQ(h->producer_groups, std::vector<std::string>{"CLIENT_INNER_PRODUCER"});
  auto again = decode_heartbeat(encode(*h));
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->consumer_data_set[0].subscription_data_set[0].tags_set, c.subscription_data_set[0].tags_set);
}

TEST(BodiesTest, LockBodiesAndQueueKeyedMaps) {
  LockBatchRequest req{"g", "c1", {{"T", "b", 1}, {"T", "b", 0}}, false};
  auto decoded = decode_lock_batch_request(encode(req));
  ASSERT_TRUE(decoded.is_ok());
  EXPECT_EQ(decoded->mq_set, req.mq_set);
  ConsumeStats stats;
  stats.offset_table[{"T", "b", 0}] = {10, 7, 123};
  const std::string json = encode(stats);
  // fastjson's form: the queue object itself is the map key (what Java admin tools parse).
  EXPECT_EQ(json, R"({"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:)"
                  R"({"brokerOffset":10,"consumerOffset":7,"lastTimestamp":123}}})");
  auto s = decode_consume_stats(json);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s->offset_table.at({"T", "b", 0}).consumer_offset, 7);
  // fastjson's object-as-key form, as a Java broker writes it.
  auto java = decode_consume_stats(
      R"({"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":2,"topic":"T"}:{"brokerOffset":5,"consumerOffset":4,"lastTimestamp":0}}})");
  ASSERT_TRUE(java.is_ok()) << java.status().to_string();
  EXPECT_EQ(java->offset_table.at({"T", "b", 2}).broker_offset, 5);
  stats.offset_table[{"T", "b", 1}] = {4, 6, 0};  // a group ahead of the broker counts negative
  EXPECT_EQ(total_diff(stats), 3 - 2);
  EXPECT_EQ(total_diff(ConsumeStats{}), 0);
}

TEST(BodiesTest, ConsumeStatsListNestsEachGroupsConsumeStats) {
  ConsumeStatsList list;
  list.broker_addr = "127.0.0.1:10911";
  ConsumeStats orders;
  orders.offset_table[{"Orders", "broker-a", 1}] = {10, 7, 123};
  list.consume_stats_list.push_back({{"g1", {orders}}});
  list.consume_stats_list.push_back({{"idle", {}}});
  list.total_diff = 3;
  const std::string json = encode(list);
  EXPECT_EQ(json, R"({"brokerAddr":"127.0.0.1:10911","consumeStatsList":[{"g1":[{"consumeTps":0.0,"offsetTable":)"
                  R"({{"brokerName":"broker-a","queueId":1,"topic":"Orders"}:)"
                  R"({"brokerOffset":10,"consumerOffset":7,"lastTimestamp":123}}}]},{"idle":[]}],"totalDiff":3})");
  auto decoded = decode_consume_stats_list(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->broker_addr, "127.0.0.1:10911");
  EXPECT_EQ(decoded->total_diff, 3);
  ASSERT_EQ(decoded->consume_stats_list.size(), 2u);
  EXPECT_EQ(decoded->consume_stats_list[0].at("g1").at(0).offset_table.at({"Orders", "broker-a", 1}).broker_offset, 10);
  EXPECT_TRUE(decoded->consume_stats_list[1].at("idle").empty());
  EXPECT_FALSE(decode_consume_stats_list(R"({"consumeStatsList":[{"g1":7}]})").is_ok());
  EXPECT_FALSE(decode_consume_stats_list(R"({"consumeStatsList":{}})").is_ok());
}

TEST(BodiesTest, ResetOffsetBodyReadsBothShapesRocketMqBrokersSend) {
  // A Java broker's answer to INVOKE_BROKER_TO_RESET_OFFSET: fastjson's MessageQueue-keyed map.
  auto java = decode_reset_offset_body(
      R"({"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:42,)"
      R"({"brokerName":"broker-b","queueId":3,"topic":"T"}:7}})");
  ASSERT_TRUE(java.is_ok()) << java.status().to_string();
  const std::map<MessageQueue, std::int64_t> expected{{{"T", "broker-a", 0}, 42}, {{"T", "broker-b", 3}, 7}};
  EXPECT_EQ(java->offset_table, expected);
  // ResetOffsetBodyForC, the RESET_CONSUMER_CLIENT_OFFSET notice a C++ client gets.
  auto for_cpp = decode_reset_offset_body(
      R"({"offsetTable":[{"brokerName":"broker-a","offset":42,"queueId":0,"topic":"T"},)"
      R"({"brokerName":"broker-b","offset":7,"queueId":3,"topic":"T"}]})");
  ASSERT_TRUE(for_cpp.is_ok()) << for_cpp.status().to_string();
  EXPECT_EQ(for_cpp->offset_table, expected);

  const ResetOffsetBody body{expected};
  EXPECT_EQ(encode(body), R"({"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:42,)"
                          R"({"brokerName":"broker-b","queueId":3,"topic":"T"}:7}})");
  EXPECT_EQ(encode_for_cpp(body), R"({"offsetTable":[{"brokerName":"broker-a","offset":42,"queueId":0,"topic":"T"},)"
                                  R"({"brokerName":"broker-b","offset":7,"queueId":3,"topic":"T"}]})");
  for (const std::string& json : {encode(body), encode_for_cpp(body)}) {
    auto again = decode_reset_offset_body(json);
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    EXPECT_EQ(again->offset_table, expected) << json;
  }
  for (const char* empty : {R"({"offsetTable":{}})", R"({"offsetTable":[]})", "{}"}) {
    auto none = decode_reset_offset_body(empty);
    ASSERT_TRUE(none.is_ok()) << empty << ": " << none.status().to_string();
    EXPECT_TRUE(none->offset_table.empty());
  }
  EXPECT_FALSE(decode_reset_offset_body(R"({"offsetTable":[{"brokerName":"b","queueId":0,"topic":"T"}]})").is_ok());
  EXPECT_FALSE(decode_reset_offset_body(R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:"x"}})").is_ok());
}

TEST(BodiesTest, GetConsumerStatusBodyOfAClientAndOfABroker) {
  // A Java client's answer to GET_CONSUMER_STATUS_FROM_CLIENT.
  auto client = decode_get_consumer_status_body(
      R"({"consumerTable":{},"messageQueueTable":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:100}})");
  ASSERT_TRUE(client.is_ok()) << client.status().to_string();
  EXPECT_EQ(client->message_queue_table, (std::map<MessageQueue, std::int64_t>{{{"T", "broker-a", 1}, 100}}));
  EXPECT_TRUE(client->consumer_table.empty());
  // A Java broker's answer to INVOKE_BROKER_TO_GET_CONSUMER_STATUS: every client's table by id.
  auto broker = decode_get_consumer_status_body(
      R"({"consumerTable":{"10.0.0.9@1234":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:100},)"
      R"("10.0.0.8@99":{}},"messageQueueTable":{}})");
  ASSERT_TRUE(broker.is_ok()) << broker.status().to_string();
  ASSERT_EQ(broker->consumer_table.size(), 2u);
  EXPECT_EQ(broker->consumer_table.at("10.0.0.9@1234").at({"T", "broker-a", 1}), 100);
  EXPECT_TRUE(broker->consumer_table.at("10.0.0.8@99").empty());

  GetConsumerStatusBody body;
  body.consumer_table["c1"] = {{{"T", "b", 0}, 5}};
  body.message_queue_table = {{{"T", "b", 2}, 9}};
  const std::string json = encode(body);
  EXPECT_EQ(json, R"({"consumerTable":{"c1":{{"brokerName":"b","queueId":0,"topic":"T"}:5}},)"
                  R"("messageQueueTable":{{"brokerName":"b","queueId":2,"topic":"T"}:9}})");
  auto again = decode_get_consumer_status_body(json);
  ASSERT_TRUE(again.is_ok()) << again.status().to_string();
  EXPECT_EQ(again->consumer_table, body.consumer_table);
  EXPECT_EQ(again->message_queue_table, body.message_queue_table);
  EXPECT_FALSE(decode_get_consumer_status_body(R"({"consumerTable":{"c1":7}})").is_ok());
}

TEST(BodiesTest, ConsumerRunningInfoRoundTripsAndReadsWhatJavaClientsSend) {
  ConsumerRunningInfo info;
  info.properties = {{"consumerGroup", "g"}, {std::string(ConsumerRunningInfo::kPropConsumeType), "CONSUME_PASSIVELY"}};
  SubscriptionData sub;
  sub.topic = "T";
  sub.sub_string = "TagA";
  sub.tags_set = {"TagA"};
  sub.code_set = {2598919};
  info.subscription_set.push_back(sub);
  ProcessQueueInfo queue;
  queue.commit_offset = 7;
  queue.cached_msg_min_offset = 7;
  queue.cached_msg_max_offset = 9;
  queue.cached_msg_count = 3;
  queue.locked = true;
  queue.dropped = false;
  queue.last_pull_timestamp = 1700000000123;
  info.mq_table[{"T", "b", 1}] = queue;
  info.status_table["T"] = {0.5, 3, 2, 1.5, 0, 4};
  const std::string json = encode(info);
  // The queue object itself is the mqTable key, as fastjson writes it; "droped" as RocketMQ spells it.
  EXPECT_NE(json.find(R"("mqTable":{{"brokerName":"b","queueId":1,"topic":"T"}:{)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("droped":false)"), std::string::npos) << json;
  auto decoded = decode_consumer_running_info(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->properties, info.properties);
  EXPECT_EQ(decoded->mq_table, info.mq_table);
  EXPECT_EQ(decoded->status_table, info.status_table);
  ASSERT_EQ(decoded->subscription_set.size(), 1u);
  EXPECT_EQ(decoded->subscription_set[0].tags_set, sub.tags_set);

  // A Java client's answer: no jstack, a 5.x mqPopTable, numbers where we write strings.
  auto java = decode_consumer_running_info(
      R"({"mqPopTable":{},"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"cachedMsgCount":2,)"
      R"("cachedMsgMaxOffset":11,"cachedMsgMinOffset":10,"cachedMsgSizeInMiB":0,"commitOffset":10,"droped":false,)"
      R"("lastConsumeTimestamp":1700000000000,"lastLockTimestamp":0,"lastPullTimestamp":1700000000001,"locked":false,)"
      R"("transactionMsgCount":0,"transactionMsgMaxOffset":0,"transactionMsgMinOffset":0,"tryUnlockTimes":0}},)"
      R"("properties":{"PROP_CONSUME_TYPE":"CONSUME_PASSIVELY","consumeTimeout":"15"},)"
      R"("statusTable":{"T":{"consumeFailedMsgs":0,"consumeFailedTPS":0.0,"consumeOKTPS":1.5,"consumeRT":2.0,)"
      R"("pullRT":0.5,"pullTPS":3.0}},"subscriptionSet":[{"classFilterMode":false,"codeSet":[],)"
      R"("expressionType":"TAG","subString":"*","subVersion":1,"tagsSet":[],"topic":"T"}],"userConsumerInfo":{}})");
  ASSERT_TRUE(java.is_ok()) << java.status().to_string();
  EXPECT_EQ(java->mq_table.at({"T", "broker-a", 0}).cached_msg_max_offset, 11);
  EXPECT_EQ(java->properties.at("consumeTimeout"), "15");
  EXPECT_DOUBLE_EQ(java->status_table.at("T").consume_ok_tps, 1.5);
  EXPECT_EQ(java->subscription_set.at(0).sub_string, "*");
  EXPECT_FALSE(decode_consumer_running_info(R"({"mqTable":{{"topic":"T"}:5}})").is_ok());
}

TEST(BodiesTest, QuoteBareKeysLeavesStringsAlone) {
  EXPECT_EQ(quote_bare_keys(R"({0:"a",1:"b:c",x:{2:3}})"), R"({"0":"a","1":"b:c","x":{"2":3}})");
  EXPECT_EQ(quote_bare_keys(R"({"s":"{0:1}","n":[1,2]})"), R"({"s":"{0:1}","n":[1,2]})");
}

TEST(BodiesTest, ClusterInfoAndSmallBodies) {
  ClusterInfo c;
  c.broker_addr_table["broker-a"] = {"DefaultCluster", "broker-a", {{0, "10.0.0.1:10911"}}};
  c.cluster_addr_table["DefaultCluster"] = {"broker-a"};
  auto decoded = decode_cluster_info(encode(c, JsonStyle::kLegacy));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->cluster_addr_table.at("DefaultCluster"), std::set<std::string>{"broker-a"});
  EXPECT_EQ(encode(TopicList{{"A", "B"}, ""}), R"({"topicList":["A","B"]})");
  EXPECT_EQ(encode(KvTable{{{"k", "v"}}}), R"({"table":{"k":"v"}})");
  EXPECT_EQ(encode(ConsumerIdList{{"c1", "c2"}}), R"({"consumerIdList":["c1","c2"]})");
}

// Found by bodies_fuzz_test: an empty map keyed by MessageQueue is written as {} (and Java
// writes it so too), which the decoder refused because only non-empty ones become pairs.
TEST(BodiesTest, EmptyQueueKeyedMapsRoundTrip) {
  const std::string json = encode(ConsumeStats{});
  EXPECT_EQ(json, R"({"consumeTps":0.0,"offsetTable":{}})");
  auto stats = decode_consume_stats(json);
  ASSERT_TRUE(stats.is_ok()) << stats.status().to_string();
  EXPECT_TRUE(stats->offset_table.empty());
  EXPECT_TRUE(decode_topic_stats(R"({"offsetTable":{}})").is_ok());
  EXPECT_TRUE(decode_consumer_running_info(R"({"mqTable":{},"statusTable":{}})").is_ok());
  EXPECT_FALSE(decode_topic_stats(R"({"offsetTable":{"T":1}})").is_ok());
}

// Found by bodies_fuzz_test: legacy keys used to be marked "\x01#" and unquoted after writing,
// so any string holding the mark lost its quotes and the body was no longer JSON.
TEST(BodiesTest, StringsThatLookLikeTheOldBareKeyMarkStayQuoted) {
  const KvTable kv{{{"ORDER_TOPIC", "\x01#broker-a:4"}}};
  auto decoded = decode_kv_table(encode(kv));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->table, kv.table);
  ClusterInfo c;
  c.broker_addr_table["\x01#b"] = {"C", "\x01#b", {{0, "\x01#10.0.0.1:10911"}, {1, "10.0.0.2:10911"}}};
  const std::string legacy = encode(c, JsonStyle::kLegacy);
  EXPECT_NE(legacy.find(R"({0:"\u0001#10.0.0.1:10911",1:"10.0.0.2:10911"})"), std::string::npos) << legacy;
  auto cluster = decode_cluster_info(legacy);
  ASSERT_TRUE(cluster.is_ok()) << cluster.status().to_string();
  EXPECT_EQ(cluster->broker_addr_table.at("\x01#b"), c.broker_addr_table.at("\x01#b"));
}

TEST(BodiesTest, DeeplyNestedBodiesAreRefusedNotOverflowingTheStack) {
  const std::string arrays(1'000'000, '[');
  EXPECT_EQ(decode_heartbeat(arrays).status().code(), plugin::v1::StatusCode::kInvalidArgument);
  std::string objects;
  for (int i = 0; i < 300'000; ++i) objects += R"({"a":)";
  EXPECT_EQ(decode_register_broker_body(objects).status().code(), plugin::v1::StatusCode::kInvalidArgument);
  const std::string object_keys(1'000'000, '{');
  EXPECT_EQ(decode_consume_stats(object_keys).status().code(), plugin::v1::StatusCode::kInvalidArgument);
}


TEST(BodiesTest, IntegersOutsideTheFieldAreRefusedNotWrapped) {
  const auto route = decode_topic_route(R"({"queueDatas":[{"brokerName":"b","readQueueNums":4294967312}]})");
  ASSERT_FALSE(route.is_ok());
  EXPECT_EQ(route.status().message(), "QueueData: field 'readQueueNums' must be an integer in range");
  EXPECT_FALSE(decode_lock_batch_request(R"({"mqSet":[{"topic":"T","queueId":"2147483648"}]})").is_ok());
  auto fits = decode_topic_route(R"({"queueDatas":[{"brokerName":"b","perm":2147483647}]})");
  ASSERT_TRUE(fits.is_ok());
  EXPECT_EQ(fits->queue_datas.at(0).perm, 2147483647);
}

}  // namespace
}  // namespace mqkit::protocol
