// Robustness of the JSON body decoders against hostile or corrupt bodies: what the name server
// reads from brokers (register broker, data version), what the broker reads from clients
// (heartbeat, check client, lock batch) and what clients read back (routes, cluster info, stats,
// running info, connection lists). Seeds in both the standard and the fastjson forms, every truncation and
// deterministic mutations (tests/support/mutation_testing.hpp). Whatever decodes re-encodes to
// JSON that decodes to the same value.
#include <gtest/gtest.h>

#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/broker_stats_data.hpp"
#include "mqkit/protocol/connection.hpp"
#include "mqkit/protocol/store_bodies.hpp"
#include "mutation_testing.hpp"

namespace mqkit::protocol {
namespace {

using mqkit::testing::Bytes;
using mqkit::testing::bytes_of;
using mqkit::testing::check_seeds_truncations_and_mutations;
using mqkit::testing::MutationCheck;
using mqkit::testing::text_of;
using mqkit::testing::value_or_explained_error;

// JSON punctuation, literals at the edges of the number types, fastjson's forms and field names.
constexpr std::string_view kJsonTokens[] = {
    "{",        "}",       "[",        "]",          "\"",       ":",         ",",         "null",
    "true",     "false",   "-1",       "1e400",      "0.1",      "2147483648", "9223372036854775808",
    "\"\"",     "{{",      "}}",       "\\\"",       "\\u0000",  "\\u0001#",   "[[[[",     "{\"a\":{",
    "\"topic\"", "\"queueId\"", "\"brokerName\"", "\"subscriptionDataSet\"", "\"codeSet\"", "\"mqTable\"",
    "\"brokerAddrs\"", "0:",    "{0:\"a\"}", "\"connectionSet\"", "\"subscriptionTable\""};

// decode → encode → decode → encode must give the same text twice.
template <typename Decode, typename Encode>
MutationCheck round_trip(std::string_view name, Decode decode, Encode encode) {
  return [=](std::span<const std::uint8_t> input) -> std::optional<std::string> {
    const auto decoded = decode(text_of(input));
    if (!decoded.is_ok()) return value_or_explained_error(decoded, name);
    const std::string first = encode(*decoded);
    const auto again = decode(first);
    if (!again.is_ok()) return std::string(name) + ": re-encoded " + first + " does not decode: " + again.status().to_string();
    const std::string second = encode(*again);
    if (second != first) return std::string(name) + ": round trip changed " + first + " into " + second;
    return std::nullopt;
  };
}

template <typename Decode>
MutationCheck decodes_or_explains(std::string_view name, Decode decode) {
  return [=](std::span<const std::uint8_t> input) { return value_or_explained_error(decode(text_of(input)), name); };
}

struct Case {
  std::string name;
  MutationCheck check;
  std::vector<Bytes> seeds;
};

SubscriptionData subscription() {
  SubscriptionData s;
  s.topic = "T1";
  s.sub_string = "TagA || TagB";
  s.tags_set = {"TagA", "TagB"};
  s.code_set = {2598919, 2598920};
  s.sub_version = 1795962299232;
  return s;
}

std::vector<Case> cases() {
  const auto encode_plain = [](const auto& v) { return encode(v); };
  std::vector<Case> out;

  TopicConfigTable topics;
  topics.data_version = {1700000000000, 12, 0};
  topics.topic_config_table["T"] = TopicConfig{"T", 4, 4, 6, "SINGLE_TAG", 0, false, {{"+message.type", "NORMAL"}}};
  RegisterBrokerBody registration{topics, {"10.0.0.9:1234"}};
  out.push_back({"register broker", round_trip("RegisterBrokerBody", decode_register_broker_body, encode_plain),
                 {bytes_of(encode(registration)),
                  bytes_of(R"({"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":"12",)"
                           R"("timestamp":1700000000000},"topicConfigTable":{"T":{"perm":6,"readQueueNums":4,)"
                           R"("topicName":"T","writeQueueNums":4,"order":"true"}}}})")}});
  out.push_back({"topic config table", round_trip("TopicConfigTable", decode_topic_config_table, encode_plain),
                 {bytes_of(encode(topics))}});
  out.push_back({"topic config", round_trip("TopicConfig", decode_topic_config, encode_plain),
                 {bytes_of(encode(topics.topic_config_table["T"]))}});
  const auto encode_topic_list = [](const std::vector<TopicConfig>& list) { return encode_topic_config_list(list); };
  out.push_back({"topic config list", round_trip("CreateTopicListRequestBody", decode_topic_config_list, encode_topic_list),
                 {bytes_of(encode_topic_config_list({topics.topic_config_table["T"], TopicConfig{.topic_name = "U"}})),
                  bytes_of(R"({"topicConfigList":[{"topicName":"V","readQueueNums":"8","order":"true"}]})")}});
  out.push_back({"data version", round_trip("DataVersion", decode_data_version, encode_plain),
                 {bytes_of(encode(topics.data_version))}});

  HeartbeatData heartbeat;
  heartbeat.client_id = "192.0.2.2@c1";
  heartbeat.producer_groups = {"PG", "CLIENT_INNER_PRODUCER"};
  heartbeat.consumer_data_set.push_back(
      {"CG1", "CONSUME_PASSIVELY", "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", {subscription()}, false});
  out.push_back({"heartbeat", round_trip("HeartbeatData", decode_heartbeat, encode_plain),
                 {bytes_of(encode(heartbeat)),
                  bytes_of(R"({"clientID":"c","consumerDataSet":[{"groupName":"CG","subscriptionDataSet":[)"
                           R"({"topic":"T","subString":"a > 1","expressionType":"SQL92","subVersion":"7"}]}]})")}});
  out.push_back({"check client", decodes_or_explains("CheckClientRequestBody", decode_check_client_request),
                 {bytes_of(R"({"clientId":"c1","group":"G","subscriptionData":{"topic":"T","subString":"a = 'x'",)"
                           R"("expressionType":"SQL92","tagsSet":[],"codeSet":[]}})")}});
  out.push_back({"consumer id list", round_trip("ConsumerIdList", decode_consumer_id_list, encode_plain),
                 {bytes_of(encode(ConsumerIdList{{"c1", "c2@10.0.0.1"}}))}});
  const LockBatchRequest lock{"G", "c1", {{"T", "broker-a", 0}, {"T", "broker-a", 3}}, true};
  out.push_back({"lock batch request", round_trip("LockBatchRequest", decode_lock_batch_request, encode_plain),
                 {bytes_of(encode(lock))}});
  out.push_back({"lock batch response", round_trip("LockBatchResponse", decode_lock_batch_response, encode_plain),
                 {bytes_of(encode(LockBatchResponse{lock.mq_set}))}});

  TopicRouteData route;
  route.queue_datas.push_back({"broker-a", 4, 4, 6, 0});
  route.broker_datas.push_back({"DefaultCluster", "broker-a", {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}}});
  route.filter_server_table["10.0.0.1:10911"] = {"10.0.0.1:2000"};
  const auto encode_route = [](const TopicRouteData& r) { return encode(r); };
  out.push_back({"topic route", round_trip("TopicRouteData", decode_topic_route, encode_route),
                 {bytes_of(encode(route)), bytes_of(encode(route, JsonStyle::kLegacy))}});
  ClusterInfo cluster;
  cluster.broker_addr_table["broker-a"] = route.broker_datas[0];
  cluster.cluster_addr_table["DefaultCluster"] = {"broker-a"};
  const auto encode_cluster = [](const ClusterInfo& c) { return encode(c); };
  out.push_back({"cluster info", round_trip("ClusterInfo", decode_cluster_info, encode_cluster),
                 {bytes_of(encode(cluster)), bytes_of(encode(cluster, JsonStyle::kLegacy))}});
  out.push_back({"topic list", round_trip("TopicList", decode_topic_list, encode_plain),
                 {bytes_of(encode(TopicList{{"A", "B"}, "10.0.0.1:10911"}))}});
  out.push_back({"kv table", round_trip("KVTable", decode_kv_table, encode_plain),
                 {bytes_of(encode(KvTable{{{"k", "v"}, {"ORDER_TOPIC", "broker-a:4"}}}))}});

