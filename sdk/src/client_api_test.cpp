#include "mqkit/client/client_api.hpp"

#include <gtest/gtest.h>

#include <future>
#include <map>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/pop_receipt.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;
namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using testing::FakeTransport;
using std::chrono::milliseconds;

RemotingCommand reply(std::int32_t code, std::initializer_list<std::pair<const char*, std::string>> fields = {}) {
  RemotingCommand r;
  r.code = code;
  for (const auto& [k, v] : fields) r.ext_fields.set(k, v);
  if (code != rc::kSuccess) r.remark = "remark of " + std::to_string(code);
  return r;
}

std::string field(const RemotingCommand& c, std::string_view name) { return std::string(c.ext_fields.get(name).value_or("<none>")); }

// A message of topic T as a broker stores (and answers) it: queue `queue_id`, offset `queue_offset`.
std::vector<std::uint8_t> stored_record(std::int32_t queue_id, std::int64_t queue_offset, const std::string& body) {
  v1::MessageToAppend m;
  m.topic = "T";
  m.queue_id = queue_id;
  m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
  std::vector<std::uint8_t> record(static_cast<std::size_t>(v1::record_size(m)));
  EXPECT_TRUE(v1::encode_record(m, {queue_offset, 1000, 1}, record).is_ok());
  return record;
}

class ClientApiTest : public ::testing::Test {
 protected:
  void respond_with(FakeTransport::Responder responder, bool vip_channel_enabled = false) {
    transport_ = std::make_shared<FakeTransport>(std::move(responder));
    api_ = std::make_unique<ClientApi>(transport_, nullptr, std::vector<std::string>{"ns1:9876", "ns2:9876"},
                                       milliseconds(1000), v1::SerializeType::kRocketMq, protocol::acl::Credentials{},
                                       vip_channel_enabled);
  }
  std::shared_ptr<FakeTransport> transport_;
  std::unique_ptr<ClientApi> api_;
};

TEST_F(ClientApiTest, SendMessageV2HeaderAndResult) {
  respond_with([](const std::string&, const RemotingCommand&) {
    return Result<RemotingCommand>(reply(rc::kSuccess, {{"msgId", "0A00000100002A9F0000000000000010"},
                                                        {"queueId", "3"}, {"queueOffset", "42"},
                                                        {"MSG_REGION", "R1"}, {"TRACE_ON", "false"}}));
  });
  SendMessageRequest request;
  request.producer_group = "PG";
  request.topic = "T";
  request.queue_id = 3;
  request.sys_flag = 1;
  request.born_timestamp = 1700000000000;
  request.flag = 9;
  request.properties = v1::encode_properties({{"UNIQ_KEY", "ABC"}, {"TAGS", "t"}});
  request.body = std::make_shared<const std::string>("payload");
  auto result = api_->send_message("b1:10911", "broker-a", request);
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(transport_->calls().back().request.serialize_type, v1::SerializeType::kRocketMq);
  EXPECT_EQ(result->status, SendStatus::kSendOk);
  EXPECT_EQ(result->msg_id, "ABC");
  EXPECT_EQ(result->offset_msg_id, "0A00000100002A9F0000000000000010");
  EXPECT_EQ(result->message_queue, (MessageQueue{"T", "broker-a", 3}));
  EXPECT_EQ(result->queue_offset, 42);
  EXPECT_EQ(result->region_id, "R1");
  EXPECT_FALSE(result->trace_on);

  const auto calls = transport_->calls();
  ASSERT_EQ(calls.size(), 1u);
  const auto& sent = calls[0].request;
  EXPECT_EQ(calls[0].address, "b1:10911");
  EXPECT_EQ(sent.code, rq::kSendMessageV2);
  EXPECT_EQ(field(sent, "a"), "PG");
  EXPECT_EQ(field(sent, "b"), "T");
  EXPECT_EQ(field(sent, "c"), "TBW102");
  EXPECT_EQ(field(sent, "d"), "4");
  EXPECT_EQ(field(sent, "e"), "3");
  EXPECT_EQ(field(sent, "f"), "1");
  EXPECT_EQ(field(sent, "g"), "1700000000000");
  EXPECT_EQ(field(sent, "h"), "9");
  EXPECT_EQ(field(sent, "i"), request.properties);
  EXPECT_EQ(field(sent, "j"), "0");
  EXPECT_EQ(field(sent, "k"), "false");
  EXPECT_EQ(field(sent, "l"), "<none>");
  EXPECT_EQ(field(sent, "m"), "false");
  EXPECT_EQ(std::string(sent.body.begin(), sent.body.end()), "payload");
}

