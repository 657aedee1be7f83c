// The remoting plugin on the wire: bytes as third-party clients send them, malformed and
// oversized input, the connection timeouts, and the flow-control settings.
#include <gtest/gtest.h>

#include <atomic>
#include <initializer_list>
#include <set>
#include <thread>

#include "raw_client.hpp"
#include "transport_test_util.hpp"
#include "transports/remoting/codec/byte_order.hpp"
#include "transports/remoting/codec/frame_codec.hpp"
#include "transports/remoting/tests/codec_test_util.hpp"

namespace mqkit::transport_testing {
namespace {

using plugins::transports::remoting::encode_frame;
using plugins::transports::remoting::flatten;
using plugins::transports::remoting::testing::from_hex;
using plugins::transports::remoting::testing::json_frame;
using v1::RemotingCommand;
using v1::StatusCode;

class RemotingWire : public ::testing::Test {
 protected:
  void TearDown() override {
    for (auto& t : transports_) t->shutdown();
  }

  std::shared_ptr<v1::Transport> transport(const std::map<std::string, std::string>& config = {}) {
    auto t = load_transport("remoting", config);
    EXPECT_TRUE(t);
    if (t) transports_.push_back(t);
    return t;
  }

  std::uint16_t serve(std::shared_ptr<v1::RequestHandler> handler, const std::map<std::string, std::string>& config = {}) {
    auto server = transport(config);
    if (!server) return 0;
    auto port = server->listen({.host = "127.0.0.1", .port = 0}, std::move(handler));
    EXPECT_TRUE(port.is_ok()) << port.status().to_string();
    return port.is_ok() ? *port : 0;
  }

  // A server answering every request at once, except code 1, which holds its worker (opening
  // `started`) until `release` opens.
  std::uint16_t serve_holding_code_1(Gate& started, Gate& release, const std::map<std::string, std::string>& config) {
    return serve(std::make_shared<FnHandler>([&started, &release](const auto& channel, RemotingCommand request) {
                   if (request.code == 1) {
                     started.open();
                     release.wait();
                   }
                   (void)channel->send(RemotingCommand::response_to(request, 0));
                 }),
                 config);
  }

  AtScopeExit shutdown_at_exit() {
    return AtScopeExit([this] {
      for (auto& t : transports_) t->shutdown();
    });
  }

  std::vector<std::shared_ptr<v1::Transport>> transports_;
};

TEST_F(RemotingWire, AliOnsStyleJsonRequest) {
  std::optional<RemotingCommand> seen;
  std::mutex mutex;
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    {
      std::lock_guard lock(mutex);
      seen = request;
    }
    auto response = RemotingCommand::response_to(request, 0);
    response.ext_fields.set("offset", std::int64_t{42});
    (void)channel->send(std::move(response));
  }));
  RawClient raw(port);
  // QUERY_CONSUMER_OFFSET exactly as ali-ons writes it: numbers and booleans stay JSON scalars.
  raw.write(json_frame(R"({"code":14,"language":"JAVA","opaque":5,"flag":0,"version":121,)"
                       R"("extFields":{"topic":"T","consumerGroup":"G","queueId":0,"unitMode":false}})"));
  auto response = raw.read_frame();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->opaque, 5);
  EXPECT_EQ(response->ext_fields.get("offset"), "42");
  // The header ali-ons parses: a JSON serialization byte, numeric code/opaque, response flag.
  ASSERT_GE(raw.received().size(), 8u);
  EXPECT_EQ(raw.received()[4], '\0');
  EXPECT_NE(raw.received().find(R"("code":0,)"), std::string::npos) << raw.received();
  EXPECT_NE(raw.received().find(R"("opaque":5,)"), std::string::npos) << raw.received();
  EXPECT_NE(raw.received().find(R"("flag":1,)"), std::string::npos) << raw.received();

  std::lock_guard lock(mutex);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->language, v1::LanguageCode::kJava);
  EXPECT_EQ(seen->version, 121);
  EXPECT_EQ(seen->ext_fields.get("queueId"), "0");
  EXPECT_EQ(seen->ext_fields.get("unitMode"), "false");
}

