// What every transport plugin must do, through the v1 interfaces only: loads each built
// transport .so with the kernel's loader and runs a server and a client over loopback.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "transport_test_util.hpp"

namespace mqkit::transport_testing {
namespace {

using v1::RemotingCommand;
using v1::SerializeType;
using v1::StatusCode;

class TransportConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    server_ = load_transport(GetParam());
    client_ = load_transport(GetParam());
    ASSERT_TRUE(server_ && client_);
  }
  void TearDown() override {
    if (client_) client_->shutdown();
    if (server_) server_->shutdown();
  }

  // Starts serving with `handler` on an ephemeral loopback port; returns "127.0.0.1:port".
  std::string serve(std::shared_ptr<v1::RequestHandler> handler) {
    auto port = server_->listen({.host = "127.0.0.1", .port = 0}, std::move(handler));
    EXPECT_TRUE(port.is_ok()) << port.status().to_string();
    return port.is_ok() ? loopback(*port) : std::string();
  }

  v1::Result<RemotingCommand> call(const std::string& address, RemotingCommand request,
                                   std::chrono::milliseconds timeout = 5s) {
    Outcome outcome;
    client_->invoke(address, std::move(request), timeout, outcome.callback());
    return outcome.wait();
  }

  AtScopeExit shutdown_at_exit() {
    return AtScopeExit([this] {
      client_->shutdown();
      server_->shutdown();
    });
  }

  std::shared_ptr<v1::Transport> server_;
  std::shared_ptr<v1::Transport> client_;
};

TEST_P(TransportConformance, RequestAndResponse) {
  const std::string address = serve(echo_handler());
  auto request = request_with_body(105, "payload");
  request.ext_fields.set("topic", std::string("TopicTest"));
  auto response = call(address, std::move(request));
  ASSERT_TRUE(response.is_ok()) << response.status().to_string();
  EXPECT_TRUE(response->is_response());
  EXPECT_EQ(response->code, 0);
  EXPECT_EQ(response->remark, "echo");
  EXPECT_EQ(response->ext_fields.get("topic"), "TopicTest");
  EXPECT_EQ(text_of(response->body), "payload");
  EXPECT_EQ(response->serialize_type, SerializeType::kJson);
}

TEST_P(TransportConformance, ResponseUsesTheRequestSerialization) {
  const std::string address = serve(echo_handler());
  for (SerializeType type : {SerializeType::kRocketMq, SerializeType::kJson}) {
    auto request = request_with_body(310, "m");
    request.serialize_type = type;
    request.ext_fields.set("a", std::string("group"));
    auto response = call(address, std::move(request));
    ASSERT_TRUE(response.is_ok()) << response.status().to_string();
    EXPECT_EQ(response->serialize_type, type);
    EXPECT_EQ(response->ext_fields.get("a"), "group");
  }
}

TEST_P(TransportConformance, ConnectionsArePooledPerAddress) {
  std::mutex mutex;
  std::set<std::uint64_t> server_channels;
  const auto stop = shutdown_at_exit();
  const std::string address = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    {
      std::lock_guard lock(mutex);
      server_channels.insert(channel->id());
    }
    (void)channel->send(RemotingCommand::response_to(request, 0));
  }));

  constexpr int kThreads = 8;
  std::vector<std::uint64_t> ids(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto channel = client_->connect(address, nullptr);
      ASSERT_TRUE(channel.is_ok()) << channel.status().to_string();
      ids[static_cast<std::size_t>(i)] = (*channel)->id();
      Outcome outcome;
      (*channel)->invoke(RemotingCommand::request(1), 5s, outcome.callback());
      EXPECT_TRUE(outcome.wait().is_ok());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(std::set<std::uint64_t>(ids.begin(), ids.end()).size(), 1u) << "one client connection";
  std::lock_guard lock(mutex);
  EXPECT_EQ(server_channels.size(), 1u) << "one server connection";
}

