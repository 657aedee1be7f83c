#include "proxy_metrics.hpp"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "messaging_service.hpp"

namespace mqkit::proxy {
namespace {

TEST(ProxyMetricsTest, CallsAreLabelledInSnakeCase) {
  EXPECT_EQ(rpc_label("/apache.rocketmq.v2.MessagingService/SendMessage"), "send_message");
  EXPECT_EQ(rpc_label("/apache.rocketmq.v2.MessagingService/ForwardMessageToDeadLetterQueue"),
            "forward_message_to_dead_letter_queue");
  EXPECT_EQ(rpc_label("/apache.rocketmq.v2.MessagingService/Telemetry"), "");
  EXPECT_EQ(rpc_label(""), "");
}

// Calls through a server with the timing interceptor land in rocketmq_rpc_latency with their
// RocketMQ code; the page carries the proxy's gauges.
TEST(ProxyMetricsTest, EachCallIsTimedWithTheCodeItWasAnswered) {
  metrics::RpcLatency latency("grpc");
  MessagingService service(ProxySettings{}, nullptr);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(rpc_timing(latency));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  auto server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto stub = v2::MessagingService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  for (int i = 0; i < 2; ++i) {
    v2::QueryRouteRequest request;
    request.mutable_topic()->set_name("bad topic");
    v2::QueryRouteResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(stub->QueryRoute(&context, request, &response).ok());
    ASSERT_EQ(response.status().code(), v2::ILLEGAL_TOPIC);
  }
  v2::ReceiveMessageRequest receive;
  receive.mutable_group()->set_name("bad group!");
  grpc::ClientContext context;
  auto reader = stub->ReceiveMessage(&context, receive);
  v2::ReceiveMessageResponse response;
  while (reader->Read(&response)) {
  }
  ASSERT_TRUE(reader->Finish().ok());
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));

  const std::string page = proxy_metrics_page(latency, service);
  EXPECT_NE(page.find("rocketmq_proxy_up{node_type=\"proxy\",proxy_mode=\"cluster\"} 1"), std::string::npos) << page;
  EXPECT_NE(page.find("rocketmq_rpc_latency_count{node_type=\"proxy\",protocol_type=\"grpc\",request_code=\"query_route\","
                      "response_code=\"illegal_topic\",is_long_polling=\"false\",result=\"success\"} 2"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("request_code=\"receive_message\",response_code=\"illegal_consumer_group\",is_long_polling=\"true\""),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("mqkit_proxy_held_messages{node_type=\"proxy\"} 0"), std::string::npos) << page;
}

}  // namespace
}  // namespace mqkit::proxy
