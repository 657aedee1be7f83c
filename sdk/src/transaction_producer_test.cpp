// The transaction producer against a fake name server and brokers: the half message it sends, the
// END_TRANSACTION that follows each local transaction outcome (commit, rollback, unknown, a
// listener that throws, a send that failed or was stored without SEND_OK), and brokers' transaction
// checks: answered from the check threads, ignored when malformed or of another group, and dropped
// beyond check_request_hold_max.
#include "mqkit/client/transaction_producer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;
namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using testing::FakeCluster;

std::string field(const RemotingCommand& c, std::string_view name) {
  return std::string(c.ext_fields.get(name).value_or(""));
}

// An END_TRANSACTION leaving the state unknown, with `why` in its remark.
void expect_unknown_because(const RemotingCommand& end, std::string_view why) {
  EXPECT_EQ(field(end, "commitOrRollback"), "0");
  ASSERT_TRUE(end.remark.has_value());
  EXPECT_NE(end.remark->find(why), std::string::npos) << *end.remark;
}

// Answers as told and records what it was asked. A check may be made to wait until released.
class ScriptedListener final : public TransactionListener {
 public:
  LocalTransactionState execute_local_transaction(const Message& message, const std::any& arg) override {
    std::lock_guard lock(mutex_);
    executed.push_back(message);
    args.push_back(arg.has_value() ? std::any_cast<int>(arg) : -1);
    if (execute_throws) throw std::runtime_error("the order table is locked");
    return execute_answer;
  }
  LocalTransactionState check_local_transaction(const MessageExt& message) override {
    {
      std::lock_guard lock(mutex_);
      checked.push_back(message);
      if (check_started) {
        check_started->set_value();
        check_started.reset();
      }
    }
    if (check_released) check_released->wait();
    if (check_throws) throw std::runtime_error("database unreachable");
    return check_answer;
  }

  LocalTransactionState execute_answer = LocalTransactionState::kCommit;
  LocalTransactionState check_answer = LocalTransactionState::kCommit;
  bool execute_throws = false;
  bool check_throws = false;
  std::optional<std::promise<void>> check_started;          // set when a check begins
  std::optional<std::shared_future<void>> check_released;  // checks wait for it when set

  std::mutex mutex_;
  std::vector<Message> executed;
  std::vector<int> args;
  std::vector<MessageExt> checked;
};

class TransactionProducerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.add_broker("broker-a", "10.0.0.1:10911");
    cluster_.add_topic("T", "broker-a", 4);
    config_.group = "PG";
    config_.client.namesrv_addresses = {FakeCluster::kNamesrv};
    config_.client.client_ip = "10.0.0.9";
    config_.client.instance_name = "transaction-producer-test";
    config_.client.plugin_dirs = {MQKIT_PLUGIN_DIR};
    config_.client.fault_strategy = {"none"};
    listener_ = std::make_shared<ScriptedListener>();
  }

  std::unique_ptr<TransactionProducer> start_producer() {
    auto instance = ClientInstance::create(config_.client, cluster_.transport());
    EXPECT_TRUE(instance.is_ok()) << instance.status().to_string();
    auto producer = std::make_unique<TransactionProducer>(config_, listener_, std::move(instance).value());
    const Status started = producer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    return producer;
  }

  std::vector<RemotingCommand> end_transactions() const {
    std::vector<RemotingCommand> out;
    for (auto& call : cluster_.transport()->calls_with_code(rq::kEndTransaction)) {
      EXPECT_EQ(call.address, "10.0.0.1:10911");
      out.push_back(std::move(call.request));
    }
    return out;
  }

  // A CHECK_TRANSACTION_STATE as a broker sends it: the half message as a stored record, with its
  // real topic and queue, as the body.
  static RemotingCommand check_request(std::string_view group, std::string_view unique_key,
                                       std::int64_t commit_offset = 4096, std::int64_t queue_offset = 17,
                                       std::string_view topic = "T") {
    std::string properties;
    v1::append_property(properties, v1::property::kTransactionPrepared, "true");
    if (!group.empty()) v1::append_property(properties, v1::property::kProducerGroup, group);
    v1::append_property(properties, v1::property::kUniqueKey, unique_key);
    v1::append_property(properties, v1::property::kRealTopic, topic);
    v1::append_property(properties, v1::property::kRealQueueId, "2");
    const std::string body = "order 42";
    v1::MessageToAppend half;
    half.topic = topic;
    half.queue_id = 2;
    half.store_host.ip = {10, 0, 0, 1};
    half.store_host.port = 10911;
    half.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
    half.properties = properties;
    auto request = RemotingCommand::request(rq::kCheckTransactionState);
    request.flag |= RemotingCommand::kOnewayFlag;
    request.body.resize(static_cast<std::size_t>(v1::record_size(half)));
    EXPECT_TRUE(v1::encode_record(half, {queue_offset, commit_offset, 1700000000000}, request.body).is_ok());
    request.ext_fields.set("tranStateTableOffset", queue_offset);
    request.ext_fields.set("commitLogOffset", commit_offset);
    request.ext_fields.set("msgId", std::string(unique_key));
    request.ext_fields.set("transactionId", "tx-" + std::string(unique_key));
    request.ext_fields.set("offsetMsgId", v1::make_offset_message_id(half.store_host, commit_offset));
    return request;
  }

  // A started producer that has talked to broker-a, which can then send it checks.
  std::unique_ptr<TransactionProducer> start_producer_known_to_broker() {
    auto producer = start_producer();
    const auto sent = producer->producer().send(Message("T", "connects to broker-a"));
    EXPECT_TRUE(sent.is_ok()) << sent.status().to_string();
    return producer;
  }

  // Delivers a check from broker-a (see start_producer_known_to_broker).
  void deliver_check(RemotingCommand request) {
    cluster_.transport()->deliver_request("10.0.0.1:10911", std::move(request));
  }

  FakeCluster cluster_;
  ProducerConfig config_;
  std::shared_ptr<ScriptedListener> listener_;
};