TEST_F(RemotingWire, BinaryRequestGetsABinaryResponse) {
  const std::uint16_t port = serve(echo_handler());
  RawClient raw(port);
  // The ROCKETMQ-header GET_ROUTEINFO_BY_TOPIC of rocketmq-facts.md §1.4.
  raw.write(from_hex("00000025 01000021 0069 00 0191 00000001 00000000 00000000 0000000c 0005 746f706963 00000001 54"));
  auto response = raw.read_frame();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->serialize_type, v1::SerializeType::kRocketMq);
  EXPECT_EQ(response->opaque, 1);
  EXPECT_EQ(response->ext_fields.get("topic"), "T");
  EXPECT_EQ(static_cast<std::uint8_t>(raw.received()[4]), 1);
}

TEST_F(RemotingWire, OneWayRequestIsNeverAnsweredEvenWhenRefused) {
  const std::uint16_t port = serve(nullptr);
  RawClient raw(port);
  raw.write(json_frame(R"({"code":77,"opaque":1,"flag":2})"));
  raw.write(json_frame(R"({"code":78,"opaque":2,"flag":0})"));
  auto response = raw.read_frame();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->opaque, 2) << "the one-way request got an answer";
  EXPECT_EQ(response->code, 3);
  EXPECT_EQ(response->remark, " request type 78 not supported");
}

TEST_F(RemotingWire, AnswersLargerThanTheSocketBuffersArriveWhole) {
  // Answers are written straight from the answering thread while the socket takes them; a peer
  // that does not read makes those writes partial, and the strand must carry on from the exact
  // byte where they stopped, through the body and the stored slices alike.
  constexpr int kAnswers = 8;
  constexpr std::size_t kPart = 512 * 1024;
  auto fill = [](int i, char base) { return std::string(kPart, static_cast<char>(base + i)); };
  std::vector<std::shared_ptr<std::string>> slices;
  for (int i = 0; i < kAnswers; ++i) slices.push_back(std::make_shared<std::string>(fill(i, 'A')));
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
    const int i = request.opaque - 1;
    auto response = RemotingCommand::response_to(request, 0);
    response.body = bytes_of(fill(i, 'a'));
    const auto& slice = slices.at(static_cast<std::size_t>(i));
    response.body_slices.push_back({{reinterpret_cast<const std::uint8_t*>(slice->data()), slice->size()}, slice});
    EXPECT_TRUE(channel->send(std::move(response)).is_ok());
  }), {{"max_queue_wait", "0"}});  // slow builds (sanitizers) must not turn requests away
  RawClient raw(port);
  for (int i = 1; i <= kAnswers; ++i) {
    raw.write(json_frame(R"({"code":20,"opaque":)" + std::to_string(i) + R"(,"flag":0})"));
  }
  std::this_thread::sleep_for(100ms);  // not needed for correctness: lets the socket fill first
  // Requests that came in different reads are answered by different workers, in any order.
  std::set<int> answered;
  for (int n = 0; n < kAnswers; ++n) {
    auto response = raw.read_frame();
    ASSERT_TRUE(response) << "answer " << n;
    const int i = response->opaque - 1;
    ASSERT_TRUE(i >= 0 && i < kAnswers && answered.insert(i).second) << "opaque " << response->opaque;
    EXPECT_EQ(response->code, 0) << response->remark.value_or("");
    ASSERT_EQ(response->body.size(), 2 * kPart) << "answer " << i;
    EXPECT_TRUE(text_of(response->body) == fill(i, 'a') + fill(i, 'A')) << "answer " << i << " differs";
  }
}

