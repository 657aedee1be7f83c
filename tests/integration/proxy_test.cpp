// mqproxy against real mqnamesrv + mqbroker processes, driven through RocketMQ 5's gRPC stub:
// routes, the settings exchange, sends (single, batch, ordered by message group, refused), and
// what the broker stored for them, read back with the SDK.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "client_cluster.hpp"
#include "exposition_page.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/client_instance.hpp"
#include "tls_identity.hpp"

namespace mqkit::testing {
namespace {

namespace v2 = apache::rocketmq::v2;
using namespace std::chrono_literals;

class ProxyTest : public ::testing::Test {
 protected:
  // Extra --set values of the broker and of the proxy (a subclass's).
  virtual std::vector<std::string> broker_overrides() const { return {}; }
  virtual std::vector<std::string> proxy_overrides() { return {}; }
  // How the test's stub connects to the proxy.
  virtual std::shared_ptr<grpc::ChannelCredentials> channel_credentials() { return grpc::InsecureChannelCredentials(); }

  void SetUp() override {
    ASSERT_TRUE(cluster_.add_namesrv().is_ok());
    ASSERT_TRUE(cluster_.add_broker({.name = "broker-a", .overrides = broker_overrides()}).is_ok());
    ASSERT_TRUE(cluster_.add_proxy(proxy_overrides()).is_ok());
    auto instance = client::ClientInstance::create(fast_client_config(cluster_));
    ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
    instance_ = std::move(instance).value();
    ASSERT_TRUE(instance_->start().is_ok());
    stub_ = v2::MessagingService::NewStub(grpc::CreateChannel(cluster_.proxy_addr(0), channel_credentials()));
  }

  void create_topic(const std::string& topic, std::map<std::string, std::string> attribute_changes = {}) {
    protocol::TopicConfig config;
    config.topic_name = topic;
    config.read_queue_nums = config.write_queue_nums = 4;
    config.attributes = std::move(attribute_changes);
    ASSERT_TRUE(instance_->api().create_topic(cluster_.broker_addr(0), config).is_ok());
    // Routes come from the name server, which hears of the topic with the broker's registration.
    for (int i = 0; i < 100; ++i) {
      if (instance_->update_route(topic).is_ok()) return;
      std::this_thread::sleep_for(100ms);
    }
    FAIL() << "no route of " << topic;
  }

  static void prepare(grpc::ClientContext& context) {
    context.AddMetadata("x-mq-client-id", "proxy-test@1");
    context.set_deadline(std::chrono::system_clock::now() + 10s);
  }

  v2::QueryRouteResponse query_route(const std::string& topic) {
    v2::QueryRouteRequest request;
    request.mutable_topic()->set_name(topic);
    auto* address = request.mutable_endpoints()->add_addresses();
    address->set_host("127.0.0.1");
    address->set_port(4242);  // what the client says it dialled comes back in the route
    v2::QueryRouteResponse response;
    grpc::ClientContext context;
    prepare(context);
    EXPECT_TRUE(stub_->QueryRoute(&context, request, &response).ok());
    return response;
  }

  static v2::Message message(const std::string& topic, const std::string& id, const std::string& body) {
    v2::Message m;
    m.mutable_topic()->set_name(topic);
    m.set_body(body);
    m.mutable_system_properties()->set_message_id(id);
    m.mutable_system_properties()->set_message_type(v2::NORMAL);
    return m;
  }

  v2::SendMessageResponse send(std::initializer_list<v2::Message> messages) {
    v2::SendMessageRequest request;
    for (const auto& m : messages) *request.add_messages() = m;
    v2::SendMessageResponse response;
    grpc::ClientContext context;
    prepare(context);
    EXPECT_TRUE(stub_->SendMessage(&context, request, &response).ok());
    return response;
  }

  // Every message of one queue, from offset 0.
  std::vector<client::MessageExt> pull_all(const std::string& topic, int queue_id) {
    client::PullMessageRequest request;
    request.consumer_group = "proxy_test_reader";
    request.topic = topic;
    request.queue_id = queue_id;
    request.max_msg_nums = 64;
    request.sys_flag = client::pull_sys_flag::kSubscription;  // no long polling: an empty queue answers at once
    auto pulled = instance_->api().pull_message(cluster_.broker_addr(0), request, 5s);
    EXPECT_TRUE(pulled.is_ok()) << pulled.status().to_string();
    return pulled ? pulled->messages : std::vector<client::MessageExt>{};
  }

  // Messages reach the consume queue moments after the send is answered.
  std::vector<client::MessageExt> pull_all_of_topic(const std::string& topic, std::size_t expected) {
    std::vector<client::MessageExt> all;
    for (int attempt = 0; attempt < 50; ++attempt) {
      all.clear();
      for (int q = 0; q < 4; ++q) {
        for (auto& m : pull_all(topic, q)) all.push_back(std::move(m));
      }
      if (all.size() >= expected) break;
      std::this_thread::sleep_for(100ms);
    }
    return all;
  }

