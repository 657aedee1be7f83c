// Transactional messages against a real mqnamesrv and mqbroker on 127.0.0.1, driven by a raw
// remoting client that plays a RocketMQ transaction producer: half messages (TRAN_MSG), oneway
// END_TRANSACTION, and the broker's CHECK_TRANSACTION_STATE answered on the producer's own
// connection (docs/transactions.md).
#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "local_cluster.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/transport.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "plugin_fixture.hpp"
#include "remoting_client.hpp"

namespace mqkit::testing {
namespace {

namespace code = protocol::request_code;
namespace rc = protocol::response_code;
namespace tx = protocol::transaction;
namespace v1 = plugin::v1;
using v1::RemotingCommand;

constexpr const char* kGroup = "TxProducerGroup";
constexpr const char* kTopic = "TxTopic";

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = std::chrono::seconds(15)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

// The requests a broker sends to the producer over its connection.
class ProducerInbox final : public v1::RequestHandler {
 public:
  void on_request(const std::shared_ptr<v1::Channel>&, RemotingCommand request) noexcept override {
    std::lock_guard lock(mutex_);
    received_.push_back(std::move(request));
    arrived_.notify_all();
  }
  // The `n`th request (0-based), once it arrived; nullopt after `limit`.
  std::optional<RemotingCommand> wait_for(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(15)) {
    std::unique_lock lock(mutex_);
    if (!arrived_.wait_for(lock, limit, [&] { return received_.size() > n; })) return std::nullopt;
    return received_[n];
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<RemotingCommand> received_;
};

// A transaction producer of kGroup with one connection to the broker.
class RawTransactionProducer {
 public:
  explicit RawTransactionProducer(const std::string& broker) : broker_(broker) {}
  ~RawTransactionProducer() {
    if (transport_) transport_->shutdown();
  }

  // Connects and heart-beats as a member of kGroup, so that the broker can ask it about its
  // transactions.
  void join() {
    ASSERT_TRUE(transport_);
    auto channel = transport_->connect(broker_, inbox_);
    ASSERT_TRUE(channel.is_ok()) << channel.status().to_string();
    channel_ = *channel;
    auto heartbeat = RemotingCommand::request(code::kHeartBeat);
    const std::string body = protocol::encode(protocol::HeartbeatData{"tx-producer@test", {kGroup}, {}});
    heartbeat.body.assign(body.begin(), body.end());
    auto answer = call(std::move(heartbeat));
    ASSERT_TRUE(answer.is_ok()) << answer.status().to_string();
    ASSERT_EQ(answer->code, rc::kSuccess);
  }

  struct Half {
    std::string unique_key;
    std::int64_t queue_offset = -1;
    std::int64_t commit_offset = -1;
  };
  // SEND_MESSAGE_V2 of a half message to kTopic queue 0.
  Half send_half(const std::string& unique_key, const std::string& body) {
    auto r = RemotingCommand::request(code::kSendMessageV2);
    const std::string properties = v1::encode_properties(
        {{"TAGS", "TagA"}, {"UNIQ_KEY", unique_key}, {"TRAN_MSG", "true"}, {"PGROUP", kGroup}});
    for (const auto& [k, v] : std::initializer_list<std::pair<const char*, std::string>>{
             {"a", kGroup}, {"b", kTopic}, {"c", "TBW102"}, {"d", "4"}, {"e", "0"}, {"f", "4"},
             {"g", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count())},
             {"h", "0"}, {"i", properties}, {"j", "0"}, {"k", "false"}}) {
      r.ext_fields.set(k, v);
    }
    r.body.assign(body.begin(), body.end());
    auto response = call(std::move(r));
    Half half{unique_key};
    EXPECT_TRUE(response.is_ok()) << response.status().to_string();
    if (!response) return half;
    EXPECT_EQ(response->code, rc::kSuccess) << response->remark.value_or("");
    EXPECT_EQ(response->ext_fields.get("transactionId"), unique_key);
    half.queue_offset = response->ext_fields.get_int("queueOffset").value_or(-1);
    auto id = v1::parse_offset_message_id(response->ext_fields.get("msgId").value_or(""));
    if (id) half.commit_offset = id->commit_offset;
    return half;
  }

  RemotingCommand end_request(const Half& half, tx::Resolution resolution, bool from_check) {
    auto r = RemotingCommand::request(code::kEndTransaction);
    tx::write(tx::EndTransactionHeader{kGroup, half.queue_offset, half.commit_offset, resolution, from_check,
                                       half.unique_key, half.unique_key},
              r.ext_fields);
    return r;
  }
  // END_TRANSACTION one-way, as RocketMQ's producers send it.
  void end_oneway(const Half& half, tx::Resolution resolution, bool from_check = false) {
    auto r = end_request(half, resolution, from_check);
    r.flag = RemotingCommand::kOnewayFlag;
    ASSERT_TRUE(channel_->send(std::move(r)).is_ok());
  }

  v1::Result<RemotingCommand> call(RemotingCommand request) {
    if (!channel_) {
      auto channel = transport_->connect(broker_, inbox_);
      if (!channel) return channel.status();
      channel_ = *channel;
    }
    auto answer = std::make_shared<std::promise<v1::Result<RemotingCommand>>>();
    auto future = answer->get_future();
    channel_->invoke(std::move(request), std::chrono::seconds(5),
                     [answer](v1::Result<RemotingCommand> response) { answer->set_value(std::move(response)); });
    return future.get();
  }

  ProducerInbox& inbox() { return *inbox_; }