TEST_F(RemotingWire, SendersOnManyThreadsNeverInterleaveTheirFrames) {
  // Threads sending on one channel take turns at the socket: the one writing releases the send
  // lock around its sendmsg and picks up what the others queued meanwhile. Every frame must
  // still arrive whole, and each thread's frames in the order it sent them, through direct
  // writes, partial writes (bodies up to 192 KiB against a peer that reads late) and the strand.
  constexpr int kThreads = 6;
  constexpr int kFramesPerThread = 60;
  auto body_of = [](int thread, int seq) {
    const std::size_t size = seq % 10 == 9 ? 192 * 1024 : 64 + static_cast<std::size_t>(seq * 37 % 3000);
    return std::string(size, static_cast<char>('a' + thread)) + ":" + std::to_string(seq);
  };
  std::vector<std::thread> senders;
  Gate started;
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand) {
    for (int t = 0; t < kThreads; ++t) {
      senders.emplace_back([channel, t, &body_of] {
        for (int seq = 0; seq < kFramesPerThread; ++seq) {
          auto request = request_with_body(100 + t, body_of(t, seq));
          request.flag = RemotingCommand::kOnewayFlag;
          EXPECT_TRUE(channel->send(std::move(request)).is_ok()) << "thread " << t << " frame " << seq;
        }
      });
    }
    started.open();
  }), {{"max_queue_wait", "0"}, {"max_send_queue_bytes", "64MiB"}});
  RawClient raw(port);
  raw.write(json_frame(R"({"code":20,"opaque":1,"flag":2})"));
  std::this_thread::sleep_for(50ms);  // not needed for correctness: lets socket buffers fill
  std::vector<int> next_seq(kThreads, 0);
  for (int n = 0; n < kThreads * kFramesPerThread; ++n) {
    auto frame = raw.read_frame();
    ASSERT_TRUE(frame) << "frame " << n << " of " << kThreads * kFramesPerThread;
    const int t = frame->code - 100;
    ASSERT_TRUE(t >= 0 && t < kThreads) << "code " << frame->code;
    const int seq = next_seq[static_cast<std::size_t>(t)]++;
    ASSERT_TRUE(text_of(frame->body) == body_of(t, seq))
        << "thread " << t << " frame " << seq << " arrived as " << frame->body.size() << " bytes ending "
        << text_of(frame->body).substr(frame->body.size() - std::min<std::size_t>(frame->body.size(), 8));
  }
  ASSERT_TRUE(started.wait());
  for (auto& sender : senders) sender.join();
}

TEST_F(RemotingWire, ClosingWhileThreadsSendIsOrderly) {
  // A close while other threads are in the middle of direct writes waits for their sendmsg and
  // fails every later send with Unavailable; nothing writes to the closed descriptor (the
  // sanitizer builds would see a use after free or a race).
  constexpr int kThreads = 4;
  std::vector<std::thread> senders;
  std::atomic<int> refused{0};
  Gate sending;
  Gate started;
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand) {
    for (int t = 0; t < kThreads; ++t) {
      senders.emplace_back([channel, &refused, &sending] {
        const auto give_up = std::chrono::steady_clock::now() + 20s;
        for (int sent = 0; std::chrono::steady_clock::now() < give_up; ++sent) {
          if (sent == 10) sending.open();
          auto request = request_with_body(100, std::string(512, 'x'));
          request.flag = RemotingCommand::kOnewayFlag;
          const v1::Status status = channel->send(std::move(request));
          if (status.code() == StatusCode::kResourceExhausted) {
            std::this_thread::sleep_for(1ms);  // the peer reads nothing: the send queue is full
          } else if (!status.is_ok()) {
            EXPECT_EQ(status.code(), StatusCode::kUnavailable) << status.to_string();
            refused.fetch_add(1);
            return;
          }
        }
      });
    }
    started.open();
    sending.wait();
    channel->close();
  }), {{"max_queue_wait", "0"}});
  RawClient raw(port);
  raw.write(json_frame(R"({"code":20,"opaque":1,"flag":2})"));
  EXPECT_TRUE(raw.closed_by_peer());
  ASSERT_TRUE(started.wait());
  for (auto& sender : senders) sender.join();
  EXPECT_EQ(refused.load(), kThreads) << "a sender never saw the close";
}

TEST_F(RemotingWire, OversizedFrameClosesTheConnection) {
  const std::uint16_t port = serve(echo_handler(), {{"max_frame_size", "64KiB"}});
  {
    RawClient raw(port);
    raw.write(from_hex("01312d00 00000010"));  // length 20000000
    EXPECT_TRUE(raw.closed_by_peer());
    EXPECT_TRUE(raw.received().empty());
  }
  // The server goes on serving others.
  RawClient next(port);
  next.write(json_frame(R"({"code":1,"opaque":9})"));
  auto response = next.read_frame();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->opaque, 9);
}