  struct Received {
    v2::Status status;
    std::vector<v2::Message> messages;
  };
  // A ReceiveMessage request for broker-a's queues, its invisible time left to the caller.
  static v2::ReceiveMessageRequest receive_request(const std::string& topic, const std::string& group,
                                                   std::int64_t long_polling_ms, int batch, const std::string& sql) {
    v2::ReceiveMessageRequest request;
    request.mutable_group()->set_name(group);
    request.mutable_message_queue()->mutable_topic()->set_name(topic);
    request.mutable_message_queue()->set_id(0);
    request.mutable_message_queue()->mutable_broker()->set_name("broker-a");
    request.mutable_filter_expression()->set_type(sql.empty() ? v2::TAG : v2::SQL);
    request.mutable_filter_expression()->set_expression(sql.empty() ? "*" : sql);
    request.set_batch_size(batch);
    request.mutable_long_polling_timeout()->set_seconds(long_polling_ms / 1000);
    request.mutable_long_polling_timeout()->set_nanos(static_cast<int>(long_polling_ms % 1000) * 1'000'000);
    return request;
  }
  // One ReceiveMessage call on broker-a: the stream's status and messages.
  Received receive(const std::string& topic, const std::string& group, std::int64_t invisible_ms,
                   std::int64_t long_polling_ms = 1000, int batch = 16, const std::string& sql = "") {
    auto request = receive_request(topic, group, long_polling_ms, batch, sql);
    request.mutable_invisible_duration()->set_seconds(invisible_ms / 1000);
    request.mutable_invisible_duration()->set_nanos(static_cast<int>(invisible_ms % 1000) * 1'000'000);
    return receive(request);
  }
  Received receive(const v2::ReceiveMessageRequest& request) {
    grpc::ClientContext context;
    prepare(context);
    Received out;
    auto reader = stub_->ReceiveMessage(&context, request);
    v2::ReceiveMessageResponse response;
    while (reader->Read(&response)) {
      if (response.has_status()) out.status = response.status();
      if (response.has_message()) out.messages.push_back(response.message());
    }
    EXPECT_TRUE(reader->Finish().ok());
    return out;
  }

  v2::AckMessageResponse ack(const std::string& topic, const std::string& group, const v2::Message& message,
                             const std::string& receipt = "") {
    v2::AckMessageRequest request;
    request.mutable_group()->set_name(group);
    request.mutable_topic()->set_name(topic);
    auto* entry = request.add_entries();
    entry->set_message_id(message.system_properties().message_id());
    entry->set_receipt_handle(receipt.empty() ? message.system_properties().receipt_handle() : receipt);
    v2::AckMessageResponse response;
    grpc::ClientContext context;
    prepare(context);
    EXPECT_TRUE(stub_->AckMessage(&context, request, &response).ok());
    return response;
  }

  void send_bodies(const std::string& topic, const std::vector<std::string>& bodies, const std::string& group = "") {
    int n = 0;
    for (const auto& body : bodies) {
      auto m = message(topic, "0A0000010000000000000000000" + std::to_string(10000 + n++), body);
      if (!group.empty()) m.mutable_system_properties()->set_message_group(group);
      ASSERT_EQ(send({m}).status().code(), v2::OK);
    }
  }

  LocalCluster cluster_{"proxy"};
  std::shared_ptr<client::ClientInstance> instance_;
  std::unique_ptr<v2::MessagingService::Stub> stub_;
};

TEST_F(ProxyTest, RoutesPointAtTheProxyWithTheTopicsMessageType) {
  create_topic("ProxyFifo", {{"+message.type", "FIFO"}});
  const auto route = query_route("ProxyFifo");
  ASSERT_EQ(route.status().code(), v2::OK) << route.status().message();
  ASSERT_EQ(route.message_queues_size(), 4);
  for (const auto& queue : route.message_queues()) {
    EXPECT_EQ(queue.broker().name(), "broker-a");
    EXPECT_EQ(queue.permission(), v2::READ_WRITE);
    ASSERT_EQ(queue.broker().endpoints().addresses_size(), 1);
    EXPECT_EQ(queue.broker().endpoints().addresses(0).port(), 4242);
    ASSERT_EQ(queue.accept_message_types_size(), 1);
    EXPECT_EQ(queue.accept_message_types(0), v2::FIFO);
  }
  create_topic("ProxyPlain");
  const auto plain = query_route("ProxyPlain");
  ASSERT_EQ(plain.status().code(), v2::OK);
  EXPECT_EQ(plain.message_queues(0).accept_message_types(0), v2::NORMAL);

  EXPECT_EQ(query_route("ProxyNoSuchTopic").status().code(), v2::TOPIC_NOT_FOUND);
  EXPECT_EQ(query_route("bad topic").status().code(), v2::ILLEGAL_TOPIC);
}

TEST_F(ProxyTest, TelemetryAnswersEachClientWithItsSettings) {
  grpc::ClientContext context;
  prepare(context);
  auto stream = stub_->Telemetry(&context);
  v2::TelemetryCommand hello;
  hello.mutable_settings()->set_client_type(v2::PRODUCER);
  hello.mutable_settings()->mutable_publishing()->add_topics()->set_name("T");
  ASSERT_TRUE(stream->Write(hello));
  v2::TelemetryCommand reply;
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::OK);
  EXPECT_TRUE(reply.settings().backoff_policy().has_exponential_backoff());
  EXPECT_EQ(reply.settings().publishing().max_body_size(), 4 * 1024 * 1024);

  // A consumer of an orderly group hears so, with the group's delivery attempts.
  create_topic("ProxyTelemetry");
  protocol::SubscriptionGroupConfig group;
  group.group_name = "TelemetryGroup";
  group.consume_message_orderly = true;
  group.retry_max_times = 3;
  ASSERT_TRUE(instance_->api().update_subscription_group(cluster_.broker_addr(0), group).is_ok());
  v2::TelemetryCommand consumer;
  consumer.mutable_settings()->set_client_type(v2::SIMPLE_CONSUMER);
  consumer.mutable_settings()->mutable_subscription()->mutable_group()->set_name("TelemetryGroup");
  consumer.mutable_settings()->mutable_subscription()->add_subscriptions()->mutable_topic()->set_name("ProxyTelemetry");
  ASSERT_TRUE(stream->Write(consumer));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::OK);
  EXPECT_TRUE(reply.settings().subscription().fifo());
  EXPECT_EQ(reply.settings().backoff_policy().max_attempts(), 4);
  // The broker now lists the consumer under its group, as a pop consumer with its subscription.
  auto connections = instance_->api().get_consumer_connection_list(cluster_.broker_addr(0), "TelemetryGroup");
  ASSERT_TRUE(connections.is_ok()) << connections.status().to_string();
  ASSERT_EQ(connections->connection_set.size(), 1U);
  EXPECT_EQ(connections->connection_set[0].client_id, "proxy-test@1");
  EXPECT_EQ(connections->consume_type, "CONSUME_POP");
  EXPECT_EQ(connections->subscription_table.count("ProxyTelemetry"), 1U);
  // Leaving tells the brokers at once.
  v2::NotifyClientTerminationRequest bye;
  bye.mutable_group()->set_name("TelemetryGroup");
  v2::NotifyClientTerminationResponse bye_answer;
  grpc::ClientContext bye_context;
  prepare(bye_context);
  ASSERT_TRUE(stub_->NotifyClientTermination(&bye_context, bye, &bye_answer).ok());
  EXPECT_FALSE(instance_->api().get_consumer_connection_list(cluster_.broker_addr(0), "TelemetryGroup").is_ok());

