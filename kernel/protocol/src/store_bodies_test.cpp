#include "mqkit/protocol/store_bodies.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(QueryConsumeQueueResponseTest, EncodesAsFastjsonDoes) {
  QueryConsumeQueueResponse body;
  body.max_queue_index = 7;
  body.min_queue_index = 2;
  body.filter_data = "G@T is not online!";
  body.queue_data.push_back({4096, 210, -1, std::nullopt, std::nullopt, false, std::nullopt});
  EXPECT_EQ(encode(body),
            R"({"filterData":"G@T is not online!","maxQueueIndex":7,"minQueueIndex":2,)"
            R"("queueData":[{"eval":false,"physicOffset":4096,"physicSize":210,"tagsCode":-1}]})");
}

TEST(QueryConsumeQueueResponseTest, RoundTripsWithASubscription) {
  QueryConsumeQueueResponse body;
  body.max_queue_index = 3;
  body.subscription_data = SubscriptionData{.topic = "T", .sub_string = "A || B", .tags_set = {"A", "B"}, .code_set = {65, 66}};
  body.filter_data = "null";
  body.queue_data.push_back({0, 100, 65, std::nullopt, std::nullopt, false, std::nullopt});
  body.queue_data.push_back({100, 120, 66, "{}", "0101", true, "x"});
  const auto decoded = decode_query_consume_queue_response(encode(body));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->queue_data, body.queue_data);
  EXPECT_EQ(decoded->max_queue_index, 3);
  EXPECT_EQ(decoded->filter_data, "null");
  ASSERT_TRUE(decoded->subscription_data.has_value());
  EXPECT_EQ(decoded->subscription_data->sub_string, "A || B");
  EXPECT_EQ(decoded->subscription_data->code_set, (std::set<std::int32_t>{65, 66}));
}

TEST(QueryConsumeQueueResponseTest, BadShapesAreNamed) {
  const auto not_objects = decode_query_consume_queue_response(R"({"queueData":[1]})");
  ASSERT_FALSE(not_objects.is_ok());
  EXPECT_NE(not_objects.status().message().find("queueData"), std::string::npos);
  const auto bad_offset = decode_query_consume_queue_response(R"({"queueData":[{"physicOffset":"far"}]})");
  ASSERT_FALSE(bad_offset.is_ok());
  EXPECT_NE(bad_offset.status().message().find("physicOffset"), std::string::npos);
}

TEST(QueryConsumeQueueResponseTest, PrintsUnitsAsRocketMQsToString) {
  EXPECT_EQ(to_string(ConsumeQueueData{10, 20, 30, std::nullopt, std::nullopt, false, std::nullopt}),
            "ConsumeQueueData{physicOffset=10, physicSize=20, tagsCode=30, extendDataJson='null', bitMap='null', "
            "eval=false, msg='null'}");
}

TEST(HaRuntimeInfoTest, EncodesAsFastjsonDoes) {
  HaRuntimeInfo info;
  info.master = true;
  info.master_commit_log_max_offset = 5000;
  info.in_sync_slave_nums = 1;
  info.ha_connection_info.push_back({"127.0.0.1:40000", 4000, 1000, true, 2048, 0});
  EXPECT_EQ(encode(info),
            R"({"haClientRuntimeInfo":{"activated":false,"lastReadTimestamp":0,"lastWriteTimestamp":0,)"
            R"("masterFlushOffset":0,"maxOffset":0,"transferredByteInSecond":0},)"
            R"("haConnectionInfo":[{"addr":"127.0.0.1:40000","diff":1000,"inSync":true,"slaveAckOffset":4000,)"
            R"("transferFromWhere":0,"transferredByteInSecond":2048}],"inSyncSlaveNums":1,"master":true,)"
            R"("masterCommitLogMaxOffset":5000})");
}

TEST(HaRuntimeInfoTest, RoundTripsASlavesView) {
  HaRuntimeInfo info;
  info.ha_client_runtime_info = {"127.0.0.1:10912", 4096, 123456, 1700000000000, 1700000000100, 0, true};
  const auto decoded = decode_ha_runtime_info(encode(info));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, info);
  EXPECT_FALSE(decode_ha_runtime_info(R"({"haConnectionInfo":[{"diff":"lots"}]})").is_ok());
  EXPECT_FALSE(decode_ha_runtime_info(R"({"haClientRuntimeInfo":[]})").is_ok());
}

}  // namespace
}  // namespace mqkit::protocol