TEST_F(TransactionProducerTest, CommitSendsAHalfMessageThenEndsItsTransactionWithCommit) {
  auto producer = start_producer();
  Message message("T", "TagA", "order-1", "create order 1");
  auto result = producer->send_message_in_transaction(std::move(message), 7);
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->status, SendStatus::kSendOk);
  EXPECT_EQ(result->local_transaction_state, LocalTransactionState::kCommit);

  // The half message: PREPARED sysFlag, TRAN_MSG and PGROUP, its UNIQ_KEY the result's id.
  const auto stored = cluster_.stored();
  ASSERT_EQ(stored.size(), 1u);
  const RemotingCommand& send = stored[0].request;
  EXPECT_EQ(send.ext_fields.get_int("f").value_or(0) & v1::sys_flag::kTransactionMask,
            v1::sys_flag::kTransactionPrepared);
  const std::string properties = field(send, "i");
  EXPECT_EQ(v1::find_property(properties, "TRAN_MSG"), "true");
  EXPECT_EQ(v1::find_property(properties, "PGROUP"), "PG");
  EXPECT_EQ(v1::find_property(properties, "UNIQ_KEY"), result->msg_id);

  // The listener saw the message as sent, the transaction id the broker gave, and the argument.
  ASSERT_EQ(listener_->executed.size(), 1u);
  const Message& seen = listener_->executed[0];
  EXPECT_EQ(seen.body(), "create order 1");
  EXPECT_EQ(seen.unique_id(), result->msg_id);
  EXPECT_EQ(seen.keys(), "order-1");
  ASSERT_FALSE(result->transaction_id.empty());
  EXPECT_EQ(seen.property("__transactionId__"), result->transaction_id);
  EXPECT_EQ(listener_->args, std::vector<int>{7});

  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  const RemotingCommand& end = ends[0];
  EXPECT_TRUE(end.is_oneway());
  EXPECT_EQ(field(end, "producerGroup"), "PG");
  EXPECT_EQ(field(end, "commitOrRollback"), "8");
  EXPECT_EQ(field(end, "fromTransactionCheck"), "false");
  EXPECT_EQ(field(end, "msgId"), result->msg_id);
  EXPECT_EQ(field(end, "transactionId"), result->transaction_id);
  EXPECT_EQ(field(end, "tranStateTableOffset"), std::to_string(result->queue_offset));
  EXPECT_FALSE(end.remark.has_value());
}