TEST_P(TransportConformance, ClosedConnectionIsReplacedOnNextUse) {
  const std::string address = serve(echo_handler());
  auto first = client_->connect(address, nullptr);
  ASSERT_TRUE(first.is_ok());
  EXPECT_TRUE((*first)->is_open());
  (*first)->close();
  EXPECT_FALSE((*first)->is_open());
  EXPECT_EQ((*first)->send(RemotingCommand::request(1)).code(), StatusCode::kUnavailable);
  Outcome on_closed;
  (*first)->invoke(RemotingCommand::request(1), 5s, on_closed.callback());
  EXPECT_EQ(on_closed.wait().status().code(), StatusCode::kUnavailable);

  auto second = client_->connect(address, nullptr);
  ASSERT_TRUE(second.is_ok());
  EXPECT_NE((*second)->id(), (*first)->id());
  EXPECT_TRUE(call(address, RemotingCommand::request(2)).is_ok());
}

TEST_P(TransportConformance, ConcurrentInvokesAreMatchedByOpaque) {
  const std::string address = serve(echo_handler());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  std::atomic<int> matched{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::unique_ptr<Outcome>> outcomes;
      std::vector<std::string> bodies;
      for (int i = 0; i < kPerThread; ++i) {
        bodies.push_back("t" + std::to_string(t) + "-i" + std::to_string(i));
        outcomes.push_back(std::make_unique<Outcome>());
        client_->invoke(address, request_with_body(t * 1000 + i, bodies.back()), 10s, outcomes.back()->callback());
      }
      for (int i = 0; i < kPerThread; ++i) {
        auto response = outcomes[static_cast<std::size_t>(i)]->wait();
        if (response.is_ok() && text_of(response->body) == bodies[static_cast<std::size_t>(i)]) ++matched;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(matched.load(), kThreads * kPerThread);
}

TEST_P(TransportConformance, OneWayRequestsAreDeliveredAndNeverAnswered) {
  std::atomic<int> one_way{0};
  const auto stop = shutdown_at_exit();
  const std::string address = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    if (request.is_oneway()) {
      ++one_way;
      return;
    }
    (void)channel->send(RemotingCommand::response_to(request, 0));
  }));
  auto channel = client_->connect(address, nullptr);
  ASSERT_TRUE(channel.is_ok());
  for (int i = 0; i < 10; ++i) {
    auto request = RemotingCommand::request(15);
    request.flag = RemotingCommand::kOnewayFlag;
    ASSERT_TRUE((*channel)->send(std::move(request)).is_ok());
  }
  EXPECT_TRUE(eventually([&] { return one_way.load() == 10; }));
  Outcome outcome;
  (*channel)->invoke(RemotingCommand::request(14), 5s, outcome.callback());
  ASSERT_TRUE(outcome.wait().is_ok());
}

TEST_P(TransportConformance, UnansweredRequestTimesOutExactlyOnce) {
  std::vector<std::pair<std::shared_ptr<v1::Channel>, RemotingCommand>> held;
  std::mutex mutex;
  const auto stop = shutdown_at_exit();
  const std::string address = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    std::lock_guard lock(mutex);
    held.emplace_back(channel, std::move(request));
  }));
  Outcome outcome;
  client_->invoke(address, RemotingCommand::request(900), 100ms, outcome.callback());
  auto result = outcome.wait();
  EXPECT_EQ(result.status().code(), StatusCode::kTimeout) << result.status().to_string();

  // A response arriving after the timeout is dropped: the callback is not called again.
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return !held.empty();
  }));
  {
    std::lock_guard lock(mutex);
    auto& [channel, request] = held.front();
    ASSERT_TRUE(channel->send(RemotingCommand::response_to(request, 0)).is_ok());
  }
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(outcome.calls(), 1);
}

TEST_P(TransportConformance, ServerSendsRequestsOverTheClientConnection) {
  std::shared_ptr<v1::Channel> client_seen_by_server;
  std::mutex mutex;
  const auto stop = shutdown_at_exit();
  const std::string address = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    {
      std::lock_guard lock(mutex);
      client_seen_by_server = channel;
    }
    (void)channel->send(RemotingCommand::response_to(request, 0));
  }));
  // The client answers NOTIFY_CONSUMER_IDS_CHANGED-style requests with its own marker.
  auto client_handler = std::make_shared<FnHandler>([](const auto& channel, RemotingCommand request) {
    auto response = RemotingCommand::response_to(request, 0);
    response.ext_fields.set("answered_by", std::string("client"));
    response.body = request.body;
    (void)channel->send(std::move(response));
  });
  auto channel = client_->connect(address, client_handler);
  ASSERT_TRUE(channel.is_ok());
  Outcome hello;
  (*channel)->invoke(RemotingCommand::request(34), 5s, hello.callback());
  ASSERT_TRUE(hello.wait().is_ok());

  std::shared_ptr<v1::Channel> server_side;
  {
    std::lock_guard lock(mutex);
    server_side = client_seen_by_server;
  }
  ASSERT_TRUE(server_side);
  EXPECT_EQ(server_side->remote_address(), (*channel)->local_address());
  EXPECT_EQ(server_side->local_address(), (*channel)->remote_address());
  Outcome notify;
  server_side->invoke(request_with_body(40, "ids changed"), 5s, notify.callback());
  auto response = notify.wait();
  ASSERT_TRUE(response.is_ok()) << response.status().to_string();
  EXPECT_EQ(response->ext_fields.get("answered_by"), "client");
  EXPECT_EQ(text_of(response->body), "ids changed");
}

