#include "messaging_service.hpp"

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "grpc_access.hpp"
#include "mqkit/acl/access_control.hpp"

namespace mqkit::proxy {
namespace {

// What needs no cluster: the settings exchange and refusals decided before any broker is asked.
class MessagingServiceTest : public ::testing::Test {
 protected:
  ProxySettings settings_{};
  MessagingService service_{settings_, nullptr};
};

TEST_F(MessagingServiceTest, ProducersGetTheProxysRetryPolicyAndLimits) {
  v2::Settings client;
  client.set_client_type(v2::PRODUCER);
  client.mutable_request_timeout()->set_seconds(3);
  client.mutable_publishing()->add_topics()->set_name("TopicA");
  client.mutable_backoff_policy()->set_max_attempts(9);
  const auto reply = service_.settings_reply(client);
  EXPECT_EQ(reply.status().code(), v2::OK);
  ASSERT_TRUE(reply.has_settings());
  const auto& s = reply.settings();
  EXPECT_EQ(s.client_type(), v2::PRODUCER);
  EXPECT_EQ(s.request_timeout().seconds(), 3);
  EXPECT_EQ(s.backoff_policy().max_attempts(), 3);
  ASSERT_TRUE(s.backoff_policy().has_exponential_backoff());  // what RocketMQ's clients require
  EXPECT_EQ(s.backoff_policy().exponential_backoff().initial().nanos(), 10'000'000);
  EXPECT_EQ(s.backoff_policy().exponential_backoff().max().seconds(), 1);
  EXPECT_FLOAT_EQ(s.backoff_policy().exponential_backoff().multiplier(), 2.0F);
  EXPECT_EQ(s.publishing().topics_size(), 1);
  EXPECT_EQ(s.publishing().max_body_size(), 4 * 1024 * 1024);
  EXPECT_TRUE(s.publishing().validate_message_type());
}

TEST_F(MessagingServiceTest, ConsumersGetTheirGroupsOrderAndDeliveryAttempts) {
  v2::Settings client;
  client.set_client_type(v2::SIMPLE_CONSUMER);
  client.mutable_subscription()->mutable_group()->set_name("G");
  const auto reply = service_.settings_reply(client, GroupView{.fifo = true, .max_delivery_attempts = 4});
  EXPECT_EQ(reply.status().code(), v2::OK);
  ASSERT_TRUE(reply.settings().has_subscription());
  EXPECT_TRUE(reply.settings().subscription().fifo());
  EXPECT_EQ(reply.settings().subscription().group().name(), "G");
  EXPECT_EQ(reply.settings().subscription().receive_batch_size(), 32);
  EXPECT_EQ(reply.settings().backoff_policy().max_attempts(), 4);
  EXPECT_TRUE(reply.settings().backoff_policy().has_exponential_backoff());

  v2::Settings unknown;
  EXPECT_EQ(service_.settings_reply(unknown).status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
}

// A gRPC server in this process serving `service` alone, and a stub calling it.
class InProcessServer {
 public:
  explicit InProcessServer(MessagingService& service) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    server_ = builder.BuildAndStart();
    EXPECT_NE(server_, nullptr);
    EXPECT_NE(port, 0);
    stub_ = v2::MessagingService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  ~InProcessServer() {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
  static std::unique_ptr<grpc::ClientContext> context() {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return context;
  }
  v2::MessagingService::Stub& stub() { return *stub_; }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v2::MessagingService::Stub> stub_;
};

// The client closes its side of a Telemetry stream: the proxy ends it with nothing more to read.
void expect_clean_end(grpc::ClientReaderWriter<v2::TelemetryCommand, v2::TelemetryCommand>& stream) {
  ASSERT_TRUE(stream.WritesDone());
  v2::TelemetryCommand reply;
  EXPECT_FALSE(stream.Read(&reply));
  EXPECT_TRUE(stream.Finish().ok());
}

// The calls themselves, through a gRPC channel to the service alone (no cluster behind it).
class MessagingServiceCallTest : public MessagingServiceTest {
 protected:
  static std::unique_ptr<grpc::ClientContext> context() { return InProcessServer::context(); }
  InProcessServer server_{service_};
  v2::MessagingService::Stub* stub_ = &server_.stub();
};

TEST_F(MessagingServiceCallTest, HeartbeatsNeedAClientIdAndType) {
  v2::HeartbeatRequest request;
  request.set_client_type(v2::PRODUCER);
  v2::HeartbeatResponse response;
  ASSERT_TRUE(stub_->Heartbeat(context().get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::CLIENT_ID_REQUIRED);
  auto named = context();
  named->AddMetadata("x-mq-client-id", "client-1");
  request.clear_client_type();
  ASSERT_TRUE(stub_->Heartbeat(named.get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
}

TEST_F(MessagingServiceCallTest, MalformedSendsAreRefusedBeforeAnyBrokerIsAsked) {
  v2::SendMessageRequest request;
  v2::SendMessageResponse response;
  ASSERT_TRUE(stub_->SendMessage(context().get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::MESSAGE_CORRUPTED);
  EXPECT_EQ(response.entries_size(), 0);
}

TEST_F(MessagingServiceCallTest, RoutesNeedAValidTopicAndEndpoints) {
  v2::QueryRouteRequest request;
  request.mutable_topic()->set_name("bad topic");
  v2::QueryRouteResponse response;
  ASSERT_TRUE(stub_->QueryRoute(context().get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::ILLEGAL_TOPIC);
  request.mutable_topic()->set_name("TopicA");
  ASSERT_TRUE(stub_->QueryRoute(context().get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::ILLEGAL_ACCESS_POINT);
}

// Refusals of a receive come as the stream's one response, before any broker is asked.
TEST_F(MessagingServiceCallTest, MalformedReceivesAreRefusedOnTheStream) {
  const auto receive = [this](const v2::ReceiveMessageRequest& request) {
    auto call = context();
    auto reader = stub_->ReceiveMessage(call.get(), request);
    std::vector<v2::ReceiveMessageResponse> responses;
    v2::ReceiveMessageResponse response;
    while (reader->Read(&response)) responses.push_back(response);
    EXPECT_TRUE(reader->Finish().ok());
    return responses;
  };
  v2::ReceiveMessageRequest request;
  request.mutable_group()->set_name("bad group!");
  request.mutable_message_queue()->mutable_topic()->set_name("TopicA");
  request.set_batch_size(16);
  auto responses = receive(request);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status().code(), v2::ILLEGAL_CONSUMER_GROUP);
  request.mutable_group()->set_name("GroupA");
  request.set_batch_size(33);
  responses = receive(request);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status().code(), v2::BAD_REQUEST);
  request.set_batch_size(16);
  request.mutable_invisible_duration()->set_seconds(1);  // below min_invisible_time
  responses = receive(request);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status().code(), v2::ILLEGAL_INVISIBLE_TIME);
  request.mutable_invisible_duration()->set_seconds(30);
  request.mutable_filter_expression()->set_type(v2::SQL);
  request.mutable_filter_expression()->set_expression("price >");
  responses = receive(request);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status().code(), v2::ILLEGAL_FILTER_EXPRESSION);
  EXPECT_FALSE(responses[0].status().message().empty());
}

// Acks are answered per entry; entries that are no receipt are refused without a broker.
TEST_F(MessagingServiceCallTest, AcksOfMalformedReceiptsAreRefusedPerEntry) {
  v2::AckMessageRequest request;
  request.mutable_group()->set_name("GroupA");
  request.mutable_topic()->set_name("TopicA");
  v2::AckMessageResponse response;
  ASSERT_TRUE(stub_->AckMessage(context().get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::BAD_REQUEST);
  for (const char* handle : {"not a receipt", "nor this"}) {
    auto* entry = request.add_entries();
    entry->set_message_id(handle);
    entry->set_receipt_handle(handle);
  }
  ASSERT_TRUE(stub_->AckMessage(context().get(), request, &response).ok());
  EXPECT_EQ(response.status().code(), v2::INVALID_RECEIPT_HANDLE);
  ASSERT_EQ(response.entries_size(), 2);
  EXPECT_EQ(response.entries(1).message_id(), "nor this");
  EXPECT_EQ(response.entries(1).status().code(), v2::INVALID_RECEIPT_HANDLE);
}

// A client's settings on its Telemetry stream are answered on it; the stream ends cleanly when
// the client closes its side.
TEST_F(MessagingServiceCallTest, TelemetryAnswersSettings) {
  auto call = context();
  auto stream = stub_->Telemetry(call.get());
  v2::TelemetryCommand command;
  command.mutable_settings()->set_client_type(v2::PRODUCER);
  ASSERT_TRUE(stream->Write(command));
  v2::TelemetryCommand reply;
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::OK);
  EXPECT_EQ(reply.settings().backoff_policy().max_attempts(), 3);
  command.mutable_settings()->set_client_type(v2::CLIENT_TYPE_UNSPECIFIED);
  ASSERT_TRUE(stream->Write(command));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
  expect_clean_end(*stream);
}

// With ACL on, every call is checked before anything else: refusals are UNAUTHORIZED with the
// reason, in the call's response (on Telemetry, as a command on the stream).
class MessagingServiceAclTest : public ::testing::Test {
 protected:
  static std::shared_ptr<const acl::AccessControl> load_acl(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "acl.toml") << R"([[accounts]]
access_key = "producer1"
secret_key = "secret-p1"
topic_perms = ["Orders=PUB"]
)";
    auto loaded = acl::AccessControl::load(dir / "acl.toml");
    EXPECT_TRUE(loaded.is_ok()) << loaded.status().message();
    return loaded.is_ok() ? *loaded : nullptr;
  }
  static std::unique_ptr<grpc::ClientContext> signed_context(const std::string& access_key, const std::string& secret_key) {
    auto context = InProcessServer::context();
    context->AddMetadata("x-mq-date-time", "20261201T130722Z");
    context->AddMetadata("authorization", *authorization_header(access_key, secret_key, "20261201T130722Z"));
    return context;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("proxy-acl-" + std::to_string(::getpid()));
  MessagingService service_{ProxySettings{}, nullptr, load_acl(dir_)};
  InProcessServer server_{service_};
};

TEST_F(MessagingServiceAclTest, UnaryCallsAreCheckedFirst) {
  v2::QueryRouteRequest route;
  route.mutable_topic()->set_name("Orders");
  v2::QueryRouteResponse routed;
  ASSERT_TRUE(server_.stub().QueryRoute(InProcessServer::context().get(), route, &routed).ok());
  EXPECT_EQ(routed.status().code(), v2::UNAUTHORIZED);
  EXPECT_NE(routed.status().message().find("carries no AccessKey"), std::string::npos) << routed.status().message();
  // Allowed: it goes on to the next check (no endpoints were named).
  ASSERT_TRUE(server_.stub().QueryRoute(signed_context("producer1", "secret-p1").get(), route, &routed).ok());
  EXPECT_EQ(routed.status().code(), v2::ILLEGAL_ACCESS_POINT);

  v2::SendMessageRequest send;
  send.add_messages()->mutable_topic()->set_name("Payments");
  v2::SendMessageResponse sent;
  ASSERT_TRUE(server_.stub().SendMessage(signed_context("producer1", "secret-p1").get(), send, &sent).ok());
  EXPECT_EQ(sent.status().code(), v2::UNAUTHORIZED);
  EXPECT_EQ(sent.status().message(), "AccessKey producer1 has no PUB permission on topic Payments (it has DENY)");
  ASSERT_TRUE(server_.stub().SendMessage(signed_context("producer1", "wrong-secret").get(), send, &sent).ok());
  EXPECT_TRUE(sent.status().message().starts_with("signature check failed")) << sent.status().message();
}

TEST_F(MessagingServiceAclTest, ReceivesAreRefusedOnTheStream) {
  v2::ReceiveMessageRequest request;
  request.mutable_group()->set_name("GroupA");
  request.mutable_message_queue()->mutable_topic()->set_name("Orders");
  request.set_batch_size(1);
  auto call = signed_context("producer1", "secret-p1");
  auto reader = server_.stub().ReceiveMessage(call.get(), request);
  v2::ReceiveMessageResponse response;
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status().code(), v2::UNAUTHORIZED);
  EXPECT_NE(response.status().message().find("no SUB permission"), std::string::npos) << response.status().message();
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_TRUE(reader->Finish().ok());
}

TEST_F(MessagingServiceAclTest, TelemetrySettingsAreCheckedAndTheStreamStays) {
  auto call = signed_context("producer1", "secret-p1");
  auto stream = server_.stub().Telemetry(call.get());
  v2::TelemetryCommand command;
  command.mutable_settings()->set_client_type(v2::PRODUCER);
  command.mutable_settings()->mutable_publishing()->add_topics()->set_name("Payments");
  ASSERT_TRUE(stream->Write(command));
  v2::TelemetryCommand reply;
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::UNAUTHORIZED);
  EXPECT_FALSE(reply.has_settings());
  // Allowed: the settings go on to their own checks (with no cluster behind this service, a
  // refusal that needs no broker shows it).
  command.mutable_settings()->mutable_publishing()->mutable_topics(0)->set_name("Orders");
  command.mutable_settings()->set_client_type(v2::CLIENT_TYPE_UNSPECIFIED);
  ASSERT_TRUE(stream->Write(command));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
  expect_clean_end(*stream);
}

}  // namespace
}  // namespace mqkit::proxy