 private:
  std::string broker_;
  std::shared_ptr<v1::Transport> transport_ = load_plugin<v1::Transport>("remoting");
  std::shared_ptr<ProducerInbox> inbox_ = std::make_shared<ProducerInbox>();
  std::shared_ptr<v1::Channel> channel_;
};

class TransactionIntegrationTest : public ::testing::Test {
 protected:
  // A name server and a broker whose check pass runs every 200 ms and asks about any half
  // message not ended at once.
  void start(std::vector<std::string> overrides = {}) {
    ASSERT_TRUE(cluster_.add_namesrv().is_ok());
    overrides.insert(overrides.end(), {"broker.transaction_time_out=0", "broker.transaction_check_interval=200ms"});
    ASSERT_TRUE(cluster_.add_broker({.name = "broker-a", .overrides = overrides}).is_ok());
    broker_ = cluster_.broker_addr(0);
    producer_ = std::make_unique<RawTransactionProducer>(broker_);
    auto created = producer_->call([] {
      auto r = RemotingCommand::request(code::kUpdateAndCreateTopic);
      for (const auto& [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
               {"topic", kTopic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "1"}, {"writeQueueNums", "1"},
               {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}}) {
        r.ext_fields.set(k, v);
      }
      return r;
    }());
    ASSERT_TRUE(created.is_ok()) << created.status().to_string();
    ASSERT_EQ(created->code, rc::kSuccess);
  }

  // Bodies of kTopic queue 0 as a consumer pulls them.
  std::vector<std::string> delivered() { return consumer_.pull_bodies(broker_, kTopic, 0, "TxConsumers"); }

  LocalCluster cluster_{"transactions"};
  RemotingClient consumer_;
  std::string broker_;
  std::unique_ptr<RawTransactionProducer> producer_;
};

TEST_F(TransactionIntegrationTest, CommittedMessageIsDeliveredRolledBackNever) {
  start({"broker.transaction_check_interval=60s"});  // no checks: the producer ends both itself
  const auto committed = producer_->send_half("AC110001000000000000000000000001", "paid");
  const auto rolled_back = producer_->send_half("AC110001000000000000000000000002", "cancelled");
  EXPECT_TRUE(delivered().empty());  // half messages are invisible
  producer_->end_oneway(rolled_back, tx::Resolution::kRollback);
  producer_->end_oneway(committed, tx::Resolution::kCommit);
  ASSERT_TRUE(eventually([&] { return !delivered().empty(); }));
  EXPECT_EQ(delivered(), std::vector<std::string>{"paid"});

  // A repeated END is refused and delivers nothing more, also after a restart or a crash.
  enum class Then { kNothing, kRestart, kCrash };
  for (const Then then : {Then::kNothing, Then::kRestart, Then::kCrash}) {
    SCOPED_TRACE(then == Then::kNothing ? "running" : then == Then::kRestart ? "after SIGTERM" : "after SIGKILL");
    if (then != Then::kNothing) {
      ASSERT_TRUE(cluster_.restart_broker(0, then == Then::kCrash).is_ok());
      producer_ = std::make_unique<RawTransactionProducer>(broker_);
    }
    auto again = producer_->call(producer_->end_request(committed, tx::Resolution::kCommit, false));
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    EXPECT_EQ(again->code, rc::kSystemError);
    EXPECT_NE(again->remark.value_or("").find("already been committed or rolled back"), std::string::npos)
        << again->remark.value_or("");
    EXPECT_EQ(delivered(), std::vector<std::string>{"paid"});
  }

  // An END naming no half message is refused with the reason; the broker carries on.
  for (const std::int64_t nowhere : {committed.commit_offset + 3, std::int64_t{-1}, std::int64_t{1} << 40}) {
    auto bogus = producer_->call(producer_->end_request({committed.unique_key, committed.queue_offset, nowhere},
                                                        tx::Resolution::kCommit, false));
    ASSERT_TRUE(bogus.is_ok()) << bogus.status().to_string();
    EXPECT_EQ(bogus->code, rc::kSystemError);
    EXPECT_NE(bogus->remark.value_or("").find("Find prepared transaction message failed"), std::string::npos)
        << bogus->remark.value_or("");
  }
  EXPECT_EQ(delivered(), std::vector<std::string>{"paid"});
}

TEST_F(TransactionIntegrationTest, UnknownTransactionIsCheckedAndCommittedThroughTheCheck) {
  start();
  producer_->join();
  const auto half = producer_->send_half("AC110001000000000000000000000003", "maybe");
  producer_->end_oneway(half, tx::Resolution::kUnknown);

  auto check = producer_->inbox().wait_for(0);
  ASSERT_TRUE(check) << "no CHECK_TRANSACTION_STATE within 15 s";
  EXPECT_EQ(check->code, code::kCheckTransactionState);
  EXPECT_TRUE(check->is_oneway());
  EXPECT_EQ(check->ext_fields.get("msgId"), half.unique_key);
  auto body = v1::decode_record(check->body, v1::CrcCheck::kVerify);
  ASSERT_TRUE(body.is_ok()) << body.status().to_string();
  EXPECT_EQ(body->topic, kTopic);
  EXPECT_EQ(std::string(body->body.begin(), body->body.end()), "maybe");
  EXPECT_EQ(v1::find_property(body->properties, "PGROUP"), kGroup);
  EXPECT_TRUE(delivered().empty());

  // The producer answers from its check listener: commit the message it was asked about.
  auto asked = tx::read_check_transaction_state_header(check->ext_fields);
  ASSERT_TRUE(asked.is_ok()) << asked.status().to_string();
  const RawTransactionProducer::Half checked{half.unique_key, asked->tran_state_table_offset,
                                             asked->commit_log_offset};
  producer_->end_oneway(checked, tx::Resolution::kCommit, true);
  ASSERT_TRUE(eventually([&] { return !delivered().empty(); }));
  EXPECT_EQ(delivered(), std::vector<std::string>{"maybe"});
}

}  // namespace
}  // namespace mqkit::testing