TEST_F(ClientApiTest, StoredButNotOkAndFailures) {
  std::int32_t code = rc::kFlushDiskTimeout;
  respond_with([&](const std::string&, const RemotingCommand&) {
    return Result<RemotingCommand>(reply(code, {{"msgId", "X"}, {"queueId", "0"}, {"queueOffset", "1"}}));
  });
  SendMessageRequest request;
  request.topic = "T";
  request.body = std::make_shared<const std::string>("x");
  EXPECT_EQ(api_->send_message("b", "B", request)->status, SendStatus::kFlushDiskTimeout);
  code = rc::kSlaveNotAvailable;
  EXPECT_EQ(api_->send_message("b", "B", request)->status, SendStatus::kSlaveNotAvailable);
  code = rc::kTopicNotExist;
  const Status missing = api_->send_message("b", "B", request).status();
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "CODE: 17 DESC: remark of 17 (b)");
  code = rc::kMessageIllegal;
  EXPECT_EQ(api_->send_message("b", "B", request).status().code(), StatusCode::kInvalidArgument);
  transport_->set_unreachable("b", true);
  EXPECT_EQ(api_->send_message("b", "B", request).status().code(), StatusCode::kUnavailable);
}

TEST_F(ClientApiTest, BatchResultJoinsEveryUniqueKey) {
  respond_with([](const std::string&, const RemotingCommand&) {
    return Result<RemotingCommand>(reply(rc::kSuccess, {{"msgId", "O1,O2"}, {"queueId", "0"}, {"queueOffset", "7"}}));
  });
  std::vector<std::uint8_t> body;
  const std::uint8_t payload[] = {'x'};
  v1::append_batch_item(body, 0, payload, v1::encode_properties({{"UNIQ_KEY", "U1"}}));
  v1::append_batch_item(body, 0, payload, v1::encode_properties({{"UNIQ_KEY", "U2"}}));
  SendMessageRequest request;
  request.topic = "T";
  request.batch = true;
  request.body = std::make_shared<const std::string>(body.begin(), body.end());
  auto result = api_->send_message("b", "B", request);
  ASSERT_TRUE(result.is_ok());
  EXPECT_EQ(result->msg_id, "U1,U2");
  EXPECT_EQ(result->offset_msg_id, "O1,O2");
  const auto sent = transport_->calls().at(0).request;
  EXPECT_EQ(sent.code, rq::kSendBatchMessage);
  EXPECT_EQ(field(sent, "m"), "true");
}

TEST_F(ClientApiTest, RouteLookupAsksForStandardJsonAndFailsOverBetweenNameServers) {
  protocol::TopicRouteData route;
  route.queue_datas = {{"broker-a", 4, 4, 6, 0}};
  protocol::BrokerData broker;
  broker.broker_name = "broker-a";
  broker.broker_addrs[0] = "b:1";
  route.broker_datas = {broker};
  respond_with([&](const std::string& address, const RemotingCommand& request) -> Result<RemotingCommand> {
    if (address == "ns1:9876") return Status::unavailable("down");
    if (field(request, "topic") == "Missing") return reply(rc::kTopicNotExist);
    auto r = reply(rc::kSuccess);
    protocol::set_body(r, protocol::encode(route));
    return r;
  });
  auto got = api_->get_topic_route("T");
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(got->queue_datas, route.queue_datas);
  EXPECT_EQ(api_->get_topic_route("Missing").status().code(), StatusCode::kNotFound);
  const auto calls = transport_->calls_with_code(rq::kGetRouteInfoByTopic);
  ASSERT_EQ(calls.size(), 3u);  // ns1 failed, ns2 answered; then ns2 first
  EXPECT_EQ(calls[0].address, "ns1:9876");
  EXPECT_EQ(calls[1].address, "ns2:9876");
  EXPECT_EQ(calls[2].address, "ns2:9876");
  EXPECT_EQ(field(calls[1].request, "acceptStandardJsonOnly"), "true");
  EXPECT_EQ(calls[1].request.version, v1::kWireVersion);
}

