// What a broken or hostile RocketMQ 5 client can send mqproxy: every MessagingService call, each
// request starting as a well-behaved client's (real topic, group and receipt handles) with fields
// replaced through protobuf reflection by values at the edges of their types, enums no client
// knows, durations and timestamps out of range, text that is overlong or not UTF-8, and fields
// cleared or added; and the client's metadata broken the same way. Real processes on 127.0.0.1;
// seeded and bounded in count and time (MQKIT_HOSTILE_SEED and MQKIT_HOSTILE_ROUNDS run longer).
//
// What must hold: mqproxy stays up and keeps serving; every call ends, with a response or a gRPC
// status (a receive may wait out its long polling); a response that refuses says why (its
// status message), as RocketMQ's proxy does.
#include <google/protobuf/text_format.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "client_cluster.hpp"
#include "hostile_values.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/client_instance.hpp"

namespace mqkit::testing {
namespace {

namespace v2 = apache::rocketmq::v2;
namespace pb = google::protobuf;
using namespace std::chrono_literals;

constexpr std::string_view kTopic = "HostileTopic";
constexpr std::string_view kGroup = "HostileGroup";

// Replaces, clears and adds fields of a message, recursively, through reflection.
class ProtoMutator {
 public:
  explicit ProtoMutator(std::uint64_t seed) : random_(seed), strings_(hostile_strings()), integers_(hostile_integers()) {}

  void mutate(pb::Message& message, int depth = 0) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    const pb::Reflection* reflection = message.GetReflection();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor* field = descriptor->field(i);
      const bool present = field->is_repeated() ? reflection->FieldSize(message, field) > 0
                                                : !field->has_presence() || reflection->HasField(message, field);
      const int roll = pick(100);
      if (present && roll < 4) {
        reflection->ClearField(&message, field);
      } else if ((present && roll < 14) || (!present && roll < 3 && depth < 4)) {
        set_hostile(message, field, depth);
      } else if (present && field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        if (field->is_repeated()) {
          for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
            mutate(*reflection->MutableRepeatedMessage(&message, field, j), depth + 1);
          }
        } else {
          mutate(*reflection->MutableMessage(&message, field), depth + 1);
        }
      }
    }
  }

  int pick(int n) { return static_cast<int>(random_() % static_cast<std::uint64_t>(n)); }
  const std::string& hostile_string() { return strings_[static_cast<std::size_t>(pick(static_cast<int>(strings_.size())))]; }

 private:
  std::int64_t hostile_integer() { return integers_[static_cast<std::size_t>(pick(static_cast<int>(integers_.size())))]; }

  void set_hostile(pb::Message& message, const pb::FieldDescriptor* field, int depth) {
    const pb::Reflection* reflection = message.GetReflection();
    using F = pb::FieldDescriptor;
    if (field->is_repeated()) {
      reflection->ClearField(&message, field);
      for (int n = pick(3); n > 0; --n) add_hostile(message, field, depth);
      return;
    }
    switch (field->cpp_type()) {
      case F::CPPTYPE_INT32: reflection->SetInt32(&message, field, static_cast<std::int32_t>(hostile_integer())); break;
      case F::CPPTYPE_INT64: reflection->SetInt64(&message, field, hostile_integer()); break;
      case F::CPPTYPE_UINT32: reflection->SetUInt32(&message, field, static_cast<std::uint32_t>(hostile_integer())); break;
      case F::CPPTYPE_UINT64: reflection->SetUInt64(&message, field, static_cast<std::uint64_t>(hostile_integer())); break;
      case F::CPPTYPE_FLOAT: reflection->SetFloat(&message, field, hostile_real<float>()); break;
      case F::CPPTYPE_DOUBLE: reflection->SetDouble(&message, field, hostile_real<double>()); break;
      case F::CPPTYPE_BOOL: reflection->SetBool(&message, field, pick(2) == 0); break;
      case F::CPPTYPE_ENUM: reflection->SetEnumValue(&message, field, pick(12) - 2 + (pick(4) == 0 ? 1000 : 0)); break;
      case F::CPPTYPE_STRING: reflection->SetString(&message, field, text_for(field)); break;
      case F::CPPTYPE_MESSAGE: {
        pb::Message* child = reflection->MutableMessage(&message, field);
        child->Clear();
        if (depth < 4) fill(*child, depth + 1);
        break;
      }
    }
  }

  void add_hostile(pb::Message& message, const pb::FieldDescriptor* field, int depth) {
    const pb::Reflection* reflection = message.GetReflection();
    using F = pb::FieldDescriptor;
    switch (field->cpp_type()) {
      case F::CPPTYPE_INT32: reflection->AddInt32(&message, field, static_cast<std::int32_t>(hostile_integer())); break;
      case F::CPPTYPE_INT64: reflection->AddInt64(&message, field, hostile_integer()); break;
      case F::CPPTYPE_UINT32: reflection->AddUInt32(&message, field, static_cast<std::uint32_t>(hostile_integer())); break;
      case F::CPPTYPE_UINT64: reflection->AddUInt64(&message, field, static_cast<std::uint64_t>(hostile_integer())); break;
      case F::CPPTYPE_FLOAT: reflection->AddFloat(&message, field, hostile_real<float>()); break;
      case F::CPPTYPE_DOUBLE: reflection->AddDouble(&message, field, hostile_real<double>()); break;
      case F::CPPTYPE_BOOL: reflection->AddBool(&message, field, pick(2) == 0); break;
      case F::CPPTYPE_ENUM: reflection->AddEnumValue(&message, field, pick(12) - 2); break;
      case F::CPPTYPE_STRING: reflection->AddString(&message, field, text_for(field)); break;
      case F::CPPTYPE_MESSAGE: {
        pb::Message* child = reflection->AddMessage(&message, field);
        if (depth < 4) fill(*child, depth + 1);
        break;
      }
    }
  }

  // Every field of a fresh message set to something hostile (a map entry gets key and value).
  void fill(pb::Message& message, int depth) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      if (pick(2) == 0) set_hostile(message, descriptor->field(i), depth);
    }
  }

  // Strings; bytes fields (bodies) get random bytes too. Text stays within gRPC's message limit.
  std::string text_for(const pb::FieldDescriptor* field) {
    if (field->type() == pb::FieldDescriptor::TYPE_BYTES && pick(2) == 0) {
      std::string bytes(static_cast<std::size_t>(pick(2048)), '\0');
      for (auto& c : bytes) c = static_cast<char>(random_());
      return bytes;
    }
    // proto3 strings must be UTF-8: gRPC answers a request that is not with UNIMPLEMENTED before
    // the proxy sees it, which is also how it reports a handler that threw.
    for (;;) {
      const std::string& text = hostile_string();
      if (std::none_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) return text;
    }
  }

  template <typename Real>
  Real hostile_real() {
    const Real values[] = {0, -1, std::numeric_limits<Real>::quiet_NaN(), std::numeric_limits<Real>::infinity(),
                           -std::numeric_limits<Real>::infinity(), std::numeric_limits<Real>::max(), Real(1e-30)};
    return values[pick(static_cast<int>(std::size(values)))];
  }

  std::mt19937_64 random_;
  std::vector<std::string> strings_;
  std::vector<std::int64_t> integers_;
};