TEST_F(TransactionProducerTest, EndTransactionCarriesTheHalfMessagesQueueAndCommitLogOffsets) {
  v1::HostAddress store;
  store.ip = {10, 0, 0, 1};
  store.port = 10911;
  cluster_.set_broker_handler(rq::kSendMessageV2, [&](const std::string&, const RemotingCommand& request) {
    RemotingCommand response;
    response.code = rc::kSuccess;
    response.ext_fields.set("msgId", v1::make_offset_message_id(store, 1234567));
    response.ext_fields.set("queueId", request.ext_fields.get_int("e").value_or(0));
    response.ext_fields.set("queueOffset", static_cast<std::int64_t>(89));
    return response;
  });
  auto producer = start_producer();
  auto result = producer->send_message_in_transaction(Message("T", "x"));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_TRUE(result->transaction_id.empty());
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(field(ends[0], "tranStateTableOffset"), "89");
  EXPECT_EQ(field(ends[0], "commitLogOffset"), "1234567");
  EXPECT_EQ(field(ends[0], "transactionId"), "");  // none was given
  EXPECT_EQ(listener_->executed[0].property("__transactionId__"), std::nullopt);
}

TEST_F(TransactionProducerTest, RollbackAndUnknownAreSentAsTheirTransactionTypes) {
  auto producer = start_producer();
  listener_->execute_answer = LocalTransactionState::kRollback;
  auto rolled_back = producer->send_message_in_transaction(Message("T", "x"));
  ASSERT_TRUE(rolled_back.is_ok()) << rolled_back.status().to_string();
  EXPECT_EQ(rolled_back->local_transaction_state, LocalTransactionState::kRollback);
  listener_->execute_answer = LocalTransactionState::kUnknown;
  auto unknown = producer->send_message_in_transaction(Message("T", "y"));
  ASSERT_TRUE(unknown.is_ok()) << unknown.status().to_string();
  EXPECT_EQ(unknown->local_transaction_state, LocalTransactionState::kUnknown);

  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(field(ends[0], "commitOrRollback"), "12");
  EXPECT_EQ(field(ends[0], "msgId"), rolled_back->msg_id);
  EXPECT_EQ(field(ends[1], "commitOrRollback"), "0");
  EXPECT_EQ(field(ends[1], "msgId"), unknown->msg_id);
}

TEST_F(TransactionProducerTest, AListenerThatThrowsLeavesTheTransactionUnknownWithItsTextAsRemark) {
  auto producer = start_producer();
  listener_->execute_throws = true;
  auto result = producer->send_message_in_transaction(Message("T", "x"));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->local_transaction_state, LocalTransactionState::kUnknown);
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  expect_unknown_because(ends[0], "the order table is locked");
}

TEST_F(TransactionProducerTest, AFailedSendReturnsItsErrorWithoutRunningTheListener) {
  cluster_.set_send_code("broker-a", rc::kMessageIllegal);
  auto producer = start_producer();
  auto result = producer->send_message_in_transaction(Message("T", "x"));
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(listener_->executed.empty());
  EXPECT_TRUE(end_transactions().empty());
}

TEST_F(TransactionProducerTest, AHalfMessageStoredWithoutSendOkIsRolledBackWithoutRunningTheListener) {
  cluster_.set_send_code("broker-a", rc::kFlushDiskTimeout);
  auto producer = start_producer();
  auto result = producer->send_message_in_transaction(Message("T", "x"));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->status, SendStatus::kFlushDiskTimeout);
  EXPECT_EQ(result->local_transaction_state, LocalTransactionState::kRollback);
  EXPECT_TRUE(listener_->executed.empty());
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(field(ends[0], "commitOrRollback"), "12");
}

TEST_F(TransactionProducerTest, RefusesDelayLevelsAndStartsOnlyWithAListener) {
  auto producer = start_producer();
  Message delayed("T", "x");
  delayed.set_delay_time_level(3);
  const Status refused = producer->send_message_in_transaction(std::move(delayed)).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("delay level"), std::string::npos) << refused.to_string();
  EXPECT_TRUE(cluster_.stored().empty());

  ProducerConfig other = config_;
  other.group = "PG2";
  TransactionProducer without_listener(other, nullptr);
  const Status started = without_listener.start();
  EXPECT_EQ(started.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(started.message().find("TransactionListener is null"), std::string::npos) << started.to_string();
  EXPECT_EQ(without_listener.send_message_in_transaction(Message("T", "x")).status().code(),
            StatusCode::kUnavailable);
}

