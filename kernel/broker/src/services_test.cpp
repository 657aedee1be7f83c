#include <gtest/gtest.h>

#include <atomic>

#include "consume/consume_test_support.hpp"
#include "mqkit/broker/consumer_manager.hpp"
#include "mqkit/broker/long_polling_service.hpp"
#include "mqkit/broker/rebalance_lock_manager.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/broker/testing/fake_channel.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {
namespace {

using testing::FakeChannel;

protocol::ConsumerData consumer(std::string group, const std::vector<std::string>& topics) {
  return testing::consumer_data(std::move(group), topics);
}

ClientConnection connection(std::uint64_t id, std::string client_id, std::int64_t now = 0) {
  return {std::make_shared<FakeChannel>(id), std::move(client_id), plugin::v1::LanguageCode::kJava, 401, now};
}

TEST(ConsumerManagerTest, MembershipChangesNotifyTheGroup) {
  ConsumerManager m;
  std::vector<std::pair<std::string, std::size_t>> events;
  m.set_listener([&](const std::string& g, GroupEvent, const std::vector<ClientConnection>& members) {
    events.emplace_back(g, members.size());
  });
  EXPECT_TRUE(m.register_consumer(consumer("g", {"T"}), connection(1, "c1")));
  EXPECT_FALSE(m.register_consumer(consumer("g", {"T"}), connection(1, "c1", 10)));  // a plain heartbeat
  EXPECT_TRUE(m.register_consumer(consumer("g", {"T"}), connection(2, "c2")));
  EXPECT_EQ(m.client_ids("g"), (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(m.subscription("g", "T")->sub_string, "*");
  EXPECT_EQ(m.groups_subscribing("T"), std::set<std::string>{"g"});
  m.on_channel_closed(1);
  EXPECT_EQ(m.client_ids("g"), std::vector<std::string>{"c2"});
  EXPECT_EQ(events, (std::vector<std::pair<std::string, std::size_t>>{{"g", 1}, {"g", 2}, {"g", 1}}));
  EXPECT_EQ(m.expire(200'000, 120'000), 1u);
  EXPECT_FALSE(m.find("g").has_value());
}

TEST(RebalanceLockManagerTest, LocksAreExclusiveRenewableAndExpire) {
  RebalanceLockManager locks(60'000);
  const std::set<MessageQueue> qs{{"T", "b", 0}, {"T", "b", 1}};
  EXPECT_EQ(locks.try_lock("g", qs, "c1", 0), qs);
  EXPECT_TRUE(locks.try_lock("g", qs, "c2", 1000).empty());
  EXPECT_EQ(locks.try_lock("g", qs, "c1", 30'000), qs);  // renewal
  EXPECT_TRUE(locks.try_lock("g", qs, "c2", 80'000).empty());
  EXPECT_EQ(locks.try_lock("g", qs, "c2", 91'000), qs);  // c1's lock expired at 90 s
  locks.unlock("g", {{"T", "b", 0}}, "c1");              // not c1's any more: no effect
  EXPECT_TRUE(locks.is_locked_by("g", {"T", "b", 0}, "c2", 91'000));
  locks.unlock("g", {{"T", "b", 0}}, "c2");
  EXPECT_EQ(locks.try_lock("g", {{"T", "b", 0}}, "c3", 92'000).size(), 1u);
}

TEST(LongPollingServiceTest, ArrivalWakesOnlyPullsItSatisfies) {
  std::atomic<std::int64_t> now{0};
  LongPollingService service([&] { return now.load(); });
  int woken_a = 0, woken_b = 0;
  service.hold("T", 0, 5, 10'000, [&] { ++woken_a; });
  service.hold("T", 0, 7, 10'000, [&] { ++woken_b; });
  service.notify("T", 1, 100);  // another queue
  service.notify("T", 0, 5);    // offset 4 arrived: nobody waits for it
  EXPECT_EQ(woken_a + woken_b, 0);
  service.notify("T", 0, 6);    // offset 5 arrived
  EXPECT_EQ(woken_a, 1);
  EXPECT_EQ(woken_b, 0);
  plugin::v1::DispatchRecord record;
  record.topic = "T";
  record.queue_id = 0;
  record.queue_offset = 7;
  EXPECT_TRUE(service.dispatch(record).is_ok());
  EXPECT_EQ(woken_b, 1);
  EXPECT_EQ(service.held(), 0u);
}

TEST(LongPollingServiceTest, DeadlinesAndStopAnswerEveryHeldPull) {
  std::atomic<std::int64_t> now{0};
  LongPollingService service([&] { return now.load(); });
  std::atomic<int> woken{0};
  service.start(5);
  service.hold("T", 0, 0, 50, [&] { ++woken; });
  service.hold("T", 1, 0, 1'000'000, [&] { ++woken; });
  now = 100;
  for (int i = 0; i < 200 && woken.load() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(woken.load(), 1);
  service.stop();
  EXPECT_EQ(woken.load(), 2);
}

class Echo final : public RequestProcessor {
 public:
  std::vector<std::int32_t> codes() const override { return {7}; }
  void process(RemotingCommand request, Responder responder) override {
    if (request.ext_fields.get("boom")) throw std::runtime_error("kaboom");
    RemotingCommand r;
    r.remark = "echo";
    responder.respond(std::move(r));
  }
};

TEST(BrokerRequestHandlerTest, RefusesRequestsUntilOpenedAndAfterClosed) {
  BrokerRequestHandler handler;
  handler.add(std::make_shared<Echo>());
  auto channel = std::make_shared<FakeChannel>();
  auto req = RemotingCommand::request(7);
  req.opaque = 3;
  handler.on_request(channel, req);
  handler.open();
  handler.on_request(channel, req);
  handler.close();
  handler.on_request(channel, req);
  const auto sent = channel->sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].opaque, 3);
  EXPECT_EQ(sent[0].code, protocol::response_code::kServiceNotAvailable);
  EXPECT_EQ(sent[0].remark, "the broker is starting; try again later");
  EXPECT_EQ(sent[1].code, protocol::response_code::kSuccess);
  EXPECT_EQ(sent[1].remark, "echo");
  EXPECT_EQ(sent[2].code, protocol::response_code::kServiceNotAvailable);
  EXPECT_EQ(sent[2].remark, "the broker is stopping");
}

TEST(BrokerRequestHandlerTest, RoutesByCodeAndTurnsFailuresIntoResponses) {
  BrokerRequestHandler handler;
  handler.add(std::make_shared<Echo>());
  handler.open();
  auto channel = std::make_shared<FakeChannel>();
  auto req = RemotingCommand::request(7);
  req.opaque = 9;
  req.serialize_type = plugin::v1::SerializeType::kRocketMq;
  handler.on_request(channel, req);
  auto unknown = RemotingCommand::request(8);
  handler.on_request(channel, unknown);
  req.ext_fields.set("boom", std::string("1"));
  handler.on_request(channel, req);
  req.flag = RemotingCommand::kOnewayFlag;
  handler.on_request(channel, req);  // one-way: no answer even on failure
  const auto sent = channel->sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].opaque, 9);
  EXPECT_TRUE(sent[0].is_response());
  EXPECT_EQ(sent[0].serialize_type, plugin::v1::SerializeType::kRocketMq);
  EXPECT_EQ(sent[1].code, protocol::response_code::kRequestCodeNotSupported);
  EXPECT_EQ(sent[1].remark, " request type 8 not supported");
  EXPECT_EQ(sent[2].code, protocol::response_code::kSystemError);
  EXPECT_EQ(sent[2].remark, "kaboom");
}

}  // namespace
}  // namespace mqkit::broker