  v2::TelemetryCommand unknown;
  unknown.mutable_settings()->set_client_type(v2::CLIENT_TYPE_UNSPECIFIED);
  ASSERT_TRUE(stream->Write(unknown));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(ProxyTest, SentMessagesAreStoredWithRocketMqsProperties) {
  create_topic("ProxySend");
  auto m = message("ProxySend", "0A0000010000000000000000000000AA", "hello through the proxy");
  m.mutable_system_properties()->set_tag("TagA");
  m.mutable_system_properties()->add_keys("order-1");
  (*m.mutable_user_properties())["color"] = "blue";
  const auto response = send({m});
  ASSERT_EQ(response.status().code(), v2::OK) << response.status().message();
  ASSERT_EQ(response.entries_size(), 1);
  EXPECT_EQ(response.entries(0).message_id(), "0A0000010000000000000000000000AA");
  EXPECT_EQ(response.entries(0).offset(), 0);

  const auto stored = pull_all_of_topic("ProxySend", 1);
  ASSERT_EQ(stored.size(), 1U);
  EXPECT_EQ(stored[0].body(), "hello through the proxy");
  EXPECT_EQ(stored[0].tags(), "TagA");
  EXPECT_EQ(stored[0].keys(), "order-1");
  EXPECT_EQ(stored[0].property("UNIQ_KEY").value_or(""), "0A0000010000000000000000000000AA");
  EXPECT_EQ(stored[0].property("color").value_or(""), "blue");
  EXPECT_EQ(stored[0].property("PGROUP").value_or(""), "ProxySend");
}

TEST_F(ProxyTest, OneMessageGroupStaysInOneQueueInSendOrder) {
  create_topic("ProxyOrdered", {{"+message.type", "FIFO"}});
  constexpr int kGroups = 6;
  constexpr int kPerGroup = 5;
  for (int i = 0; i < kPerGroup; ++i) {
    for (int g = 0; g < kGroups; ++g) {
      auto m = message("ProxyOrdered", "0A00000100000000000000000000" + std::to_string(1000 + g * 100 + i),
                       "g" + std::to_string(g) + "-" + std::to_string(i));
      m.mutable_system_properties()->set_message_group("group-" + std::to_string(g));
      m.mutable_system_properties()->set_message_type(v2::FIFO);
      ASSERT_EQ(send({m}).status().code(), v2::OK);
    }
  }
  const auto stored = pull_all_of_topic("ProxyOrdered", kGroups * kPerGroup);
  ASSERT_EQ(stored.size(), static_cast<std::size_t>(kGroups * kPerGroup));
  std::map<std::string, int> queue_of_group;
  std::map<std::string, int> next_of_group;
  for (const auto& m : stored) {  // pulled queue by queue, each in offset order
    const std::string group(m.property("__SHARDINGKEY").value_or(""));
    ASSERT_FALSE(group.empty());
    const auto [it, first] = queue_of_group.emplace(group, m.queue_id);
    EXPECT_EQ(it->second, m.queue_id) << group << " left its queue";
    const std::string expected = "g" + group.substr(6) + "-" + std::to_string(next_of_group[group]++);
    EXPECT_EQ(m.body(), expected);
  }
}

TEST_F(ProxyTest, ABatchIsStoredWholeWithOneEntryPerMessage) {
  create_topic("ProxyBatch");
  const auto response = send({message("ProxyBatch", "0A000001000000000000000000000B01", "one"),
                              message("ProxyBatch", "0A000001000000000000000000000B02", "two"),
                              message("ProxyBatch", "0A000001000000000000000000000B03", "three")});
  ASSERT_EQ(response.status().code(), v2::OK) << response.status().message();
  ASSERT_EQ(response.entries_size(), 3);
  EXPECT_EQ(response.entries(1).message_id(), "0A000001000000000000000000000B02");
  EXPECT_EQ(response.entries(2).offset(), response.entries(0).offset() + 2);
  EXPECT_EQ(pull_all_of_topic("ProxyBatch", 3).size(), 3U);
}

TEST_F(ProxyTest, RefusedSendsNameTheProblem) {
  create_topic("ProxyLimits");
  const auto unknown = send({message("ProxyNoSuchTopic", "0A000001000000000000000000000C01", "x")});
  EXPECT_EQ(unknown.status().code(), v2::TOPIC_NOT_FOUND) << unknown.status().message();
  const auto large = send({message("ProxyLimits", "0A000001000000000000000000000C02", std::string(4 * 1024 * 1024 + 1, 'x'))});
  EXPECT_EQ(large.status().code(), v2::MESSAGE_BODY_TOO_LARGE);
  auto tagged = message("ProxyLimits", "0A000001000000000000000000000C03", "x");
  tagged.mutable_system_properties()->set_tag("a||b");
  EXPECT_EQ(send({tagged}).status().code(), v2::ILLEGAL_MESSAGE_TAG);
  EXPECT_TRUE(pull_all("ProxyLimits", 0).empty());
}

TEST_F(ProxyTest, ReceivedMessagesComeWithTheirPropertiesAndAcksCommitTheGroupsOffset) {
  create_topic("ProxyConsume");
  auto m = message("ProxyConsume", "0A0000010000000000000000000000D1", "consume me");
  m.mutable_system_properties()->set_tag("TagC");
  m.mutable_system_properties()->add_keys("key-1");
  (*m.mutable_user_properties())["color"] = "green";
  ASSERT_EQ(send({m}).status().code(), v2::OK);
  send_bodies("ProxyConsume", {"two", "three"});

  auto received = receive("ProxyConsume", "ProxyGroup", 20'000);
  for (int i = 0; i < 20 && received.messages.size() < 3; ++i) {  // dispatch may lag the send a moment
    auto more = receive("ProxyConsume", "ProxyGroup", 20'000);
    for (auto& each : more.messages) received.messages.push_back(each);
  }
  ASSERT_EQ(received.messages.size(), 3U) << received.status.message();
  const auto found = std::find_if(received.messages.begin(), received.messages.end(),
                                  [](const v2::Message& x) { return x.body() == "consume me"; });
  ASSERT_NE(found, received.messages.end());
  const auto& system = found->system_properties();
  EXPECT_EQ(system.message_id(), "0A0000010000000000000000000000D1");
  EXPECT_EQ(system.tag(), "TagC");
  ASSERT_EQ(system.keys_size(), 1);
  EXPECT_EQ(system.keys(0), "key-1");
  EXPECT_EQ(found->user_properties().at("color"), "green");
  EXPECT_EQ(system.delivery_attempt(), 1);
  EXPECT_EQ(system.body_digest().type(), v2::MD5);
  EXPECT_EQ(system.body_digest().checksum().size(), 32U);
  EXPECT_FALSE(system.receipt_handle().empty());
  EXPECT_EQ(found->user_properties().count("UNIQ_KEY"), 0U);

  // Invisible until acked: nothing more to receive.
  EXPECT_EQ(receive("ProxyConsume", "ProxyGroup", 20'000, 500).status.code(), v2::MESSAGE_NOT_FOUND);
  for (const auto& each : received.messages) EXPECT_EQ(ack("ProxyConsume", "ProxyGroup", each).status().code(), v2::OK);
  // The group's offsets reached the end of every queue.
  std::int64_t committed = 0;
  for (int q = 0; q < 4; ++q) {
    auto offset = instance_->api().query_consumer_offset(cluster_.broker_addr(0), "ProxyGroup", {"ProxyConsume", "broker-a", q});
    if (offset) committed += *offset;
  }
  EXPECT_EQ(committed, 3);
  v2::Message garbage;
  EXPECT_EQ(ack("ProxyConsume", "ProxyGroup", garbage, "not a receipt").status().code(), v2::INVALID_RECEIPT_HANDLE);
}

// The broker behind the proxy is killed (SIGKILL) and restarted twice while a gRPC client sends
// without pause: sends fail while its port refuses, the proxy's connections to it recover, and
// every send the proxy answered OK is received through the proxy afterwards (pop consumption) by a
// group that acks each message.
TEST_F(ProxyTest, EverySendAnsweredOkIsReceivedAfterBrokerCrashes) {
  create_topic("ProxyCrash");
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::set<std::string> answered_ok;
  int failed = 0;
  std::thread sender([&] {
    for (int i = 0; i < 200'000 && !stop.load(); ++i) {
      char id[33];
      std::snprintf(id, sizeof id, "0A000001000000000000000%09X", i);
      const std::string body = "crash-" + std::to_string(i);
      v2::SendMessageRequest request;
      *request.add_messages() = message("ProxyCrash", id, body);
      v2::SendMessageResponse response;
      grpc::ClientContext context;
      prepare(context);
      const bool ok = stub_->SendMessage(&context, request, &response).ok() && response.status().code() == v2::OK;
      {
        std::lock_guard lock(mutex);
        if (ok) {
          answered_ok.insert(body);
        } else {
          ++failed;
        }
      }
      if (!ok) std::this_thread::sleep_for(20ms);  // the broker is restarting: its port refuses
    }
  });
  auto answered = [&] {
    std::lock_guard lock(mutex);
    return answered_ok.size();
  };
  auto wait_for_answers = [&](std::size_t count) {
    for (int i = 0; i < 600 && answered() < count; ++i) std::this_thread::sleep_for(100ms);
    return answered() >= count;
  };
  bool progressed = wait_for_answers(300);
  for (int crash = 0; crash < 2 && progressed; ++crash) {
    ASSERT_TRUE(cluster_.restart_broker(0, /*crash=*/true).is_ok());
    progressed = wait_for_answers(answered() + 300);
  }
  stop.store(true);
  sender.join();
  ASSERT_TRUE(progressed) << "sends through the proxy stopped being answered OK after a crash (" << answered()
                          << " answered OK, " << failed << " failed)";

  std::set<std::string> received;
  // Until everything arrived, or 20 receives in a row (10 s) found nothing.
  for (int empty_rounds = 0; empty_rounds < 20 && !std::includes(received.begin(), received.end(),
                                                                 answered_ok.begin(), answered_ok.end());) {
    const auto messages = receive("ProxyCrash", "ProxyCrashGroup", 30'000, 500, 32).messages;
    empty_rounds = messages.empty() ? empty_rounds + 1 : 0;
    for (const auto& m : messages) {
      received.insert(m.body());
      EXPECT_EQ(ack("ProxyCrash", "ProxyCrashGroup", m).status().code(), v2::OK);
    }
  }
  std::vector<std::string> missing;
  std::set_difference(answered_ok.begin(), answered_ok.end(), received.begin(), received.end(),
                      std::back_inserter(missing));
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << answered_ok.size()
                               << " sends answered OK were never received, first "
                               << (missing.empty() ? "" : missing.front());
  std::printf("answered OK %zu, failed %d, received %zu\n", answered_ok.size(), failed, received.size());
}

// The threads a process runs now (/proc/<pid>/status).
int threads_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
  }
  return -1;
}

// Receives waiting for messages hold no proxy thread each: many of them wait at once while
// sends are still answered, and a message sent meanwhile goes to exactly one of them; the others
// wait on for their long-polling time rather than being answered empty at once.
TEST_F(ProxyTest, ManyLongPollingReceivesWaitWithoutAThreadEach) {
  create_topic("ProxyLongPoll");
  ASSERT_EQ(receive("ProxyLongPoll", "LongPollGroup", 20'000, 0).status.code(), v2::MESSAGE_NOT_FOUND);
  const int threads_before = threads_of(cluster_.proxy(0).pid());
  ASSERT_GT(threads_before, 0);
  constexpr int kReceivers = 48;
  std::vector<Received> results(kReceivers);
  std::vector<std::thread> receivers;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < kReceivers; ++i) {
    receivers.emplace_back([this, &results, i] { results[i] = receive("ProxyLongPoll", "LongPollGroup", 20'000, 5000); });
  }
  std::this_thread::sleep_for(1500ms);  // every receive is waiting at the broker by now
  const int threads_waiting = threads_of(cluster_.proxy(0).pid());
  const auto sent_at = std::chrono::steady_clock::now();
  send_bodies("ProxyLongPoll", {"for one receiver"});
  const auto send_took = std::chrono::steady_clock::now() - sent_at;
  for (auto& receiver : receivers) receiver.join();
  EXPECT_GE(std::chrono::steady_clock::now() - started, 4500ms);
  EXPECT_LT(threads_waiting - threads_before, kReceivers / 4)
      << "threads before " << threads_before << ", with " << kReceivers << " receives waiting " << threads_waiting;
  EXPECT_LT(send_took, 2s);
  int delivered = 0;
  for (const auto& result : results) {
    delivered += static_cast<int>(result.messages.size());
    EXPECT_TRUE(result.status.code() == v2::OK || result.status.code() == v2::MESSAGE_NOT_FOUND) << result.status.message();
  }
  EXPECT_EQ(delivered, 1);
}

TEST_F(ProxyTest, AnUnackedMessageComesBackAndAChangedInvisibleTimeHoldsItLonger) {
  cluster_.proxy(0).stop();  // a proxy that allows short invisible times
  ASSERT_TRUE(cluster_.add_proxy({"proxy.min_invisible_time=100ms"}).is_ok());
  stub_ = v2::MessagingService::NewStub(grpc::CreateChannel(cluster_.proxy_addr(1), grpc::InsecureChannelCredentials()));
  create_topic("ProxyRedeliver");
  send_bodies("ProxyRedeliver", {"again"});
  Received first;
  for (int i = 0; i < 20 && first.messages.empty(); ++i) first = receive("ProxyRedeliver", "RedeliverGroup", 1000);
  ASSERT_EQ(first.messages.size(), 1U);
  std::this_thread::sleep_for(1200ms);
  const auto second = receive("ProxyRedeliver", "RedeliverGroup", 1000);
  ASSERT_EQ(second.messages.size(), 1U) << second.status.message();
  EXPECT_EQ(second.messages[0].system_properties().message_id(), first.messages[0].system_properties().message_id());
  EXPECT_EQ(second.messages[0].system_properties().delivery_attempt(), 2);
  // The first receipt is expired now.
  EXPECT_EQ(ack("ProxyRedeliver", "RedeliverGroup", first.messages[0]).status().code(), v2::INVALID_RECEIPT_HANDLE);

  v2::ChangeInvisibleDurationRequest change;
  change.mutable_group()->set_name("RedeliverGroup");
  change.mutable_topic()->set_name("ProxyRedeliver");
  change.set_receipt_handle(second.messages[0].system_properties().receipt_handle());
  change.mutable_invisible_duration()->set_seconds(30);
  v2::ChangeInvisibleDurationResponse changed;
  grpc::ClientContext context;
  prepare(context);
  ASSERT_TRUE(stub_->ChangeInvisibleDuration(&context, change, &changed).ok());
  ASSERT_EQ(changed.status().code(), v2::OK) << changed.status().message();
  std::this_thread::sleep_for(1200ms);
  EXPECT_EQ(receive("ProxyRedeliver", "RedeliverGroup", 1000, 300).messages.size(), 0U);
  EXPECT_EQ(ack("ProxyRedeliver", "RedeliverGroup", second.messages[0], changed.receipt_handle()).status().code(), v2::OK);
}

TEST_F(ProxyTest, AMessageForwardedToTheDeadLetterQueueLeavesTheGroup) {
  create_topic("ProxyGiveUp");
  send_bodies("ProxyGiveUp", {"hopeless"});
  Received got;
  for (int i = 0; i < 20 && got.messages.empty(); ++i) got = receive("ProxyGiveUp", "GiveUpGroup", 20'000);
  ASSERT_EQ(got.messages.size(), 1U);
  v2::ForwardMessageToDeadLetterQueueRequest forward;
  forward.mutable_group()->set_name("GiveUpGroup");
  forward.mutable_topic()->set_name("ProxyGiveUp");
  forward.set_receipt_handle(got.messages[0].system_properties().receipt_handle());
  forward.set_message_id(got.messages[0].system_properties().message_id());
  forward.set_delivery_attempt(1);
  forward.set_max_delivery_attempts(1);
  v2::ForwardMessageToDeadLetterQueueResponse forwarded;
  grpc::ClientContext context;
  prepare(context);
  ASSERT_TRUE(stub_->ForwardMessageToDeadLetterQueue(&context, forward, &forwarded).ok());
  ASSERT_EQ(forwarded.status().code(), v2::OK) << forwarded.status().message();
  // In the group's dead-letter queue, and no longer the group's to receive.
  auto dlq = instance_->api().get_max_offset(cluster_.broker_addr(0), {"%DLQ%GiveUpGroup", "broker-a", 0});
  ASSERT_TRUE(dlq.is_ok()) << dlq.status().to_string();
  EXPECT_EQ(*dlq, 1);
  EXPECT_EQ(receive("ProxyGiveUp", "GiveUpGroup", 20'000, 300).messages.size(), 0U);
  forward.set_receipt_handle("garbage");
  grpc::ClientContext again;
  prepare(again);
  ASSERT_TRUE(stub_->ForwardMessageToDeadLetterQueue(&again, forward, &forwarded).ok());
  EXPECT_EQ(forwarded.status().code(), v2::INVALID_RECEIPT_HANDLE);
}

TEST_F(ProxyTest, AnOrderlyGroupGetsAQueuesNextMessagesOnlyAfterTheAcks) {
  create_topic("ProxyFifoConsume", {{"+message.type", "FIFO"}});
  protocol::SubscriptionGroupConfig group;
  group.group_name = "FifoGroup";
  group.consume_message_orderly = true;
  ASSERT_TRUE(instance_->api().update_subscription_group(cluster_.broker_addr(0), group).is_ok());
  send_bodies("ProxyFifoConsume", {"a-1", "a-2", "a-3"}, "group-a");
  std::vector<std::string> order;
  for (int round = 0; round < 40 && order.size() < 3; ++round) {
    const auto got = receive("ProxyFifoConsume", "FifoGroup", 20'000, 300, 1);
    for (const auto& m : got.messages) {
      order.push_back(m.body());
      // The next one of the queue is held back until this one is acked.
      EXPECT_EQ(receive("ProxyFifoConsume", "FifoGroup", 20'000, 200, 1).messages.size(), 0U);
      EXPECT_EQ(ack("ProxyFifoConsume", "FifoGroup", m).status().code(), v2::OK);
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"a-1", "a-2", "a-3"}));
}

// A broker serving SQL92 filters.
// Push consumers receive with auto_renew: the proxy keeps what they received invisible while they
// consume it, renewing it at the broker, and their acks with the handle they received still work.
class ProxyAutoRenewTest : public ProxyTest {
 protected:
  std::vector<std::string> proxy_overrides() override {
    return {"proxy.default_invisible_time=3s", "proxy.renew_ahead_time=2s", "proxy.renew_interval=200ms"};
  }
  // One auto_renew receive, as a push consumer makes it (no invisible duration of its own).
  Received receive_held(const std::string& topic, const std::string& group) {
    auto request = receive_request(topic, group, 1000, 16, "");
    request.set_auto_renew(true);
    return receive(request);
  }
};

TEST_F(ProxyAutoRenewTest, AHeldMessageStaysInvisiblePastItsTimeAndItsFirstHandleAcksIt) {
  create_topic("ProxyRenew");
  send_bodies("ProxyRenew", {"held"});
  const auto held = receive_held("ProxyRenew", "RenewGroup");
  ASSERT_EQ(held.messages.size(), 1U) << held.status.message();
  // Twice the invisible time later, it has not come back: the proxy renewed it.
  std::this_thread::sleep_for(6s);
  EXPECT_TRUE(receive("ProxyRenew", "RenewGroup", 10'000, 500).messages.empty()) << "the held message came back";
  const auto acked = ack("ProxyRenew", "RenewGroup", held.messages[0]);
  EXPECT_EQ(acked.status().code(), v2::OK) << acked.status().message();
  EXPECT_TRUE(receive("ProxyRenew", "RenewGroup", 10'000, 500).messages.empty()) << "came back after its ack";
}

TEST_F(ProxyAutoRenewTest, WhenItsConsumerLeavesAHeldMessageComesBackSoon) {
  create_topic("ProxyRenew");
  send_bodies("ProxyRenew", {"left behind"});
  ASSERT_EQ(receive_held("ProxyRenew", "RenewGroup").messages.size(), 1U);
  std::this_thread::sleep_for(4s);  // renewed once: invisible for a minute now
  v2::NotifyClientTerminationRequest leaving;
  leaving.mutable_group()->set_name("RenewGroup");
  v2::NotifyClientTerminationResponse left;
  grpc::ClientContext context;
  prepare(context);
  ASSERT_TRUE(stub_->NotifyClientTermination(&context, leaving, &left).ok());
  ASSERT_EQ(left.status().code(), v2::OK);
  // Another consumer of the group gets it within a few seconds (invisible_time_when_clear, 1 s).
  std::vector<v2::Message> again;
  for (int attempt = 0; attempt < 10 && again.empty(); ++attempt) {
    again = receive("ProxyRenew", "RenewGroup", 10'000, 500).messages;
  }
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(again[0].body(), "left behind");
}

// With metrics on, /metrics shows each call's latency and code, and the proxy's gauges.
class ProxyMetricsTest : public ProxyTest {
 protected:
  std::vector<std::string> proxy_overrides() override {
    return {"proxy.metrics_exporter_type=PROM", "proxy.metrics_prom_exporter_port=0"};
  }
};

TEST_F(ProxyMetricsTest, SendsAndRefusalsAreCountedByCode) {
  std::smatch found;
  const std::string output = cluster_.proxy(0).output();
  ASSERT_TRUE(std::regex_search(output, found, std::regex(R"(proxy prometheus exporter on port (\d+))"))) << output;
  const auto port = static_cast<std::uint16_t>(std::stoi(found[1].str()));
  create_topic("ProxyMetrics");
  send_bodies("ProxyMetrics", {"one", "two"});
  EXPECT_EQ(send({message("bad topic", "0A000001000000000000000000010009", "x")}).status().code(), v2::ILLEGAL_TOPIC);
  const auto page = http_get(port);
  ASSERT_TRUE(page.is_ok()) << page.status().to_string();
  const std::string& body = page->body;
  EXPECT_NE(body.find("rocketmq_proxy_up{node_type=\"proxy\",proxy_mode=\"cluster\"} 1"), std::string::npos) << body;
  EXPECT_NE(body.find("request_code=\"send_message\",response_code=\"ok\",is_long_polling=\"false\",result=\"success\"} 2"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("request_code=\"send_message\",response_code=\"illegal_topic\""), std::string::npos) << body;
}

class ProxySqlFilterTest : public ProxyTest {
 protected:
  std::vector<std::string> broker_overrides() const override { return {"broker.enable_property_filter=true"}; }
};

// A SQL92 receive gets only the messages its expression selects; the others do not hold the
// group back: once the selected ones are acked, the group's offsets are past every message.
TEST_F(ProxySqlFilterTest, AReceiveGetsOnlyWhatItsSqlSelectsAndTheRestDoNotHoldTheGroup) {
  create_topic("ProxySql");
  int n = 0;
  for (const std::string price : {"5", "15", "25", "8"}) {
    auto m = message("ProxySql", "0A00000100000000000000000000A" + std::to_string(100 + n++), "price " + price);
    (*m.mutable_user_properties())["price"] = price;
    ASSERT_EQ(send({m}).status().code(), v2::OK);
  }
  std::vector<v2::Message> got;
  for (int i = 0; i < 20 && got.size() < 2; ++i) {  // dispatch may lag the sends a moment
    auto more = receive("ProxySql", "SqlGroup", 20'000, 500, 16, "price > 10");
    for (auto& each : more.messages) got.push_back(each);
  }
  std::set<std::string> bodies;
  for (const auto& each : got) bodies.insert(each.body());
  EXPECT_EQ(bodies, (std::set<std::string>{"price 15", "price 25"}));
  EXPECT_EQ(receive("ProxySql", "SqlGroup", 20'000, 300, 16, "price > 10").messages.size(), 0U);
  for (const auto& each : got) EXPECT_EQ(ack("ProxySql", "SqlGroup", each).status().code(), v2::OK);
  std::int64_t committed = 0;
  for (int q = 0; q < 4; ++q) {
    auto offset = instance_->api().query_consumer_offset(cluster_.broker_addr(0), "SqlGroup", {"ProxySql", "broker-a", q});
    if (offset) committed += *offset;
  }
  EXPECT_EQ(committed, 4);
  EXPECT_EQ(receive("ProxySql", "SqlGroup", 20'000, 0, 16, "price >").status.code(), v2::ILLEGAL_FILTER_EXPRESSION);
}

// Brokers that check an unended transaction after a second, every second.
class ProxyTransactionTest : public ProxyTest {
 protected:
  std::vector<std::string> broker_overrides() const override {
    return {"broker.transaction_time_out=1s", "broker.transaction_check_interval=1s"};
  }

  v2::EndTransactionResponse end(const std::string& topic, const v2::SendResultEntry& sent, v2::TransactionResolution resolution,
                                 v2::TransactionSource source = v2::SOURCE_CLIENT) {
    v2::EndTransactionRequest request;
    request.mutable_topic()->set_name(topic);
    request.set_message_id(sent.message_id());
    request.set_transaction_id(sent.transaction_id());
    request.set_resolution(resolution);
    request.set_source(source);
    v2::EndTransactionResponse response;
    grpc::ClientContext context;
    prepare(context);
    EXPECT_TRUE(stub_->EndTransaction(&context, request, &response).ok());
    return response;
  }

  static v2::Message half(const std::string& topic, const std::string& id, const std::string& body) {
    auto m = message(topic, id, body);
    m.mutable_system_properties()->set_message_type(v2::TRANSACTION);
    return m;
  }
};

TEST_F(ProxyTransactionTest, ACommittedHalfMessageIsDeliveredARolledBackOneNever) {
  create_topic("ProxyTx", {{"+message.type", "TRANSACTION"}});
  const auto committed = send({half("ProxyTx", "0A0000010000000000000000000000F1", "commit me")});
  const auto rolled_back = send({half("ProxyTx", "0A0000010000000000000000000000F2", "roll me back")});
  ASSERT_EQ(committed.status().code(), v2::OK) << committed.status().message();
  ASSERT_EQ(rolled_back.status().code(), v2::OK);
  EXPECT_FALSE(committed.entries(0).transaction_id().empty());
  for (int q = 0; q < 4; ++q) EXPECT_TRUE(pull_all("ProxyTx", q).empty());  // halves wait in the broker's half topic
  EXPECT_EQ(end("ProxyTx", committed.entries(0), v2::COMMIT).status().code(), v2::OK);
  EXPECT_EQ(end("ProxyTx", rolled_back.entries(0), v2::ROLLBACK).status().code(), v2::OK);
  const auto delivered = pull_all_of_topic("ProxyTx", 1);
  ASSERT_EQ(delivered.size(), 1U);
  EXPECT_EQ(delivered[0].body(), "commit me");
  v2::SendResultEntry forged;
  forged.set_transaction_id("not one of ours");
  EXPECT_EQ(end("ProxyTx", forged, v2::COMMIT).status().code(), v2::INVALID_TRANSACTION_ID);
}

TEST_F(ProxyTransactionTest, AnOrphanedTransactionIsCheckedWithTheProducerOnItsTelemetryStream) {
  create_topic("ProxyOrphan", {{"+message.type", "TRANSACTION"}});
  grpc::ClientContext context;
  prepare(context);
  auto stream = stub_->Telemetry(&context);
  v2::TelemetryCommand hello;
  hello.mutable_settings()->set_client_type(v2::PRODUCER);
  hello.mutable_settings()->mutable_publishing()->add_topics()->set_name("ProxyOrphan");
  ASSERT_TRUE(stream->Write(hello));
  v2::TelemetryCommand reply;
  ASSERT_TRUE(stream->Read(&reply));
  ASSERT_EQ(reply.status().code(), v2::OK);

  const auto sent = send({half("ProxyOrphan", "0A0000010000000000000000000000F3", "orphan")});
  ASSERT_EQ(sent.status().code(), v2::OK) << sent.status().message();
  // Never ended: the broker asks, the proxy passes the question to this producer's stream.
  v2::TelemetryCommand check;
  ASSERT_TRUE(stream->Read(&check));
  ASSERT_TRUE(check.has_recover_orphaned_transaction_command()) << check.DebugString();
  const auto& recover = check.recover_orphaned_transaction_command();
  EXPECT_EQ(recover.message().body(), "orphan");
  EXPECT_EQ(recover.message().topic().name(), "ProxyOrphan");
  EXPECT_EQ(recover.message().system_properties().message_id(), "0A0000010000000000000000000000F3");
  v2::SendResultEntry answer;
  answer.set_message_id(recover.message().system_properties().message_id());
  answer.set_transaction_id(recover.transaction_id());
  EXPECT_EQ(end("ProxyOrphan", answer, v2::COMMIT, v2::SOURCE_SERVER_CHECK).status().code(), v2::OK);
  const auto delivered = pull_all_of_topic("ProxyOrphan", 1);
  ASSERT_EQ(delivered.size(), 1U);
  EXPECT_EQ(delivered[0].body(), "orphan");
  context.TryCancel();
}

// TLS toward gRPC clients (tls_mode): RocketMQ 5's Java client connects with TLS unless told not
// to, and trusts whatever certificate the proxy shows.
class ProxyTlsTest : public ProxyTest {
 protected:
  std::vector<std::string> proxy_overrides() override {
    return {"proxy.tls_mode=enforcing", "proxy.tls_cert_file=" + identity_.cert, "proxy.tls_key_file=" + identity_.key};
  }
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials() override { return trusting(identity_.cert); }
  // TLS trusting the certificate in `cert_file` alone.
  static std::shared_ptr<grpc::ChannelCredentials> trusting(const std::string& cert_file) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = pem(cert_file);
    return grpc::SslCredentials(options);
  }
  static std::string pem(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // A QueryRoute through a channel of its own: whether the call got through.
  grpc::Status route_through(const std::string& address, const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
    auto stub = v2::MessagingService::NewStub(grpc::CreateChannel(address, credentials));
    v2::QueryRouteRequest request;
    request.mutable_topic()->set_name("ProxyTls");
    v2::QueryRouteResponse response;
    grpc::ClientContext context;
    prepare(context);
    context.set_deadline(std::chrono::system_clock::now() + 3s);
    return stub->QueryRoute(&context, request, &response);
  }

  std::filesystem::path dir_ = fresh_directory("proxy-tls");
  TlsIdentity identity_ = make_tls_identity(dir_, "proxy");
};

TEST_F(ProxyTlsTest, ClientsSendOverTlsAndPlaintextIsRefused) {
  create_topic("ProxyTls");
  ASSERT_EQ(send({message("ProxyTls", "0A000001000000000000000000010001", "over tls")}).status().code(), v2::OK);
  const auto stored = pull_all_of_topic("ProxyTls", 1);
  ASSERT_EQ(stored.size(), 1U);
  EXPECT_EQ(stored[0].body(), "over tls");
  EXPECT_FALSE(route_through(cluster_.proxy_addr(0), grpc::InsecureChannelCredentials()).ok())
      << "a plaintext client got through an enforcing proxy";
}

// Without certificate files the proxy makes a self-signed certificate at start; a client that
// does not verify certificates (as RocketMQ 5's Java client does not) connects.
class ProxySelfSignedTlsTest : public ProxyTlsTest {
 protected:
  std::vector<std::string> proxy_overrides() override { return {"proxy.tls_mode=enforcing"}; }
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials() override {
    grpc::experimental::TlsChannelCredentialsOptions options;
    options.set_verify_server_certs(false);
    return grpc::experimental::TlsCredentials(options);
  }
};

TEST_F(ProxySelfSignedTlsTest, ClientsThatTrustAnyCertificateConnect) {
  create_topic("ProxyTls");
  ASSERT_EQ(send({message("ProxyTls", "0A000001000000000000000000010002", "self-signed")}).status().code(), v2::OK);
  EXPECT_EQ(pull_all_of_topic("ProxyTls", 1).size(), 1U);
  // A client that verifies against its own CA refuses the made-up certificate.
  EXPECT_FALSE(route_through(cluster_.proxy_addr(0), trusting(identity_.cert)).ok());
}

// Permissive: plaintext on listen_port (the ready line's) and TLS on tls_listen_port (in the log).
class ProxyPermissiveTlsTest : public ProxyTlsTest {
 protected:
  std::vector<std::string> proxy_overrides() override {
    auto overrides = ProxyTlsTest::proxy_overrides();
    overrides[0] = "proxy.tls_mode=permissive";
    overrides.push_back("proxy.tls_listen_port=0");
    return overrides;
  }
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials() override { return grpc::InsecureChannelCredentials(); }
};

TEST_F(ProxyPermissiveTlsTest, PlaintextOnOnePortAndTlsOnTheOther) {
  const std::string log = cluster_.proxy(0).log_tail(20'000);
  std::smatch found;
  ASSERT_TRUE(std::regex_search(log, found, std::regex(R"(\(plaintext\) and 127\.0\.0\.1:(\d+) \(TLS\))"))) << log;
  const std::string tls_address = "127.0.0.1:" + found[1].str();
  create_topic("ProxyTls");
  EXPECT_TRUE(route_through(cluster_.proxy_addr(0), grpc::InsecureChannelCredentials()).ok());
  EXPECT_TRUE(route_through(tls_address, ProxyTlsTest::channel_credentials()).ok());
  EXPECT_FALSE(route_through(tls_address, grpc::InsecureChannelCredentials()).ok());
}

}  // namespace
}  // namespace mqkit::testing