  ConsumeStats stats;
  stats.consume_tps = 12.25;
  stats.offset_table[{"T", "b", 0}] = {10, 7, 123};
  stats.offset_table[{"T", "b", 1}] = {11, 11, 0};
  out.push_back({"consume stats", round_trip("ConsumeStats", decode_consume_stats, encode_plain),
                 {bytes_of(encode(stats))}});
  ConsumeStatsList stats_list;
  stats_list.broker_addr = "10.0.0.1:10911";
  stats_list.consume_stats_list.push_back({{"G", {stats}}});
  stats_list.total_diff = 3;
  out.push_back({"consume stats list", round_trip("ConsumeStatsList", decode_consume_stats_list, encode_plain),
                 {bytes_of(encode(stats_list))}});
  out.push_back({"group list", round_trip("GroupList", decode_group_list, encode_plain),
                 {bytes_of(encode(GroupList{{"G1", "%RETRY%G2"}}))}});
  BrokerStatsData broker_stats{{3600, 60.0, 1.0}, {90000, 25.0, 1.5}, {1, 0.0, 0.0}};
  out.push_back({"broker stats data", round_trip("BrokerStatsData", decode_broker_stats_data, encode_plain),
                 {bytes_of(encode(broker_stats))}});
  QueryConsumeQueueResponse queue_units;
  queue_units.max_queue_index = 9;
  queue_units.filter_data = "G@T is not online!";
  queue_units.queue_data = {{0, 180, 65, std::nullopt, std::nullopt, false, std::nullopt},
                            {180, 200, 66, std::nullopt, std::nullopt, false, "Cq extend not exist!addr: 66"}};
  out.push_back({"consume queue units",
                 round_trip("QueryConsumeQueueResponseBody", decode_query_consume_queue_response, encode_plain),
                 {bytes_of(encode(queue_units))}});
  HaRuntimeInfo ha;
  ha.master = true;
  ha.master_commit_log_max_offset = 4096;
  ha.ha_connection_info.push_back({"127.0.0.1:1", 1024, 3072, true, 100, 0});
  out.push_back({"ha runtime info", round_trip("HARuntimeInfo", decode_ha_runtime_info, encode_plain),
                 {bytes_of(encode(ha))}});
  TopicStatsTable topic_stats;
  topic_stats.offset_table[{"T", "b", 0}] = {0, 10, 1700000000000};
  out.push_back({"topic stats", round_trip("TopicStatsTable", decode_topic_stats, encode_plain),
                 {bytes_of(encode(topic_stats))}});
  ConsumerRunningInfo info;
  info.properties = {{"consumerGroup", "g"}, {"PROP_CONSUME_TYPE", "CONSUME_PASSIVELY"}};
  info.subscription_set.push_back(subscription());
  ProcessQueueInfo queue;
  queue.commit_offset = 7;
  queue.cached_msg_count = 3;
  queue.locked = true;
  info.mq_table[{"T", "b", 1}] = queue;
  info.status_table["T"] = {0.5, 3, 2, 1.5, 0, 4};
  info.jstack = "\"main\" #1\n";
  out.push_back({"consumer running info", round_trip("ConsumerRunningInfo", decode_consumer_running_info, encode_plain),
                 {bytes_of(encode(info))}});