TEST_F(RemotingWire, OversizedRequestFromAClientFailsTheInvocation) {
  const std::uint16_t port = serve(echo_handler(), {{"max_frame_size", "64KiB"}});
  auto client = transport();
  Outcome outcome;
  client->invoke(loopback(port), request_with_body(10, std::string(100 * 1024, 'x')), 10s, outcome.callback());
  EXPECT_EQ(outcome.wait().status().code(), StatusCode::kUnavailable) << "the server hung up";

  // A client with the smaller limit refuses to send it at all.
  auto small = transport({{"max_frame_size", "64KiB"}});
  Outcome refused;
  small->invoke(loopback(port), request_with_body(10, std::string(100 * 1024, 'x')), 10s, refused.callback());
  auto status = refused.wait().status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("exceeds the maximum 65536"), std::string::npos) << status.message();
}

TEST_F(RemotingWire, MalformedFramesCloseTheConnection) {
  const std::uint16_t port = serve(echo_handler());
  const std::vector<std::vector<std::uint8_t>> bad = {
      from_hex("00000002"),                     // length below 4
      from_hex("00000010 0500000c"),            // unknown serialize type
      from_hex("00000008 00000010 7b7d7b7d"),   // header longer than the frame
      json_frame(R"({"opaque":1})"),            // no code
      json_frame(R"({"code":1,"extFields":[)"),  // malformed JSON
      plugins::transports::remoting::testing::make_frame(1, from_hex("0001 00 0000 00000001 00000000 ffffffff")),
  };
  for (const auto& bytes : bad) {
    RawClient raw(port);
    raw.write(bytes);
    EXPECT_TRUE(raw.closed_by_peer());
    EXPECT_TRUE(raw.received().empty());
  }
}

TEST_F(RemotingWire, IncompleteFrameIsCutOffAfterReadTimeout) {
  const std::uint16_t port = serve(echo_handler(), {{"read_timeout", "200ms"}});
  RawClient raw(port);
  raw.write(from_hex("00000100 0000"));  // a frame of 256 bytes that never arrives
  EXPECT_TRUE(raw.closed_by_peer());
}

TEST_F(RemotingWire, SlowButSteadyFramesAreNotCutOff) {
  const std::uint16_t port = serve(echo_handler(), {{"read_timeout", "300ms"}});
  RawClient raw(port);
  for (int i = 0; i < 6; ++i) {
    raw.write(json_frame(R"({"code":1,"opaque":)" + std::to_string(i) + "}"));
    auto response = raw.read_frame();
    ASSERT_TRUE(response) << i;
    std::this_thread::sleep_for(100ms);  // whole frames with gaps: not a stalled frame
  }
}

TEST_F(RemotingWire, IdleConnectionIsClosed) {
  const std::uint16_t port = serve(echo_handler(), {{"idle_timeout", "200ms"}});
  RawClient raw(port);
  EXPECT_TRUE(raw.closed_by_peer());
}

TEST_F(RemotingWire, RequestThatWaitedTooLongIsAnsweredSystemBusy) {
  Gate started;
  Gate release;
  std::atomic<int> handled{0};
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
                                     ++handled;
                                     if (request.code == 1) {
                                       started.open();
                                       release.wait();
                                     }
                                     (void)channel->send(RemotingCommand::response_to(request, 0));
                                   }),
                                   {{"worker_threads", "1"}, {"max_queue_wait", "50ms"}, {"inline_max_requests", "0"}});
  auto client = transport();
  Outcome slow;
  client->invoke(loopback(port), RemotingCommand::request(1), 10s, slow.callback());
  ASSERT_TRUE(started.wait());
  Outcome queued;
  client->invoke(loopback(port), RemotingCommand::request(2), 10s, queued.callback());
  std::this_thread::sleep_for(300ms);  // request 2 now waits behind request 1 for longer than 50ms
  release.open();

  ASSERT_TRUE(slow.wait().is_ok());
  auto busy = queued.wait();
  ASSERT_TRUE(busy.is_ok()) << busy.status().to_string();
  EXPECT_EQ(busy->code, 2);
  ASSERT_TRUE(busy->remark);
  EXPECT_EQ(busy->remark->rfind("[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: ", 0), 0u)
      << *busy->remark;
  EXPECT_NE(busy->remark->find("ms, size of queue: 0"), std::string::npos) << *busy->remark;
  EXPECT_EQ(handled.load(), 1) << "the late request never reached the handler";
}

