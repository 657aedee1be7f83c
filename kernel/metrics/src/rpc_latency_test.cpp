#include "mqkit/metrics/rpc_latency.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::metrics {
namespace {

TEST(RpcLatency, LabelsCodesByRocketMqNamesOrNumbersAndBucketsMilliseconds) {
  RpcLatency rpc;
  rpc.record(protocol::request_code::kSendMessageV2, protocol::response_code::kSuccess, false, RpcResult::kSuccess, 2);
  rpc.record(protocol::request_code::kSendMessageV2, protocol::response_code::kSuccess, false, RpcResult::kSuccess, 3);
  rpc.record(9999, 77, true, RpcResult::kOneway, 5000);
  ExpositionWriter out;
  rpc.write(out);
  const std::string& page = out.text();
  EXPECT_NE(page.find("# TYPE rocketmq_rpc_latency histogram\n"), std::string::npos);
  const std::string send = "protocol_type=\"remoting\",request_code=\"send_message_v2\",response_code=\"success\","
                           "is_long_polling=\"false\",result=\"success\"";
  EXPECT_NE(page.find("rocketmq_rpc_latency_bucket{" + send + ",le=\"1\"} 0\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_rpc_latency_bucket{" + send + ",le=\"3\"} 2\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_rpc_latency_sum{" + send + "} 5\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_rpc_latency_count{" + send + "} 2\n"), std::string::npos) << page;
  const std::string other = "protocol_type=\"remoting\",request_code=\"9999\",response_code=\"77\","
                            "is_long_polling=\"true\",result=\"oneway\"";
  EXPECT_NE(page.find("rocketmq_rpc_latency_bucket{" + other + ",le=\"3000\"} 0\n"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_rpc_latency_bucket{" + other + ",le=\"+Inf\"} 1\n"), std::string::npos) << page;
}

}  // namespace
}  // namespace mqkit::metrics
