// The connection list bodies: round trips, the bodies a Java broker writes, misshapen bodies, and
// RocketMQ's version names (robustness against corrupt JSON is in bodies_fuzz_test.cpp).
#include "mqkit/protocol/connection.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

ConsumerConnection sample_consumer_connection() {
  ConsumerConnection c;
  c.connection_set = {{"10.0.0.5@4321#1", "10.0.0.5:52144", "CPP", 401}, {"10.0.0.6@99", "10.0.0.6:40000", "JAVA", 453}};
  c.consume_type = "CONSUME_PASSIVELY";
  c.message_model = "CLUSTERING";
  c.consume_from_where = "CONSUME_FROM_FIRST_OFFSET";
  SubscriptionData orders;
  orders.topic = "Orders";
  orders.sub_string = "TagA || TagB";
  orders.tags_set = {"TagA", "TagB"};
  orders.code_set = {2598919, 2598920};
  orders.sub_version = 1718000000123;
  c.subscription_table["Orders"] = orders;
  SubscriptionData retry;
  retry.topic = "%RETRY%cg";
  retry.sub_string = "*";
  c.subscription_table["%RETRY%cg"] = retry;
  return c;
}

void expect_same_subscription(const SubscriptionData& a, const SubscriptionData& b) {
  EXPECT_EQ(a.topic, b.topic);
  EXPECT_EQ(a.sub_string, b.sub_string);
  EXPECT_EQ(a.tags_set, b.tags_set);
  EXPECT_EQ(a.code_set, b.code_set);
  EXPECT_EQ(a.sub_version, b.sub_version);
  EXPECT_EQ(a.expression_type, b.expression_type);
  EXPECT_EQ(a.class_filter_mode, b.class_filter_mode);
}

TEST(ConnectionTest, ConsumerConnectionRoundTripsInFastjsonKeyOrder) {
  const ConsumerConnection sent = sample_consumer_connection();
  const std::string json = encode(sent);
  EXPECT_EQ(json.rfind(R"({"connectionSet":[{"clientAddr":"10.0.0.5:52144","clientId":"10.0.0.5@4321#1",)"
                       R"("language":"CPP","version":401},)",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find(R"(],"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","consumeType":"CONSUME_PASSIVELY",)"
                      R"("messageModel":"CLUSTERING","subscriptionTable":{"%RETRY%cg":{"classFilterMode":false,)"),
            std::string::npos)
      << json;

  auto decoded = decode_consumer_connection(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->connection_set, sent.connection_set);
  EXPECT_EQ(decoded->consume_type, sent.consume_type);
  EXPECT_EQ(decoded->message_model, sent.message_model);
  EXPECT_EQ(decoded->consume_from_where, sent.consume_from_where);
  ASSERT_EQ(decoded->subscription_table.size(), 2u);
  for (const auto& [topic, s] : sent.subscription_table) expect_same_subscription(decoded->subscription_table.at(topic), s);
  EXPECT_EQ(encode(*decoded), json);
}

TEST(ConnectionTest, ProducerConnectionRoundTrips) {
  ProducerConnection sent;
  sent.connection_set = {{"10.0.0.7@p", "10.0.0.7:6000", "GO", 413}};
  const std::string json = encode(sent);
  EXPECT_EQ(json, R"({"connectionSet":[{"clientAddr":"10.0.0.7:6000","clientId":"10.0.0.7@p","language":"GO","version":413}]})");
  auto decoded = decode_producer_connection(json);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->connection_set, sent.connection_set);
  EXPECT_EQ(encode(ProducerConnection{}), R"({"connectionSet":[]})");
}