TEST_F(TransactionProducerTest, ABrokersCheckIsAnsweredFromTheCheckThreads) {
  auto producer = start_producer_known_to_broker();
  listener_->check_answer = LocalTransactionState::kRollback;
  deliver_check(check_request("PG", "AABBCCDD00000000000000000000EEFF", 4096, 17));
  producer->shutdown();  // answers the checks already taken

  ASSERT_EQ(listener_->checked.size(), 1u);
  const MessageExt& half = listener_->checked[0];
  EXPECT_EQ(half.body(), "order 42");
  EXPECT_EQ(half.topic(), "T");
  EXPECT_EQ(half.queue_id, 2);
  EXPECT_EQ(half.commit_log_offset, 4096);
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  const RemotingCommand& end = ends[0];
  EXPECT_TRUE(end.is_oneway());
  EXPECT_EQ(field(end, "producerGroup"), "PG");
  EXPECT_EQ(field(end, "fromTransactionCheck"), "true");
  EXPECT_EQ(field(end, "commitOrRollback"), "12");
  EXPECT_EQ(field(end, "commitLogOffset"), "4096");
  EXPECT_EQ(field(end, "tranStateTableOffset"), "17");
  EXPECT_EQ(field(end, "msgId"), "AABBCCDD00000000000000000000EEFF");
  EXPECT_EQ(field(end, "transactionId"), "tx-AABBCCDD00000000000000000000EEFF");
}