TEST_F(RemotingWire, PullsMayWaitLongerThanSendsForAWorker) {
  constexpr std::int32_t kPullMessage = 11;
  constexpr std::int32_t kSendMessageV2 = 310;
  Gate started;
  Gate release;
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve_holding_code_1(
      started, release,
      {{"worker_threads", "1"}, {"max_queue_wait", "50ms"}, {"max_queue_wait_pull", "10s"}, {"inline_max_requests", "0"}});
  auto client = transport();
  Outcome slow;
  client->invoke(loopback(port), RemotingCommand::request(1), 10s, slow.callback());
  ASSERT_TRUE(started.wait());
  Outcome pull;
  Outcome send;
  client->invoke(loopback(port), RemotingCommand::request(kPullMessage), 10s, pull.callback());
  client->invoke(loopback(port), RemotingCommand::request(kSendMessageV2), 10s, send.callback());
  std::this_thread::sleep_for(300ms);  // both now wait behind request 1 for longer than 50ms
  release.open();

  ASSERT_TRUE(slow.wait().is_ok());
  auto pulled = pull.wait();
  ASSERT_TRUE(pulled.is_ok()) << pulled.status().to_string();
  EXPECT_EQ(pulled->code, 0) << "the pull was within its 10s budget";
  auto sent = send.wait();
  ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
  EXPECT_EQ(sent->code, 2) << "the send was past its 50ms budget";
}

// Frames of requests with `code`, one per opaque, in one buffer: written at once, they arrive in
// one read.
std::vector<std::uint8_t> requests_in_one_write(std::int32_t code, std::initializer_list<int> opaques) {
  std::vector<std::uint8_t> bytes;
  for (const int opaque : opaques) {
    const auto frame = json_frame(R"({"code":)" + std::to_string(code) + R"(,"opaque":)" + std::to_string(opaque) +
                                  R"(,"flag":0})");
    bytes.insert(bytes.end(), frame.begin(), frame.end());
  }
  return bytes;
}

// Quick requests (sends, here) that come at most inline_max_requests (default 4) to a read are
// handled by the io thread: they are answered while the only worker is busy. More to a read, or
// a read that also brings a request of another kind, wait for the workers.
TEST_F(RemotingWire, FewQuickRequestsToAReadDoNotWaitForABusyWorker) {
  constexpr std::int32_t kSendMessageV2 = 310;
  Gate started;
  Gate release;
  Outcome slow;  // outlives the transports: their shutdown fires its callback
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve_holding_code_1(started, release, {{"worker_threads", "1"}});
  auto client = transport();
  client->invoke(loopback(port), RemotingCommand::request(1), 10s, slow.callback());
  ASSERT_TRUE(started.wait());

  RawClient raw(port);
  raw.write(requests_in_one_write(kSendMessageV2, {7}));
  raw.write(requests_in_one_write(kSendMessageV2, {8, 9}));
  for (const int opaque : {7, 8, 9}) {
    auto answer = raw.read_frame(5s);
    ASSERT_TRUE(answer) << "send " << opaque << " waited for the busy worker";
    EXPECT_EQ(answer->opaque, opaque);
    EXPECT_EQ(answer->code, 0);
  }

  raw.write(requests_in_one_write(kSendMessageV2, {10, 11, 12, 13, 14}));
  EXPECT_FALSE(raw.read_frame(300ms)) << "five pipelined sends were handled while the only worker was busy";
  auto mixed = requests_in_one_write(kSendMessageV2, {15});
  const auto other_kind = requests_in_one_write(2, {16});
  mixed.insert(mixed.end(), other_kind.begin(), other_kind.end());
  raw.write(mixed);
  EXPECT_FALSE(raw.read_frame(300ms)) << "a send read with a request of another kind did not wait for the worker";
  release.open();
  ASSERT_TRUE(slow.wait().is_ok());
  for (const int opaque : {10, 11, 12, 13, 14, 15, 16}) {
    auto answer = raw.read_frame();
    ASSERT_TRUE(answer) << opaque;
    EXPECT_EQ(answer->opaque, opaque);
  }
}