TEST_P(TransportConformance, ClientWithoutHandlerRefusesServerRequests) {
  std::shared_ptr<v1::Channel> server_side;
  std::mutex mutex;
  const auto stop = shutdown_at_exit();
  const std::string address = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    {
      std::lock_guard lock(mutex);
      server_side = channel;
    }
    (void)channel->send(RemotingCommand::response_to(request, 0));
  }));
  ASSERT_TRUE(call(address, RemotingCommand::request(34)).is_ok());
  std::lock_guard lock(mutex);
  Outcome notify;
  server_side->invoke(RemotingCommand::request(40), 5s, notify.callback());
  auto response = notify.wait();
  ASSERT_TRUE(response.is_ok()) << response.status().to_string();
  EXPECT_EQ(response->code, 3);
  EXPECT_EQ(response->remark, " request type 40 not supported");
}

TEST_P(TransportConformance, NullHandlerAnswersRequestCodeNotSupported) {
  const std::string address = serve(nullptr);
  for (SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    auto request = RemotingCommand::request(77);
    request.serialize_type = type;
    auto response = call(address, std::move(request));
    ASSERT_TRUE(response.is_ok()) << response.status().to_string();
    EXPECT_EQ(response->code, 3);
    EXPECT_EQ(response->remark, " request type 77 not supported");
    EXPECT_EQ(response->serialize_type, type);
  }
}

TEST_P(TransportConformance, ConnectionDropFailsPendingInvokes) {
  auto server_handler = std::make_shared<FnHandler>([](const auto& channel, RemotingCommand) { channel->close(); });
  const std::string address = serve(server_handler);
  auto client_handler = std::make_shared<FnHandler>([](const auto&, RemotingCommand) {});
  auto channel = client_->connect(address, client_handler);
  ASSERT_TRUE(channel.is_ok());
  Outcome outcome;
  (*channel)->invoke(RemotingCommand::request(901), 10s, outcome.callback());
  auto result = outcome.wait(5s);
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable) << result.status().to_string();
  EXPECT_TRUE(eventually([&] { return !(*channel)->is_open(); }));
  EXPECT_TRUE(eventually([&] { return server_handler->closed() == 1 && client_handler->closed() == 1; }));
}

TEST_P(TransportConformance, LocalCloseFailsPendingInvokes) {
  const std::string address = serve(std::make_shared<FnHandler>([](const auto&, RemotingCommand) {}));
  auto channel = client_->connect(address, nullptr);
  ASSERT_TRUE(channel.is_ok());
  std::vector<std::unique_ptr<Outcome>> outcomes;
  for (int i = 0; i < 5; ++i) {
    outcomes.push_back(std::make_unique<Outcome>());
    (*channel)->invoke(RemotingCommand::request(902), 10s, outcomes.back()->callback());
  }
  (*channel)->close();
  for (auto& outcome : outcomes) {
    EXPECT_EQ(outcome->wait(5s).status().code(), StatusCode::kUnavailable);
    EXPECT_EQ(outcome->calls(), 1);
  }
}