// What a RocketMQ 5 broker answers (fastjson, HashSet order, a pop consumer, the client's own
// version ordinal), and a subscription without its topic, which takes its key.
TEST(ConnectionTest, DecodesBodiesAsJavaBrokersWriteThem) {
  auto consumer = decode_consumer_connection(
      R"({"connectionSet":[{"clientAddr":"192.168.0.7:52144","clientId":"192.168.0.7@12345#9876543210",)"
      R"("language":"JAVA","version":479}],"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_POP",)"
      R"("messageModel":"CLUSTERING","subscriptionTable":{"TopicTest":{"classFilterMode":false,)"
      R"("codeSet":[2598919],"expressionType":"TAG","subString":"TagA","subVersion":1718000000123,)"
      R"("tagsSet":["TagA"],"topic":"TopicTest"},"%RETRY%demo":{"subString":"*"}}})");
  ASSERT_TRUE(consumer.is_ok()) << consumer.status().to_string();
  ASSERT_EQ(consumer->connection_set.size(), 1u);
  EXPECT_EQ(consumer->connection_set[0],
            (Connection{"192.168.0.7@12345#9876543210", "192.168.0.7:52144", "JAVA", 479}));
  EXPECT_EQ(consumer->consume_type, "CONSUME_POP");
  EXPECT_EQ(consumer->consume_from_where, "CONSUME_FROM_LAST_OFFSET");
  const auto& topic = consumer->subscription_table.at("TopicTest");
  EXPECT_EQ(topic.sub_string, "TagA");
  EXPECT_EQ(topic.tags_set, std::set<std::string>{"TagA"});
  EXPECT_EQ(topic.code_set, std::set<std::int32_t>{2598919});
  EXPECT_EQ(topic.sub_version, 1718000000123);
  EXPECT_EQ(consumer->subscription_table.at("%RETRY%demo").topic, "%RETRY%demo");

  // Fields in another order, unknown fields, a version sent as a string, an empty answer.
  auto producer = decode_producer_connection(
      R"({"connectionSet":[{"version":"401","language":"CPP","clientId":"c","clientAddr":"1.2.3.4:5","x":1}],"y":[]})");
  ASSERT_TRUE(producer.is_ok()) << producer.status().to_string();
  EXPECT_EQ(producer->connection_set.at(0), (Connection{"c", "1.2.3.4:5", "CPP", 401}));
  EXPECT_TRUE(decode_producer_connection("{}")->connection_set.empty());
  EXPECT_TRUE(decode_consumer_connection("{}")->subscription_table.empty());
}

TEST(ConnectionTest, MisshapenBodiesAreRefusedWithTheirReason) {
  const auto refused = [](const plugin::v1::Status& s) { return s.message(); };
  EXPECT_EQ(refused(decode_producer_connection(R"({"connectionSet":{}})").status()),
            "ProducerConnection: field 'connectionSet' must be an array");
  EXPECT_EQ(refused(decode_producer_connection(R"({"connectionSet":[1]})").status()), "Connection must be an object");
  EXPECT_EQ(refused(decode_producer_connection(R"({"connectionSet":[{"version":"new"}]})").status()),
            "Connection: field 'version' must be an integer");
  EXPECT_EQ(refused(decode_consumer_connection(R"({"subscriptionTable":[]})").status()),
            "ConsumerConnection: field 'subscriptionTable' must be an object");
  EXPECT_EQ(refused(decode_consumer_connection(R"({"subscriptionTable":{"T":1}})").status()),
            "SubscriptionData must be an object");
  EXPECT_FALSE(decode_consumer_connection("[").is_ok());
  EXPECT_FALSE(decode_consumer_connection(std::string(1'000'000, '[')).is_ok());
}

TEST(ConnectionTest, VersionNamesFollowRocketMqsVersionEnum) {
  EXPECT_EQ(version_desc(0), "V3_0_0_SNAPSHOT");
  EXPECT_EQ(version_desc(15), "V3_0_0_FINAL");
  EXPECT_EQ(version_desc(16), "V3_0_1_SNAPSHOT");
  EXPECT_EQ(version_desc(17), "V3_0_1");
  EXPECT_EQ(version_desc(137), "V3_5_8");
  EXPECT_EQ(version_desc(212), "V4_0_0_SNAPSHOT");
  EXPECT_EQ(version_desc(401), "V4_9_4");
  EXPECT_EQ(version_desc(413), "V5_0_0");
  EXPECT_EQ(version_desc(479), "V5_3_3");
  EXPECT_EQ(version_desc(611), "V5_9_9");
  EXPECT_EQ(version_desc(5000), "V5_9_9");  // past the last: the last, as RocketMQ
  EXPECT_EQ(version_desc(-1), "-1");
}

TEST(ProducerTableInfoTest, EncodesAsFastjsonAndPrintsAsRocketMQ) {
  ProducerTableInfo table;
  table.data["PG"] = {{"c1", "10.0.0.5:1", "JAVA", 479, 1700000000000}};
  EXPECT_EQ(encode(table), R"({"data":{"PG":[{"clientId":"c1","language":"JAVA","lastUpdateTimestamp":1700000000000,)"
                           R"("remoteIP":"10.0.0.5:1","version":479}]}})");
  const auto decoded = decode_producer_table_info(encode(table));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, table);
  EXPECT_EQ(to_string(table.data["PG"][0]),
            "clientId=c1,remoteIP=10.0.0.5:1, language=JAVA, version=479, lastUpdateTimestamp=1700000000000");
  EXPECT_FALSE(decode_producer_table_info(R"({"data":{"PG":{}}})").is_ok());
  EXPECT_FALSE(decode_producer_table_info(R"({"data":{"PG":[1]}})").is_ok());
}

}  // namespace
}  // namespace mqkit::protocol