  ProducerTableInfo producer_table;
  producer_table.data["PG"] = {{"192.0.2.2@p1", "10.0.0.5:52144", "JAVA", 479, 1700000000000}};
  producer_table.data["Empty"] = {};
  out.push_back({"producer table", round_trip("ProducerTableInfo", decode_producer_table_info, encode_plain),
                 {bytes_of(encode(producer_table))}});
  ConsumerConnection consumers;
  consumers.connection_set = {{"192.0.2.2@c1", "10.0.0.5:52144", "CPP", 401}, {"c2", "10.0.0.6:1", "JAVA", 479}};
  consumers.consume_type = "CONSUME_PASSIVELY";
  consumers.message_model = "CLUSTERING";
  consumers.consume_from_where = "CONSUME_FROM_LAST_OFFSET";
  consumers.subscription_table["T1"] = subscription();
  out.push_back({"consumer connection", round_trip("ConsumerConnection", decode_consumer_connection, encode_plain),
                 {bytes_of(encode(consumers))}});
  out.push_back({"producer connection", round_trip("ProducerConnection", decode_producer_connection, encode_plain),
                 {bytes_of(encode(ProducerConnection{consumers.connection_set}))}});
  return out;
}

class BodiesFuzzTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BodiesFuzzTest, DecoderSurvivesCorruption) {
  const std::size_t index = GetParam();
  const Case c = cases().at(index);
  // A different mutation sequence per decoder.
  EXPECT_EQ(check_seeds_truncations_and_mutations(
                c.seeds, c.check, {.iterations = 2500, .seed = 0x9e3779b97f4a7c15ULL * (index + 1), .dictionary = kJsonTokens}),
            std::nullopt)
      << c.name;
}

INSTANTIATE_TEST_SUITE_P(EveryBody, BodiesFuzzTest, ::testing::Range(std::size_t{0}, cases().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& param_info) {
                           std::string name = cases().at(param_info.param).name;
                           std::erase(name, ' ');
                           return name;
                         });

}  // namespace
}  // namespace mqkit::protocol