template <typename Message>
Message parse(const std::string& text) {
  Message message;
  EXPECT_TRUE(pb::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

// What the calls ended with.
struct Findings {
  std::int64_t calls = 0;
  std::map<std::string, std::int64_t> outcomes;  // "RPC grpc-status/v2-code"
  std::vector<std::string> problems;

  void add_problem(std::string problem) {
    if (problems.size() < 40) problems.push_back(std::move(problem));
  }
};

class HostileGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.add_namesrv().is_ok());
    ASSERT_TRUE(cluster_.add_broker({.name = "broker-a", .overrides = {"broker.enable_property_filter=true"}}).is_ok());
    ASSERT_TRUE(cluster_.add_proxy().is_ok());
    auto instance = client::ClientInstance::create(fast_client_config(cluster_));
    ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
    instance_ = std::move(instance).value();
    ASSERT_TRUE(instance_->start().is_ok());
    protocol::TopicConfig config;
    config.topic_name = std::string(kTopic);
    config.read_queue_nums = config.write_queue_nums = 4;
    ASSERT_TRUE(instance_->api().create_topic(cluster_.broker_addr(0), config).is_ok());
    stub_ = v2::MessagingService::NewStub(grpc::CreateChannel(cluster_.proxy_addr(0), grpc::InsecureChannelCredentials()));
    ASSERT_TRUE(eventually([&] { return query_route_ok(); })) << "no route of " << kTopic << " through mqproxy";
  }

  // The metadata RocketMQ 5 clients send, now and then broken.
  void prepare(grpc::ClientContext& context, ProtoMutator& mutator, std::chrono::milliseconds deadline) {
    const auto header = [&](const char* name, const char* good) {
      const int roll = mutator.pick(20);
      if (roll == 0) return;  // left out
      const std::string& value = roll == 1 ? mutator.hostile_string() : std::string(good);
      // gRPC refuses metadata values it cannot carry (binary, or too long); those stay good.
      const bool printable = value.size() < 1000 && std::all_of(value.begin(), value.end(), [](char c) {
                               return c >= 0x20 && c < 0x7f;
                             });
      context.AddMetadata(name, printable ? value : std::string(good));
    };
    header("x-mq-client-id", "hostile@1");
    header("x-mq-language", "CPP");
    header("x-mq-protocol", "v2");
    header("x-mq-client-version", "5.0.0");
    header("x-mq-request-id", "0");
    if (mutator.pick(10) == 0) header("x-mq-namespace", "");
    context.set_deadline(std::chrono::system_clock::now() + deadline);
  }

  // The metadata of the test's own, well-behaved calls.
  static void well_behaved(grpc::ClientContext& context, std::chrono::seconds deadline) {
    context.AddMetadata("x-mq-client-id", "hostile@1");
    context.set_deadline(std::chrono::system_clock::now() + deadline);
  }

  bool query_route_ok() {
    grpc::ClientContext context;
    well_behaved(context, 5s);
    v2::QueryRouteRequest request;
    request.mutable_topic()->set_name(std::string(kTopic));
    auto* address = request.mutable_endpoints()->add_addresses();
    address->set_host("127.0.0.1");
    address->set_port(8081);
    v2::QueryRouteResponse response;
    return stub_->QueryRoute(&context, request, &response).ok() && response.status().code() == v2::OK;
  }

  // Sends messages through the proxy and receives them (60 s invisible), for real receipt handles.
  std::vector<std::pair<std::string, std::string>> receipts() {
    for (int i = 0; i < 8; ++i) {
      grpc::ClientContext context;
      well_behaved(context, 10s);
      auto request = parse<v2::SendMessageRequest>(send_seed());
      v2::SendMessageResponse response;
      EXPECT_TRUE(stub_->SendMessage(&context, request, &response).ok());
    }
    std::vector<std::pair<std::string, std::string>> handles;
    for (int queue = 0; queue < 4; ++queue) {
      grpc::ClientContext context;
      well_behaved(context, 10s);
      auto request = parse<v2::ReceiveMessageRequest>(receive_seed(queue, 60));
      auto reader = stub_->ReceiveMessage(&context, request);
      v2::ReceiveMessageResponse response;
      while (reader->Read(&response)) {
        if (response.has_message()) {
          handles.emplace_back(response.message().system_properties().message_id(),
                               response.message().system_properties().receipt_handle());
        }
      }
      (void)reader->Finish();
    }
    return handles;
  }

  static std::string send_seed() {
    return R"(messages { topic { name: "HostileTopic" } user_properties { key: "k" value: "v" }
      system_properties { tag: "TagA" keys: "k1" message_id: "01AABBCCDDEEFF0011223344550000" body_encoding: IDENTITY
        message_type: NORMAL born_timestamp { seconds: 1700000000 } born_host: "127.0.0.1" }
      body: "hostile body" })";
  }
  static std::string receive_seed(int queue, int invisible_seconds) {
    return R"(group { name: "HostileGroup" } message_queue { topic { name: "HostileTopic" } id: )" +
           std::to_string(queue) +
           R"( permission: READ_WRITE broker { name: "broker-a" id: 0 endpoints { scheme: IPv4 addresses { host: "127.0.0.1" port: 8081 } } }
      accept_message_types: NORMAL } filter_expression { type: TAG expression: "*" } batch_size: 4
      invisible_duration { seconds: )" +
           std::to_string(invisible_seconds) + R"( } long_polling_timeout { seconds: 1 })";
  }

  // A unary call: it must end, and a refusal must say why.
  template <typename Request, typename Response, typename Call>
  void unary(const char* rpc, const std::string& seed, Call call, ProtoMutator& mutator, Findings& findings) {
    auto request = parse<Request>(seed);
    mutator.mutate(request);
    grpc::ClientContext context;
    prepare(context, mutator, 10s);
    Response response;
    const grpc::Status status = call(&context, request, &response);
    record(rpc, status, &response, request.ShortDebugString(), findings);
  }

  void record(const char* rpc, const grpc::Status& status, const pb::Message* response, const std::string& request,
              Findings& findings, bool may_wait = false) {
    ++findings.calls;
    const auto shown = request.size() > 600 ? request.substr(0, 600) + "..." : request;
    if (!status.ok()) {
      ++findings.outcomes[std::string(rpc) + " grpc-" + std::to_string(status.error_code())];
      // UNIMPLEMENTED and UNKNOWN are how gRPC reports a handler that threw.
      const bool died = status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                        status.error_code() == grpc::StatusCode::UNIMPLEMENTED ||
                        status.error_code() == grpc::StatusCode::UNKNOWN;
      const bool hung = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && !may_wait;
      if (died || hung) {
        findings.add_problem(std::string(rpc) + " ended with gRPC status " + std::to_string(status.error_code()) +
                             " (" + status.error_message() + ") for " + shown);
      }
      return;
    }
    if (response == nullptr) return;
    const auto* field = response->GetDescriptor()->FindFieldByName("status");
    if (field == nullptr || !response->GetReflection()->HasField(*response, field)) return;
    const auto& answer = static_cast<const v2::Status&>(response->GetReflection()->GetMessage(*response, field));
    ++findings.outcomes[std::string(rpc) + " " + v2::Code_Name(answer.code())];
    if (answer.code() != v2::OK && answer.code() != v2::MULTIPLE_RESULTS && answer.message().empty()) {
      findings.add_problem(std::string(rpc) + " refused with " + v2::Code_Name(answer.code()) + " and no message, for " + shown);
    }
  }

  void receive(ProtoMutator& mutator, Findings& findings) {
    auto request = parse<v2::ReceiveMessageRequest>(receive_seed(mutator.pick(4), 30));
    mutator.mutate(request);
    grpc::ClientContext context;
    prepare(context, mutator, 3s);
    auto reader = stub_->ReceiveMessage(&context, request);
    v2::ReceiveMessageResponse response;
    std::optional<v2::ReceiveMessageResponse> status_answer;
    while (reader->Read(&response)) {
      if (response.has_status()) status_answer = response;
    }
    const grpc::Status status = reader->Finish();
    record("ReceiveMessage", status, status_answer ? &*status_answer : nullptr, request.ShortDebugString(), findings,
           /*may_wait=*/true);
  }

  void telemetry(ProtoMutator& mutator, Findings& findings) {
    grpc::ClientContext context;
    prepare(context, mutator, 5s);
    auto stream = stub_->Telemetry(&context);
    const std::string seeds[] = {
        R"(settings { client_type: PRODUCER access_point { scheme: IPv4 addresses { host: "127.0.0.1" port: 8081 } }
           request_timeout { seconds: 3 } publishing { topics { name: "HostileTopic" } max_body_size: 4194304 }
           user_agent { language: CPP version: "5.0.0" platform: "linux" hostname: "h" } })",
        R"(settings { client_type: SIMPLE_CONSUMER subscription { group { name: "HostileGroup" }
           subscriptions { topic { name: "HostileTopic" } expression { type: SQL expression: "a > 1" } }
           receive_batch_size: 8 long_polling_timeout { seconds: 1 } } })",
        R"(thread_stack_trace { nonce: "n" thread_stack_trace: "t" })",
        R"(verify_message_result { nonce: "n" })",
        R"(status { code: OK message: "" })"};
    std::string sent;
    for (int n = 1 + mutator.pick(3); n > 0; --n) {
      auto command = parse<v2::TelemetryCommand>(seeds[mutator.pick(static_cast<int>(std::size(seeds)))]);
      mutator.mutate(command);
      sent += command.ShortDebugString().substr(0, 300) + "; ";
      if (!stream->Write(command)) break;
    }
    stream->WritesDone();
    v2::TelemetryCommand answer;
    std::optional<v2::TelemetryCommand> last_status;
    while (stream->Read(&answer)) {
      if (answer.has_status()) last_status = answer;
    }
    const grpc::Status status = stream->Finish();
    record("Telemetry", status, last_status ? &*last_status : nullptr, sent, findings);
  }

  LocalCluster cluster_{"hostile_grpc"};
  std::shared_ptr<client::ClientInstance> instance_;
  std::unique_ptr<v2::MessagingService::Stub> stub_;
};