TEST_F(ClientApiTest, PullRequestAndDecodedResult) {
  const auto record = stored_record(1, 5, "hello");
  respond_with([&](const std::string&, const RemotingCommand&) {
    auto r = reply(rc::kSuccess, {{"nextBeginOffset", "6"}, {"minOffset", "0"}, {"maxOffset", "6"},
                                  {"suggestWhichBrokerId", "0"}});
    r.body = record;
    return Result<RemotingCommand>(r);
  });
  PullMessageRequest request;
  request.consumer_group = "G";
  request.topic = "T";
  request.queue_id = 1;
  request.queue_offset = 5;
  request.commit_offset = 3;
  request.sys_flag = pull_sys_flag::build(true, true, true, false);
  request.sub_version = 77;
  auto result = api_->pull_message("b", request);
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->status, PullStatus::kFound);
  EXPECT_EQ(result->next_begin_offset, 6);
  EXPECT_EQ(result->max_offset, 6);
  ASSERT_EQ(result->messages.size(), 1u);
  EXPECT_EQ(result->messages[0].body(), "hello");
  EXPECT_EQ(result->messages[0].queue_offset, 5);
  const auto sent = transport_->calls().at(0).request;
  EXPECT_EQ(sent.code, rq::kPullMessage);
  EXPECT_EQ(field(sent, "consumerGroup"), "G");
  EXPECT_EQ(field(sent, "queueOffset"), "5");
  EXPECT_EQ(field(sent, "maxMsgNums"), "32");
  EXPECT_EQ(field(sent, "sysFlag"), "7");
  EXPECT_EQ(field(sent, "commitOffset"), "3");
  EXPECT_EQ(field(sent, "suspendTimeoutMillis"), "15000");
  EXPECT_EQ(field(sent, "subscription"), "*");
  EXPECT_EQ(field(sent, "subVersion"), "77");
  EXPECT_EQ(field(sent, "expressionType"), "TAG");

  // A lite pull goes out as LITE_PULL_MESSAGE, as RocketMQ's client sends it.
  request.sys_flag |= pull_sys_flag::kLitePull;
  ASSERT_TRUE(api_->pull_message("b", request).is_ok());
  EXPECT_EQ(transport_->calls().at(1).request.code, rq::kLitePullMessage);
  EXPECT_EQ(field(transport_->calls().at(1).request, "sysFlag"), "23");
}