TEST_P(TransportConformance, BodySlicesArriveIntactAndAreReleasedAfterTheWrite) {
  auto big = std::make_shared<std::vector<std::uint8_t>>(1024 * 1024);
  for (std::size_t i = 0; i < big->size(); ++i) (*big)[i] = static_cast<std::uint8_t>(i * 31 + 7);
  static const std::string kSmall = "|small slice|";
  std::weak_ptr<std::vector<std::uint8_t>> watch = big;
  std::string expected = "head";
  expected += kSmall;
  expected.append(big->begin(), big->end());
  expected += kSmall;

  const std::string address =
      serve(std::make_shared<FnHandler>([big = std::move(big)](const auto& channel, RemotingCommand request) mutable {
        auto response = RemotingCommand::response_to(request, 0);
        response.body = bytes_of("head");
        const std::span<const std::uint8_t> small(reinterpret_cast<const std::uint8_t*>(kSmall.data()), kSmall.size());
        response.body_slices.push_back({small, nullptr});
        response.body_slices.push_back({std::span<const std::uint8_t>(*big), big});
        response.body_slices.push_back({small, nullptr});
        big.reset();  // from here the frame alone keeps the bytes alive
        EXPECT_TRUE(channel->send(std::move(response)).is_ok());
      }));
  auto response = call(address, RemotingCommand::request(11));
  ASSERT_TRUE(response.is_ok()) << response.status().to_string();
  EXPECT_EQ(response->body.size(), expected.size());
  EXPECT_TRUE(text_of(response->body) == expected) << "body differs";
  EXPECT_TRUE(eventually([&] { return watch.expired(); })) << "keep_alive released once written";
}

TEST_P(TransportConformance, ConnectFailuresReportUnavailable) {
  // A port that was just free: listen, note it, shut the listener down.
  auto probe = load_transport(GetParam());
  auto port = probe->listen({.host = "127.0.0.1", .port = 0}, nullptr);
  ASSERT_TRUE(port.is_ok());
  probe->shutdown();
  const std::string address = loopback(*port);

  auto channel = client_->connect(address, nullptr);
  ASSERT_FALSE(channel.is_ok());
  EXPECT_EQ(channel.status().code(), StatusCode::kUnavailable) << channel.status().to_string();
  Outcome outcome;
  client_->invoke(address, RemotingCommand::request(1), 1s, outcome.callback());
  EXPECT_EQ(outcome.wait().status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(outcome.calls(), 1);

  EXPECT_EQ(client_->connect("no-port-here", nullptr).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(TransportConformance, ListensOnSeveralPorts) {
  const std::string first = serve(echo_handler());
  const std::string second = serve(echo_handler());
  EXPECT_NE(first, second);
  EXPECT_TRUE(call(first, RemotingCommand::request(1)).is_ok());
  EXPECT_TRUE(call(second, RemotingCommand::request(1)).is_ok());
}

TEST_P(TransportConformance, ShutdownFailsPendingInvokesAndIsIdempotent) {
  const std::string address = serve(std::make_shared<FnHandler>([](const auto&, RemotingCommand) {}));
  Outcome pending;
  client_->invoke(address, RemotingCommand::request(903), 30s, pending.callback());
  client_->shutdown();
  EXPECT_EQ(pending.wait(5s).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(pending.calls(), 1);
  client_->shutdown();

  Outcome after;
  client_->invoke(address, RemotingCommand::request(1), 1s, after.callback());
  EXPECT_EQ(after.wait().status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(client_->connect(address, nullptr).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(client_->listen({.host = "127.0.0.1", .port = 0}, nullptr).status().code(), StatusCode::kUnavailable);
}

TEST_P(TransportConformance, ServerShutdownDisconnectsClients) {
  const std::string address = serve(std::make_shared<FnHandler>([](const auto&, RemotingCommand) {}));
  auto channel = client_->connect(address, nullptr);
  ASSERT_TRUE(channel.is_ok());
  Outcome pending;
  (*channel)->invoke(RemotingCommand::request(904), 30s, pending.callback());
  server_->shutdown();
  EXPECT_EQ(pending.wait().status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(eventually([&] { return !(*channel)->is_open(); }));
}

std::vector<std::string> built_transports() {
  std::vector<std::string> names;
#ifdef MQKIT_WITH_REMOTING_TRANSPORT
  names.emplace_back("remoting");
#endif
  return names;
}

INSTANTIATE_TEST_SUITE_P(Builtins, TransportConformance, ::testing::ValuesIn(built_transports()),
                         [](const auto& test_param) { return test_param.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TransportConformance);

}  // namespace
}  // namespace mqkit::transport_testing