TEST_F(HostileGrpcTest, ProxyAnswersEveryMalformedCallAndStaysUp) {
  const auto handles = receipts();
  ASSERT_FALSE(handles.empty()) << "no message received through mqproxy to take receipt handles from";
  const std::uint64_t seed = campaign_setting("MQKIT_HOSTILE_SEED", 20261201);
  const std::uint64_t rounds = campaign_setting("MQKIT_HOSTILE_ROUNDS", 30);
  SCOPED_TRACE("MQKIT_HOSTILE_SEED=" + std::to_string(seed));
  ProtoMutator mutator(seed);
  Findings findings;
  const auto deadline = std::chrono::steady_clock::now() + 150s;
  auto* stub = stub_.get();
  for (std::uint64_t round = 0; round < rounds && std::chrono::steady_clock::now() < deadline; ++round) {
    const auto& [message_id, handle] = handles[round % handles.size()];
    const std::string resource = R"(group { name: "HostileGroup" } topic { name: "HostileTopic" } )";
    const std::string endpoints = R"(endpoints { scheme: IPv4 addresses { host: "127.0.0.1" port: 8081 } })";
    unary<v2::QueryRouteRequest, v2::QueryRouteResponse>(
        "QueryRoute", R"(topic { name: "HostileTopic" } )" + endpoints,
        [&](auto* c, const auto& r, auto* a) { return stub->QueryRoute(c, r, a); }, mutator, findings);
    unary<v2::HeartbeatRequest, v2::HeartbeatResponse>(
        "Heartbeat", R"(group { name: "HostileGroup" } client_type: SIMPLE_CONSUMER)",
        [&](auto* c, const auto& r, auto* a) { return stub->Heartbeat(c, r, a); }, mutator, findings);
    unary<v2::SendMessageRequest, v2::SendMessageResponse>(
        "SendMessage", send_seed(), [&](auto* c, const auto& r, auto* a) { return stub->SendMessage(c, r, a); },
        mutator, findings);
    unary<v2::QueryAssignmentRequest, v2::QueryAssignmentResponse>(
        "QueryAssignment", resource + endpoints,
        [&](auto* c, const auto& r, auto* a) { return stub->QueryAssignment(c, r, a); }, mutator, findings);
    receive(mutator, findings);
    unary<v2::AckMessageRequest, v2::AckMessageResponse>(
        "AckMessage", resource + "entries { message_id: \"" + message_id + "\" receipt_handle: \"" + handle + "\" }",
        [&](auto* c, const auto& r, auto* a) { return stub->AckMessage(c, r, a); }, mutator, findings);
    unary<v2::ChangeInvisibleDurationRequest, v2::ChangeInvisibleDurationResponse>(
        "ChangeInvisibleDuration",
        resource + "receipt_handle: \"" + handle + "\" invisible_duration { seconds: 60 } message_id: \"" + message_id + "\"",
        [&](auto* c, const auto& r, auto* a) { return stub->ChangeInvisibleDuration(c, r, a); }, mutator, findings);
    unary<v2::ForwardMessageToDeadLetterQueueRequest, v2::ForwardMessageToDeadLetterQueueResponse>(
        "ForwardMessageToDeadLetterQueue",
        resource + "receipt_handle: \"" + handle + "\" message_id: \"" + message_id +
            "\" delivery_attempt: 1 max_delivery_attempts: 16",
        [&](auto* c, const auto& r, auto* a) { return stub->ForwardMessageToDeadLetterQueue(c, r, a); }, mutator,
        findings);
    unary<v2::EndTransactionRequest, v2::EndTransactionResponse>(
        "EndTransaction",
        R"(topic { name: "HostileTopic" } message_id: ")" + message_id +
            R"(" transaction_id: "7F00000100002A9F0000000000000000" resolution: COMMIT source: SOURCE_CLIENT)",
        [&](auto* c, const auto& r, auto* a) { return stub->EndTransaction(c, r, a); }, mutator, findings);
    unary<v2::NotifyClientTerminationRequest, v2::NotifyClientTerminationResponse>(
        "NotifyClientTermination", R"(group { name: "HostileGroup" })",
        [&](auto* c, const auto& r, auto* a) { return stub->NotifyClientTermination(c, r, a); }, mutator, findings);
    unary<v2::RecallMessageRequest, v2::RecallMessageResponse>(
        "RecallMessage", R"(topic { name: "HostileTopic" } recall_handle: "x")",
        [&](auto* c, const auto& r, auto* a) { return stub->RecallMessage(c, r, a); }, mutator, findings);
    telemetry(mutator, findings);
  }

  std::string outcomes;
  for (const auto& [outcome, count] : findings.outcomes) outcomes += "\n  " + outcome + ": " + std::to_string(count);
  std::cout << findings.calls << " calls:" << outcomes << "\n";
  for (const auto& problem : findings.problems) ADD_FAILURE() << problem;
  ASSERT_TRUE(cluster_.proxy(0).running()) << cluster_.proxy(0).log_tail();
  EXPECT_TRUE(query_route_ok()) << "mqproxy no longer serves a route";
}

}  // namespace
}  // namespace mqkit::testing