// A pop answers the same through both calls: the messages with their receipts in POP_CK, built
// from the response's startOffsetInfo; an ack carries the receipt as extraInfo.
TEST_F(ClientApiTest, PopAndAckSyncAndAsync) {
  const auto record = stored_record(2, 7, "popped");
  respond_with([&](const std::string&, const RemotingCommand& request) {
    if (request.code == rq::kAckMessage) {
      return Result<RemotingCommand>(field(request, "offset") == "7" ? reply(rc::kSuccess) : reply(rc::kSystemError));
    }
    auto r = reply(rc::kSuccess, {{"popTime", "1700000000000"}, {"invisibleTime", "30000"}, {"reviveQid", "0"},
                                  {"restNum", "4"}, {"startOffsetInfo", "0 2 6"}});
    r.body = record;
    return Result<RemotingCommand>(r);
  });
  PopMessageRequest request;
  request.consumer_group = "G";
  request.topic = "T";
  request.max_msg_nums = 8;
  request.invisible_ms = 30'000;
  request.poll_ms = 5'000;
  request.expression_type = "SQL92";
  request.expression = "a > 1";
  auto synced = api_->pop_message("b1:10911", "broker-a", request);
  std::promise<Result<PopResult>> async_popped;
  api_->pop_message_async("b1:10911", "broker-a", request, milliseconds(1000),
                          [&](Result<PopResult> r) { async_popped.set_value(std::move(r)); });
  auto popped = async_popped.get_future().get();
  for (const auto* result : {&synced, &popped}) {
    ASSERT_TRUE(result->is_ok()) << result->status().to_string();
    ASSERT_TRUE((*result)->found);
    EXPECT_EQ((*result)->rest, 4);
    ASSERT_EQ((*result)->messages.size(), 1u);
    const MessageExt& message = (*result)->messages[0];
    EXPECT_EQ(message.body(), "popped");
    EXPECT_EQ(message.broker_name, "broker-a");
    auto receipt = protocol::decode_pop_receipt(std::string(message.property("POP_CK").value_or("")));
    ASSERT_TRUE(receipt.is_ok()) << receipt.status().to_string();
    EXPECT_EQ(receipt->ck_queue_offset, 6);
    EXPECT_EQ(receipt->offset, 7);
    EXPECT_EQ(receipt->queue_id, 2);
    EXPECT_EQ(receipt->pop_time, 1700000000000);
    EXPECT_EQ(receipt->invisible_ms, 30'000);
  }
  const auto sent = transport_->calls().at(1).request;
  EXPECT_EQ(sent.code, rq::kPopMessage);
  EXPECT_EQ(field(sent, "queueId"), "-1");
  EXPECT_EQ(field(sent, "maxMsgNums"), "8");
  EXPECT_EQ(field(sent, "pollTime"), "5000");
  EXPECT_EQ(field(sent, "expType"), "SQL92");
  EXPECT_EQ(field(sent, "exp"), "a > 1");

  const std::string receipt(popped->messages[0].property("POP_CK").value_or(""));
  std::promise<Status> acked;
  api_->ack_message_async("b1:10911", "G", "T", receipt, milliseconds(1000), [&](Status s) { acked.set_value(s); });
  EXPECT_TRUE(acked.get_future().get().is_ok());
  EXPECT_EQ(field(transport_->calls().back().request, "extraInfo"), receipt);
  // A broker's refusal and a receipt that is no receipt both reach the callback as errors.
  auto other = protocol::decode_pop_receipt(receipt).value();
  other.offset = 8;
  std::promise<Status> refused;
  api_->ack_message_async("b1:10911", "G", "T", protocol::encode_pop_receipt(other), milliseconds(1000),
                          [&](Status s) { refused.set_value(s); });
  EXPECT_FALSE(refused.get_future().get().is_ok());
  std::promise<Status> malformed;
  const auto calls_before = transport_->calls().size();
  api_->ack_message_async("b1:10911", "G", "T", "not a receipt", milliseconds(1000),
                          [&](Status s) { malformed.set_value(s); });
  EXPECT_FALSE(malformed.get_future().get().is_ok());
  EXPECT_EQ(transport_->calls().size(), calls_before);
}

TEST_F(ClientApiTest, OffsetsHeartbeatAndOneway) {
  respond_with([](const std::string&, const RemotingCommand& request) -> Result<RemotingCommand> {
    switch (request.code) {
      case rq::kQueryConsumerOffset:
        if (field(request, "queueId") == "9") return reply(rc::kQueryNotFound);
        return reply(rc::kSuccess, {{"offset", "12"}});
      case rq::kGetMaxOffset: return reply(rc::kSuccess, {{"offset", "100"}});
      case rq::kGetMinOffset: return reply(rc::kSuccess, {{"offset", "not a number"}});
      default: return reply(rc::kSuccess);
    }
  });
  const MessageQueue queue{"T", "B", 2};
  EXPECT_EQ(api_->query_consumer_offset("b", "G", queue).value_or(-1), 12);
  EXPECT_EQ(api_->query_consumer_offset("b", "G", MessageQueue{"T", "B", 9}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(api_->get_max_offset("b", queue).value_or(-1), 100);
  EXPECT_EQ(api_->get_min_offset("b", queue).status().code(), StatusCode::kCorruption);

  protocol::HeartbeatData heartbeat;
  heartbeat.client_id = "1.2.3.4@x";
  heartbeat.producer_groups = {"PG"};
  EXPECT_TRUE(api_->heartbeat("b", heartbeat).is_ok());
  const auto hb = transport_->calls_with_code(rq::kHeartBeat).at(0).request;
  auto decoded = protocol::decode_heartbeat(protocol::body_text(hb));
  ASSERT_TRUE(decoded.is_ok());
  EXPECT_EQ(decoded->client_id, "1.2.3.4@x");

  EXPECT_TRUE(api_->update_consumer_offset_oneway("b", "G", queue, 33).is_ok());
  const auto oneway = transport_->calls_with_code(rq::kUpdateConsumerOffset).at(0).request;
  EXPECT_TRUE(oneway.is_oneway());
  EXPECT_EQ(field(oneway, "commitOffset"), "33");
  EXPECT_EQ(field(oneway, "consumerGroup"), "G");

  EXPECT_TRUE(api_->unregister_client("b", "cid", "PG", "").is_ok());
  const auto unregister = transport_->calls_with_code(rq::kUnregisterClient).at(0).request;
  EXPECT_EQ(field(unregister, "clientID"), "cid");
  EXPECT_EQ(field(unregister, "producerGroup"), "PG");
  EXPECT_EQ(field(unregister, "consumerGroup"), "<none>");
}

TEST(VipChannelAddressTest, IsThePortMinusTwo) {
  EXPECT_EQ(vip_channel_address("10.0.0.1:10911"), "10.0.0.1:10909");
  EXPECT_EQ(vip_channel_address("[::1]:10911"), "[::1]:10909");
  EXPECT_EQ(vip_channel_address("broker"), "broker");      // no port
  EXPECT_EQ(vip_channel_address("b:2"), "b:2");            // nothing below it
  EXPECT_EQ(vip_channel_address("b:10911x"), "b:10911x");  // not a port
}

// vipChannelEnabled: sends and offset requests go to the broker's fast port; pulls and
// heartbeats (which a RocketMQ broker's fast port does not take, or RocketMQ never sends there)
// and name server requests keep their addresses.
TEST_F(ClientApiTest, WithTheVipChannelSendsAndOffsetsGoToThePortMinusTwo) {
  respond_with([](const std::string&, const RemotingCommand&) { return Result<RemotingCommand>(reply(rc::kSuccess)); },
               /*vip_channel_enabled=*/true);
  const MessageQueue queue{"T", "B", 2};
  (void)api_->get_max_offset("b1:10911", queue);
  (void)api_->query_consumer_offset("b1:10911", "G", queue);
  EXPECT_TRUE(api_->update_consumer_offset_oneway("b1:10911", "G", queue, 33).is_ok());
  EXPECT_TRUE(api_->heartbeat("b1:10911", protocol::HeartbeatData{}).is_ok());
  (void)api_->get_topic_route("T");
  std::map<std::int32_t, std::string> address_of;
  for (const auto& call : transport_->calls()) address_of[call.request.code] = call.address;
  EXPECT_EQ(address_of[rq::kGetMaxOffset], "b1:10909");
  EXPECT_EQ(address_of[rq::kQueryConsumerOffset], "b1:10909");
  EXPECT_EQ(address_of[rq::kUpdateConsumerOffset], "b1:10909");
  EXPECT_EQ(address_of[rq::kHeartBeat], "b1:10911");
  EXPECT_EQ(address_of[rq::kGetRouteInfoByTopic], "ns1:9876");
}

TEST_F(ClientApiTest, WithoutTheVipChannelEveryRequestKeepsItsAddress) {
  respond_with([](const std::string&, const RemotingCommand&) { return Result<RemotingCommand>(reply(rc::kSuccess)); });
  (void)api_->get_max_offset("b1:10911", MessageQueue{"T", "B", 2});
  EXPECT_EQ(transport_->calls_with_code(rq::kGetMaxOffset).at(0).address, "b1:10911");
}

TEST_F(ClientApiTest, AdminRequests) {
  respond_with([](const std::string&, const RemotingCommand& request) -> Result<RemotingCommand> {
    if (request.code == rq::kQueryMessage) return reply(rc::kQueryNotFound);
    if (request.code == rq::kInvokeBrokerToResetOffset) {
      // As a RocketMQ broker answers: fastjson's map keyed by MessageQueue objects.
      auto r = reply(rc::kSuccess);
      protocol::set_body(r, R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12,)"
                            R"({"brokerName":"b","queueId":1,"topic":"T"}:0}})");
      return r;
    }
    if (request.code == rq::kInvokeBrokerToGetConsumerStatus) {
      auto r = reply(rc::kSuccess);
      protocol::set_body(r, R"({"consumerTable":{"10.0.0.9@1":{{"brokerName":"b","queueId":1,"topic":"T"}:5}},)"
                            R"("messageQueueTable":{}})");
      return r;
    }
    if (request.code == rq::kLockBatchMq) {
      auto body = protocol::decode_lock_batch_request(protocol::body_text(request));
      protocol::LockBatchResponse locked;
      locked.lock_ok_mq_set = {*body->mq_set.begin()};
      auto r = reply(rc::kSuccess);
      protocol::set_body(r, protocol::encode(locked));
      return r;
    }
    return reply(rc::kSuccess);
  });
  protocol::TopicConfig topic;
  topic.topic_name = "NewTopic";
  topic.read_queue_nums = 8;
  topic.write_queue_nums = 8;
  EXPECT_TRUE(api_->create_topic("b", topic).is_ok());
  const auto create = transport_->calls_with_code(rq::kUpdateAndCreateTopic).at(0).request;
  EXPECT_EQ(field(create, "topic"), "NewTopic");
  EXPECT_EQ(field(create, "readQueueNums"), "8");
  EXPECT_EQ(field(create, "perm"), "6");
  EXPECT_EQ(field(create, "topicFilterType"), "SINGLE_TAG");
  EXPECT_EQ(field(create, "order"), "false");

  auto none = api_->query_message("b", QueryMessageRequest{"T", "K", 32, 0, 1, true});
  ASSERT_TRUE(none.is_ok());
  EXPECT_TRUE(none->messages.empty());
  EXPECT_EQ(field(transport_->calls_with_code(rq::kQueryMessage).at(0).request, "_UNIQUE_KEY_QUERY"), "true");

  protocol::LockBatchRequest lock;
  lock.consumer_group = "G";
  lock.client_id = "cid";
  lock.mq_set = {MessageQueue{"T", "B", 0}, MessageQueue{"T", "B", 1}};
  auto locked = api_->lock_batch_mq("b", lock);
  ASSERT_TRUE(locked.is_ok()) << locked.status().to_string();
  EXPECT_EQ(locked->size(), 1u);

  // An offset msg id names the broker and the commit log offset.
  EXPECT_EQ(api_->view_message_by_id("not-an-id").status().code(), StatusCode::kInvalidArgument);
  (void)api_->view_message_by_id("0A00000100002A9F000000000001E240");
  const auto view = transport_->calls_with_code(rq::kViewMessageById).at(0);
  EXPECT_EQ(view.address, "10.0.0.1:10911");
  EXPECT_EQ(field(view.request, "offset"), "123456");

  const auto offsets = api_->reset_offset("b", "T", "G", 1700000000000);
  ASSERT_TRUE(offsets.is_ok()) << offsets.status().to_string();
  EXPECT_EQ(*offsets, (std::map<MessageQueue, std::int64_t>{{{"T", "b", 0}, 12}, {{"T", "b", 1}, 0}}));
  const auto reset = transport_->calls_with_code(rq::kInvokeBrokerToResetOffset).at(0).request;
  EXPECT_EQ(field(reset, "topic"), "T");
  EXPECT_EQ(field(reset, "group"), "G");
  EXPECT_EQ(field(reset, "timestamp"), "1700000000000");
  EXPECT_EQ(field(reset, "isForce"), "true");
  const auto status = api_->get_consumer_status("b", "T", "G");
  ASSERT_TRUE(status.is_ok()) << status.status().to_string();
  EXPECT_EQ(status->at("10.0.0.9@1"), (std::map<MessageQueue, std::int64_t>{{{"T", "b", 1}, 5}}));
  (void)api_->get_consumer_status("b", "T", "G", "10.0.0.9@1");
  const auto asked = transport_->calls_with_code(rq::kInvokeBrokerToGetConsumerStatus);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(field(asked[0].request, "topic"), "T");
  EXPECT_EQ(field(asked[0].request, "group"), "G");
  EXPECT_EQ(field(asked[0].request, "clientAddr"), "<none>");
  EXPECT_EQ(field(asked[1].request, "clientAddr"), "10.0.0.9@1");
  EXPECT_TRUE(api_->delete_topic_in_namesrv("T").is_ok());
  EXPECT_EQ(transport_->calls_with_code(rq::kDeleteTopicInNamesrv).size(), 2u);  // every name server
  // KV config (the ordered-topic config) is written to and deleted from every name server too.
  EXPECT_TRUE(api_->put_kv_config("ORDER_TOPIC_CONFIG", "T", "broker-a:4").is_ok());
  const auto puts = transport_->calls_with_code(rq::kPutKvConfig);
  ASSERT_EQ(puts.size(), 2u);
  EXPECT_NE(puts[0].address, puts[1].address);
  EXPECT_EQ(field(puts[1].request, "value"), "broker-a:4");
  EXPECT_TRUE(api_->delete_kv_config("ORDER_TOPIC_CONFIG", "T").is_ok());
  EXPECT_EQ(transport_->calls_with_code(rq::kDeleteKvConfig).size(), 2u);
}

// Every request leaves through one hook: with credentials, sync, async, one-way and name server
// requests all carry the AccessKey and a Signature over their fields and body.
TEST_F(ClientApiTest, WithCredentialsEveryRequestIsSigned) {
  transport_ = std::make_shared<FakeTransport>([](const std::string&, const RemotingCommand& request) {
    if (request.code == rq::kSendMessageV2) {
      return Result<RemotingCommand>(reply(rc::kSuccess, {{"msgId", "0A00000100002A9F0000000000000010"},
                                                          {"queueId", "0"}, {"queueOffset", "1"}}));
    }
    return Result<RemotingCommand>(reply(rc::kSuccess));
  });
  const protocol::acl::Credentials credentials{.access_key = "app-user", .secret_key = "app-secret",
                                               .security_token = "token-1"};
  api_ = std::make_unique<ClientApi>(transport_, nullptr, std::vector<std::string>{"ns1:9876"}, milliseconds(1000),
                                     v1::SerializeType::kRocketMq, credentials);
  SendMessageRequest send;
  send.producer_group = "PG";
  send.topic = "T";
  send.body = std::make_shared<const std::string>("payload");
  ASSERT_TRUE(api_->send_message("b1:10911", "broker-a", send).is_ok());
  std::promise<Result<SendResult>> async_sent;
  api_->send_message_async("b1:10911", "broker-a", send, milliseconds(1000),
                           [&](Result<SendResult> r) { async_sent.set_value(std::move(r)); });
  ASSERT_TRUE(async_sent.get_future().get().is_ok());
  ASSERT_TRUE(api_->update_consumer_offset_oneway("b1:10911", "G", MessageQueue{"T", "broker-a", 0}, 5).is_ok());
  (void)api_->get_topic_route("T");

  const auto calls = transport_->calls();
  ASSERT_EQ(calls.size(), 4u);
  for (const auto& call : calls) {
    EXPECT_EQ(field(call.request, "AccessKey"), "app-user") << call.request.code;
    EXPECT_EQ(field(call.request, "SecurityToken"), "token-1") << call.request.code;
    EXPECT_EQ(field(call.request, "Signature"), protocol::acl::request_signature(call.request, "app-secret").value())
        << call.request.code;
  }
  EXPECT_EQ(protocol::acl::content_to_sign(calls[0].request).substr(0, 8), "app-user");  // "AccessKey" sorts first
}

TEST_F(ClientApiTest, WithoutCredentialsNothingIsAdded) {
  respond_with([](const std::string&, const RemotingCommand&) { return Result<RemotingCommand>(reply(rc::kSuccess)); });
  (void)api_->get_topic_route("T");
  ASSERT_EQ(transport_->calls().size(), 1u);
  EXPECT_FALSE(transport_->calls()[0].request.ext_fields.get("AccessKey").has_value());
  EXPECT_FALSE(transport_->calls()[0].request.ext_fields.get("Signature").has_value());
}

// A broker's ACL refusal arrives as SYSTEM_ERROR naming AclException: the SDK reports it as
// permission denied; other SYSTEM_ERRORs stay unavailable.
TEST_F(ClientApiTest, AclRefusalsArePermissionDenied) {
  respond_with([](const std::string&, const RemotingCommand& request) {
    RemotingCommand r = reply(rc::kSystemError);
    r.remark = request.code == rq::kPullMessage ? "org.apache.rocketmq.acl.common.AclException: No accessKey is configured"
                                                : "disk full";
    return Result<RemotingCommand>(r);
  });
  PullMessageRequest pull;
  pull.consumer_group = "G";
  pull.topic = "T";
  const auto refused = api_->pull_message("b1:10911", pull);
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("No accessKey is configured"), std::string::npos);
  EXPECT_EQ(api_->get_max_offset("b1:10911", MessageQueue{"T", "b", 0}).status().code(), StatusCode::kUnavailable);
}

TEST_F(ClientApiTest, ConnectionListsNameTheGroupAndDecodeTheBody) {
  respond_with([](const std::string&, const RemotingCommand& request) -> Result<RemotingCommand> {
    if (request.code == rq::kGetConsumerConnectionList) {
      if (request.ext_fields.get("consumerGroup") != "G") return reply(rc::kConsumerNotOnline);
      auto r = reply(rc::kSuccess);
      protocol::set_body(r, R"({"connectionSet":[{"clientAddr":"1.2.3.4:5","clientId":"c","language":"JAVA",)"
                            R"("version":453}],"consumeType":"CONSUME_PASSIVELY","messageModel":"BROADCASTING",)"
                            R"("subscriptionTable":{"T":{"subString":"a || b","topic":"T"}}})");
      return r;
    }
    if (request.ext_fields.get("producerGroup") != "PG") return reply(rc::kSystemError);
    auto r = reply(rc::kSuccess);
    protocol::set_body(r, R"({"connectionSet":[{"clientAddr":"1.2.3.4:6","clientId":"p","language":"CPP","version":401}]})");
    return r;
  });
  auto consumers = api_->get_consumer_connection_list("b", "G");
  ASSERT_TRUE(consumers.is_ok()) << consumers.status().to_string();
  EXPECT_EQ(consumers->connection_set.at(0).client_id, "c");
  EXPECT_EQ(consumers->message_model, "BROADCASTING");
  EXPECT_EQ(consumers->subscription_table.at("T").sub_string, "a || b");
  EXPECT_EQ(api_->get_consumer_connection_list("b", "other").status().code(), StatusCode::kNotFound);

  auto producers = api_->get_producer_connection_list("b", "PG");
  ASSERT_TRUE(producers.is_ok()) << producers.status().to_string();
  EXPECT_EQ(producers->connection_set.at(0), (protocol::Connection{"p", "1.2.3.4:6", "CPP", 401}));
  const auto unknown = api_->get_producer_connection_list("b", "other");
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(unknown.status().message().find("remark of 1"), std::string::npos) << unknown.status().message();
  EXPECT_EQ(transport_->calls_with_code(rq::kGetProducerConnectionList).size(), 2u);
}

}  // namespace
}  // namespace mqkit::client