TEST_F(RemotingWire, RequestsWaitForAWorkerWhenInliningIsOff) {
  Gate started;
  Gate release;
  Outcome slow;  // outlives the transports: their shutdown fires its callback
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve_holding_code_1(started, release, {{"worker_threads", "1"}, {"inline_max_requests", "0"}});
  auto client = transport();
  client->invoke(loopback(port), RemotingCommand::request(1), 10s, slow.callback());
  ASSERT_TRUE(started.wait());
  RawClient raw(port);
  raw.write(json_frame(R"({"code":310,"opaque":7,"flag":0})"));
  EXPECT_FALSE(raw.read_frame(300ms)) << "the send was handled while the only worker was busy";
  release.open();
  auto answer = raw.read_frame();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->opaque, 7);
  ASSERT_TRUE(slow.wait().is_ok());
}

TEST_F(RemotingWire, InFlightBoundStopsReadingFromTheConnection) {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
                                     const int now = ++running;
                                     int seen = most.load();
                                     while (now > seen && !most.compare_exchange_weak(seen, now)) {
                                     }
                                     std::this_thread::sleep_for(20ms);
                                     --running;
                                     (void)channel->send(RemotingCommand::response_to(request, 0));
                                   }),
                                   {{"worker_threads", "4"}, {"max_in_flight_per_connection", "1"}, {"max_queue_wait", "0"}});
  auto client = transport();
  std::vector<std::unique_ptr<Outcome>> outcomes;
  for (int i = 0; i < 8; ++i) {
    outcomes.push_back(std::make_unique<Outcome>());
    client->invoke(loopback(port), RemotingCommand::request(i), 10s, outcomes.back()->callback());
  }
  for (auto& outcome : outcomes) EXPECT_TRUE(outcome->wait().is_ok());
  EXPECT_EQ(most.load(), 1) << "one request at a time despite four workers";
}

TEST_F(RemotingWire, AConnectionPausedAtItsBoundReadsAgainUntilEveryRequestIsAnswered) {
  // Many pause/resume rounds: the bound is reached again and again while the peer pipelines, and
  // the connection must be woken each time (once half the bound has drained) or the peer stalls.
  std::atomic<int> handled{0};
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto& channel, RemotingCommand request) {
                                     std::this_thread::sleep_for(100us);
                                     ++handled;
                                     (void)channel->send(RemotingCommand::response_to(request, 0));
                                   }),
                                   {{"worker_threads", "2"}, {"max_in_flight_per_connection", "6"}, {"max_queue_wait", "0"}});
  auto client = transport();
  constexpr int kRequests = 300;
  std::vector<std::unique_ptr<Outcome>> outcomes;
  for (int i = 0; i < kRequests; ++i) {
    outcomes.push_back(std::make_unique<Outcome>());
    client->invoke(loopback(port), RemotingCommand::request(1000 + i), 20s, outcomes.back()->callback());
  }
  for (auto& outcome : outcomes) EXPECT_TRUE(outcome->wait().is_ok());
  EXPECT_EQ(handled.load(), kRequests);
}

TEST_F(RemotingWire, SendQueueBoundRefusesFurtherFrames) {
  Gate release;
  const auto stop = shutdown_at_exit();
  const std::uint16_t port = serve(std::make_shared<FnHandler>([&](const auto&, RemotingCommand) { release.wait(); }),
                                   {{"max_in_flight_per_connection", "1"}});
  auto client = transport({{"max_send_queue_bytes", "1MiB"}});
  auto channel = client->connect(loopback(port), nullptr);
  ASSERT_TRUE(channel.is_ok());
  // The server stops reading after the first request, so socket buffers fill and then the
  // client's own queue; at most 128 frames of 256 KiB are tried.
  v1::Status status;
  int sent = 0;
  for (; sent < 128; ++sent) {
    auto request = request_with_body(15, std::string(256 * 1024, 'q'));
    request.flag = RemotingCommand::kOnewayFlag;
    status = (*channel)->send(std::move(request));
    if (!status.is_ok()) break;
    if (sent > 0) std::this_thread::sleep_for(2ms);
  }
  release.open();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << "after " << sent << " frames";
  EXPECT_NE(status.message().find("max_send_queue_bytes 1048576"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace mqkit::transport_testing