TEST_F(TransactionProducerTest, EndTransactionHooksSeeEveryEndAndOneThatThrowsChangesNothing) {
  struct Ended {
    std::string group, topic, msg_id, broker_address, state, transaction_id;
    bool from_check = false;
  };
  class Recording : public EndTransactionHook {
   public:
    std::string_view name() const override { return "recording"; }
    void end_transaction(const EndTransactionHookContext& ended) override {
      std::lock_guard lock(mutex);
      seen.push_back({std::string(ended.producer_group), ended.message.topic(), std::string(ended.msg_id),
                      std::string(ended.broker_address), std::string(ended.transaction_state),
                      std::string(ended.transaction_id), ended.from_transaction_check});
    }
    std::mutex mutex;
    std::vector<Ended> seen;
  };
  class Throwing : public EndTransactionHook {
   public:
    std::string_view name() const override { return "throwing"; }
    void end_transaction(const EndTransactionHookContext&) override { throw std::runtime_error("hook bug"); }
  };
  auto instance = ClientInstance::create(config_.client, cluster_.transport());
  ASSERT_TRUE(instance.is_ok()) << instance.status().to_string();
  TransactionProducer producer(config_, listener_, std::move(instance).value());
  auto hook = std::make_shared<Recording>();
  EXPECT_EQ(producer.register_end_transaction_hook(nullptr).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(producer.register_end_transaction_hook(std::make_shared<Throwing>()).is_ok());
  ASSERT_TRUE(producer.register_end_transaction_hook(hook).is_ok());
  ASSERT_TRUE(producer.start().is_ok());
  EXPECT_EQ(producer.register_end_transaction_hook(hook).code(), StatusCode::kUnavailable);

  auto result = producer.send_message_in_transaction(Message("T", "TagA", "order-1", "create order 1"));
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  listener_->check_answer = LocalTransactionState::kRollback;
  deliver_check(check_request("PG", "AABBCCDD00000000000000000000EEFF", 4096, 17));
  producer.shutdown();  // answers the checks already taken

  EXPECT_EQ(end_transactions().size(), 2u);
  std::lock_guard lock(hook->mutex);
  ASSERT_EQ(hook->seen.size(), 2u);
  const Ended& own = hook->seen[0];
  EXPECT_EQ(own.group, "PG");
  EXPECT_EQ(own.topic, "T");
  EXPECT_EQ(own.msg_id, result->msg_id);
  EXPECT_EQ(own.transaction_id, result->transaction_id);
  EXPECT_EQ(own.broker_address, "10.0.0.1:10911");
  EXPECT_EQ(own.state, "COMMIT_MESSAGE");
  EXPECT_FALSE(own.from_check);
  const Ended& checked = hook->seen[1];
  EXPECT_EQ(checked.msg_id, "AABBCCDD00000000000000000000EEFF");
  EXPECT_EQ(checked.state, "ROLLBACK_MESSAGE");
  EXPECT_EQ(checked.transaction_id, "tx-AABBCCDD00000000000000000000EEFF");
  EXPECT_TRUE(checked.from_check);
}

TEST_F(TransactionProducerTest, ACheckListenerThatThrowsAnswersUnknownWithItsText) {
  auto producer = start_producer_known_to_broker();
  listener_->check_throws = true;
  deliver_check(check_request("PG", "AABBCCDD00000000000000000000EEFF"));
  producer->shutdown();
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  expect_unknown_because(ends[0], "database unreachable");
}

TEST_F(TransactionProducerTest, MalformedChecksAndChecksOfOtherGroupsAreIgnored) {
  auto producer = start_producer_known_to_broker();
  auto truncated = check_request("PG", "AABBCCDD000000000000000000000001");
  truncated.body.resize(truncated.body.size() / 2);
  deliver_check(std::move(truncated));
  auto no_offset = check_request("PG", "AABBCCDD000000000000000000000002");
  v1::ExtFields without_offset;
  for (const auto& [name, value] : no_offset.ext_fields) {
    if (name != "commitLogOffset") without_offset.set(name, value);
  }
  no_offset.ext_fields = std::move(without_offset);
  deliver_check(std::move(no_offset));
  deliver_check(check_request("OTHER_GROUP", "AABBCCDD000000000000000000000003"));
  deliver_check(check_request("", "AABBCCDD000000000000000000000004"));
  // The processor still serves a good one after all of them.
  deliver_check(check_request("PG", "AABBCCDD000000000000000000000005"));
  producer->shutdown();

  ASSERT_EQ(listener_->checked.size(), 1u);
  EXPECT_EQ(listener_->checked[0].unique_id(), "AABBCCDD000000000000000000000005");
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(field(ends[0], "msgId"), "AABBCCDD000000000000000000000005");
  EXPECT_TRUE(cluster_.transport()->client_responses().empty());  // one-way: never answered
}

TEST_F(TransactionProducerTest, ChecksBeyondTheHoldMaxAreDropped) {
  config_.check_thread_pool_size = 1;
  config_.check_request_hold_max = 1;
  std::promise<void> release;
  listener_->check_released = release.get_future().share();
  listener_->check_started.emplace();
  auto started = listener_->check_started->get_future();
  auto producer = start_producer_known_to_broker();

  deliver_check(check_request("PG", "AABBCCDD000000000000000000000001"));
  // The check thread holds the first check; one more may wait, the third is dropped.
  ASSERT_EQ(started.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  deliver_check(check_request("PG", "AABBCCDD000000000000000000000002"));
  deliver_check(check_request("PG", "AABBCCDD000000000000000000000003"));
  release.set_value();
  producer->shutdown();

  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(field(ends[0], "msgId"), "AABBCCDD000000000000000000000001");
  EXPECT_EQ(field(ends[1], "msgId"), "AABBCCDD000000000000000000000002");
}

TEST_F(TransactionProducerTest, NoCheckIsTakenAfterShutdown) {
  auto producer = start_producer_known_to_broker();
  producer->shutdown();
  deliver_check(check_request("PG", "AABBCCDD000000000000000000000001"));
  EXPECT_TRUE(listener_->checked.empty());
  EXPECT_TRUE(end_transactions().empty());
  EXPECT_EQ(producer->send_message_in_transaction(Message("T", "x")).status().code(), StatusCode::kUnavailable);
}

// With a namespace the half message goes to ns1%T as ns1%PG's, the transaction ends and checks
// are ns1%PG's, and the listeners see the topic T they sent to.
TEST_F(TransactionProducerTest, ANamespaceNamesTheGroupAndTopicOnTheWireOnly) {
  cluster_.add_topic("ns1%T", "broker-a", 4);
  config_.client.name_space = "ns1";
  auto producer = start_producer();
  auto result = producer->send_message_in_transaction(Message("T", "create order 1"), 7);
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  EXPECT_EQ(result->message_queue.topic, "T");
  const auto stored = cluster_.stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(field(stored[0].request, "a"), "ns1%PG");
  EXPECT_EQ(field(stored[0].request, "b"), "ns1%T");
  EXPECT_EQ(v1::find_property(field(stored[0].request, "i"), "PGROUP"), "ns1%PG");
  ASSERT_EQ(listener_->executed.size(), 1u);
  EXPECT_EQ(listener_->executed[0].topic(), "T");

  deliver_check(check_request("ns1%PG", "AABBCCDD00000000000000000000EEFF", 4096, 17, "ns1%T"));
  producer->shutdown();  // answers the checks already taken
  ASSERT_EQ(listener_->checked.size(), 1u);
  EXPECT_EQ(listener_->checked[0].topic(), "T");
  const auto ends = end_transactions();
  ASSERT_EQ(ends.size(), 2u);
  for (const auto& end : ends) EXPECT_EQ(field(end, "producerGroup"), "ns1%PG");
}

}  // namespace
}  // namespace mqkit::client
