// What a broken or hostile RocketMQ client can send once its frames are well formed: every request
// code the name server and the broker know, with header fields dropped, replaced by values at the
// edges of their types (or not numbers at all, or 70,000 characters long), unknown fields added,
// and bodies truncated, replaced by random bytes or by JSON of the wrong shape. Real processes on
// 127.0.0.1; seeded and bounded in count and time (MQKIT_HOSTILE_SEED and MQKIT_HOSTILE_ROUNDS run
// a longer campaign, as under ASan).
//
// What must hold, request by request and at the end:
//   - the servers stay up and keep serving well-formed requests;
//   - every request is answered (the transport matches answers by opaque; a held pull or pop may
//     wait for messages);
//   - an answer that refuses says why (a remark), as RocketMQ's do;
//   - no request reaches a server's last-resort exception handler: that would mean a value was used
//     before it was checked (its "request N from ... failed:" log line names the request).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include "hostile_values.hpp"
#include "local_cluster.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/code_names.hpp"
#include "mqkit/protocol/codes.hpp"
#include "plugin_fixture.hpp"
#include "remoting_client.hpp"

namespace mqkit::testing {
namespace {

namespace code = protocol::request_code;
namespace rc = protocol::response_code;
using plugin::v1::RemotingCommand;
using plugin::v1::Result;

constexpr std::string_view kTopic = "HostileTopic";
constexpr std::string_view kGroup = "HostileGroup";

// Header fields RocketMQ requests carry, with a value a well-behaved client would send. Every
// request starts with all of them (a processor reads what it needs), so each code's checks pass
// and the mutations reach the code behind them.
const std::vector<std::pair<std::string, std::string>>& plausible_fields() {
  static const std::vector<std::pair<std::string, std::string>> fields = {
      {"topic", std::string(kTopic)}, {"queueId", "0"}, {"queueOffset", "0"}, {"maxMsgNums", "32"},
      {"sysFlag", "2"}, {"commitOffset", "0"}, {"suspendTimeoutMillis", "50"}, {"subscription", "*"},
      {"subVersion", "0"}, {"expressionType", "TAG"}, {"consumerGroup", std::string(kGroup)},
      {"group", std::string(kGroup)}, {"producerGroup", "HostileProducers"}, {"defaultTopic", "TBW102"},
      {"defaultTopicQueueNums", "4"}, {"flag", "0"}, {"bornTimestamp", "1700000000000"},
      {"properties", "TAGS\x01TagA\x02KEYS\x01k1\x02"}, {"reconsumeTimes", "0"}, {"unitMode", "false"},
      {"batch", "false"}, {"maxReconsumeTimes", "16"}, {"offset", "0"}, {"key", "k1"},
      {"beginTimestamp", "0"}, {"endTimestamp", "9999999999999"}, {"maxNum", "32"}, {"timestamp", "0"},
      {"msgId", "7F00000100002A9F0000000000000000"}, {"offsetMsgId", "7F00000100002A9F0000000000000000"},
      {"commitLogOffset", "0"}, {"tranStateTableOffset", "0"}, {"commitOrRollback", "8"},
      {"fromTransactionCheck", "false"}, {"transactionId", "tx1"}, {"delayLevel", "0"},
      {"originMsgId", "7F00000100002A9F0000000000000000"}, {"originTopic", std::string(kTopic)},
      {"clientId", "127.0.0.1@hostile"}, {"readQueueNums", "4"}, {"writeQueueNums", "4"}, {"perm", "6"},
      {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}, {"isForce", "false"},
      {"invisibleTime", "60000"}, {"pollTime", "50"}, {"bornTime", "1700000000000"}, {"initMode", "0"},
      {"exp", "*"}, {"expType", "TAG"}, {"extraInfo", "0 0 60000 0 0 broker-a 0 0"}, {"namespace", "ns"},
      {"brokerName", "broker-a"}, {"brokerAddr", "127.0.0.1:10911"}, {"clusterName", "DefaultCluster"},
      {"haServerAddr", "127.0.0.1:10912"}, {"brokerId", "0"}, {"compressed", "false"}, {"bodyCrc32", "0"},
      {"cluster", "DefaultCluster"}, {"value", "v"}, {"cleanOffset", "false"}, {"recallHandle", "x"},
      {"isOrder", "false"}, {"setZeroIfNotFound", "true"}, {"jstackEnable", "false"},
      {"statsName", "TOPIC_PUT_NUMS"}, {"statsKey", std::string(kTopic)}, {"index", "0"}, {"count", "1"},
      {"maxMsgBytes", "4096"}, {"attributes", ""}, {"accessKey", "ak"}, {"messageModel", "CLUSTERING"},
      {"a", "HostileProducers"}, {"b", std::string(kTopic)}, {"c", "TBW102"}, {"d", "4"}, {"e", "0"},
      {"f", "0"}, {"g", "1700000000000"}, {"h", "0"}, {"i", "TAGS\x01TagA\x02"}, {"j", "0"}, {"k", "false"},
      {"l", "16"}, {"m", "false"}, {"n", "ns"}};
  return fields;
}

// Bodies a request might carry: JSON of the shapes RocketMQ sends (to the wrong codes as well),
// Java properties, a message batch, and junk.
std::vector<std::string> body_seeds() {
  std::vector<std::string> seeds = {
      "", "{}", "[]", "null", "{\"", "{\"a\":", "[[[[[[[[[[[[[[[[", "\"x\"",
      R"({"clientID":"127.0.0.1@hostile","consumerDataSet":[{"groupName":"HostileGroup","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[{"classFilterMode":false,"topic":"HostileTopic","subString":"TagA || TagB","tagsSet":["TagA","TagB"],"codeSet":[1,2],"subVersion":1,"expressionType":"TAG"}],"unitMode":false}],"producerDataSet":[{"groupName":"HostileProducers"}]})",
      R"({"consumerGroup":"HostileGroup","clientId":"127.0.0.1@hostile","mqSet":[{"topic":"HostileTopic","brokerName":"broker-a","queueId":0},{"topic":"HostileTopic","brokerName":"broker-a","queueId":-5}]})",
      R"({"topicConfigSerializeWrapper":{"topicConfigTable":{"HostileTopic":{"topicName":"HostileTopic","readQueueNums":4,"writeQueueNums":4,"perm":6,"topicFilterType":"SINGLE_TAG","topicSysFlag":0,"order":false}},"dataVersion":{"timestamp":0,"counter":1}},"filterServerList":[]})",
      R"([{"topicName":"HostileTopic","readQueueNums":-1,"writeQueueNums":99999,"perm":255}])",
      R"({"groupName":"HostileGroup","consumeEnable":true,"retryQueueNums":-1,"retryMaxTimes":2147483647,"brokerId":0,"whichBrokerWhenConsumeSlowly":1})",
      R"({"clientId":"c","group":"HostileGroup","subscriptionData":{"topic":"HostileTopic","subString":"a > ","expressionType":"SQL92"}})",
      R"({"offsetTable":{{"topic":"HostileTopic","brokerName":"broker-a","queueId":0}:5}})",
      "brokerPermission=0\nflushDiskType=SYNC_FLUSH\nlistenPort=1\n", "rocketmqHome=/tmp\nnamesrvAddr=x\n",
      "=\n\\u12", "kvConfigPath=/tmp/x\nconfigStorePath=/tmp/y\n"};
  std::string batch;
  plugin::v1::Properties properties{{"TAGS", "TagA"}, {"KEYS", "k"}};
  const std::string body = "hostile";
  const auto bytes = std::span(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
  plugin::v1::append_batch_item(batch, 0, bytes, plugin::v1::encode_properties(properties));
  plugin::v1::append_batch_item(batch, 0, bytes, plugin::v1::encode_properties({{"DELAY", "3"}}));
  seeds.push_back(batch);
  seeds.push_back(batch.substr(0, batch.size() - 3));
  return seeds;
}

// Request codes either server knows, and a few nobody does.
std::vector<std::int32_t> known_codes() {
  std::vector<std::int32_t> codes;
  for (std::int32_t c = 0; c < 400'000; ++c) {
    if (!protocol::request_code_name(c).empty()) codes.push_back(c);
  }
  codes.insert(codes.end(), {-1, 9999, 1'000'000});
  return codes;
}

// Requests whose answer may wait for messages (long polling).
bool may_be_held(std::int32_t c) {
  return c == code::kPullMessage || c == code::kLitePullMessage || c == code::kPopMessage;
}

// A non-zero answer that is an outcome, not a refusal: it needs no remark.
bool is_outcome(std::int32_t response) {
  return response == rc::kPullNotFound || response == rc::kPullRetryImmediately || response == rc::kPullOffsetMoved ||
         response == rc::kQueryNotFound || response == rc::kFlushDiskTimeout || response == rc::kSlaveNotAvailable ||
         response == rc::kFlushSlaveTimeout || response == rc::kNoMessage;
}

class RequestMutator {
 public:
  explicit RequestMutator(std::uint64_t seed) : random_(seed), values_(hostile_strings()), bodies_(body_seeds()) {}

  RemotingCommand next(std::int32_t request_code) {
    auto request = RemotingCommand::request(request_code);
    for (const auto& [key, value] : plausible_fields()) {
      const int roll = pick(100);
      if (roll < 4) continue;                                   // dropped
      request.ext_fields.set(key, roll < 12 ? hostile() : value);  // broken, or as a client sends it
    }
    for (int extra = pick(3); extra > 0; --extra) {
      request.ext_fields.set(pick(2) == 0 ? hostile() : "unknownField" + std::to_string(pick(5)), hostile());
    }
    // The binary header holds the code in 16 bits and a key's length in 16: larger ones go as JSON.
    const bool binary_fits =
        request_code >= INT16_MIN && request_code <= INT16_MAX &&
        std::all_of(request.ext_fields.begin(), request.ext_fields.end(), [](const auto& f) { return f.first.size() <= UINT16_MAX; });
    request.serialize_type = binary_fits && pick(2) == 0 ? plugin::v1::SerializeType::kRocketMq : plugin::v1::SerializeType::kJson;
    // Any version a 16-bit header field holds (the binary header's width; JSON is no wider in practice).
    request.version = pick(4) == 0 ? static_cast<std::int16_t>(random_()) : 401;
    request.body = body_bytes();
    return request;
  }

 private:
  int pick(int n) { return static_cast<int>(random_() % static_cast<std::uint64_t>(n)); }
  const std::string& hostile() { return values_[static_cast<std::size_t>(pick(static_cast<int>(values_.size())))]; }

  std::vector<std::uint8_t> body_bytes() {
    std::string body = bodies_[static_cast<std::size_t>(pick(static_cast<int>(bodies_.size())))];
    switch (pick(6)) {
      case 0:  // truncated
        body.resize(body.empty() ? 0 : static_cast<std::size_t>(pick(static_cast<int>(body.size()))));
        break;
      case 1:  // random bytes
        body.resize(static_cast<std::size_t>(pick(512)));
        for (auto& c : body) c = static_cast<char>(random_());
        break;
      case 2:  // a few bytes flipped
        for (int i = 0; i < 3 && !body.empty(); ++i) body[static_cast<std::size_t>(pick(static_cast<int>(body.size())))] ^= static_cast<char>(1 + pick(255));
        break;
      default: break;
    }
    return {body.begin(), body.end()};
  }

  std::mt19937_64 random_;
  std::vector<std::string> values_;
  std::vector<std::string> bodies_;
};

// What the servers answered, gathered from the transport's callbacks.
struct Findings {
  std::mutex mutex;
  std::condition_variable idle;
  int in_flight = 0;
  std::int64_t answered = 0;
  std::int64_t held = 0;
  std::map<std::int32_t, std::int64_t> by_response_code;
  std::vector<std::string> problems;

  void add_problem(std::string problem) {
    if (problems.size() < 40) problems.push_back(std::move(problem));
  }
};

// The request as it differs from a well-behaved one: the fields changed, dropped or added.
std::string describe(const RemotingCommand& request) {
  const auto shown = [](const std::string& value) {
    return value.size() > 40 ? value.substr(0, 40) + "...(" + std::to_string(value.size()) + " chars)" : value;
  };
  std::ostringstream out;
  out << "code " << request.code << " (" << protocol::request_code_name(request.code) << "), version "
      << request.version << ", fields {";
  std::set<std::string> seen;
  for (const auto& [key, value] : request.ext_fields) {
    seen.insert(key);
    const auto& plausible = plausible_fields();
    const auto it = std::find_if(plausible.begin(), plausible.end(), [&](const auto& f) { return f.first == key; });
    if (it == plausible.end() || it->second != value) out << " " << shown(key) << "=" << shown(value);
  }
  out << " } without {";
  for (const auto& [key, value] : plausible_fields()) {
    if (!seen.contains(key)) out << " " << key;
  }
  out << " }, body of " << request.body.size() << " bytes";
  return out.str();
}

// Signs a request as a client of a broker with ACL would, or not (nothing to do without ACL).
using Signer = std::function<void(RemotingCommand&)>;

// Sends `rounds` mutated requests of every known code to `address`, at most 32 in flight.
void send_hostile_requests(plugin::v1::Transport& transport, const std::string& address, std::uint64_t seed,
                           std::uint64_t rounds, const Signer& sign, Findings& findings) {
  RequestMutator mutator(seed);
  const auto codes = known_codes();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (std::uint64_t round = 0; round < rounds && std::chrono::steady_clock::now() < deadline; ++round) {
    for (const std::int32_t request_code : codes) {
      RemotingCommand request = mutator.next(request_code);
      sign(request);
      const std::string what = describe(request);
      {
        std::unique_lock lock(findings.mutex);
        findings.idle.wait(lock, [&] { return findings.in_flight < 32; });
        ++findings.in_flight;
      }
      const bool holdable = may_be_held(request_code);
      const auto timeout = holdable ? std::chrono::milliseconds(1500) : std::chrono::milliseconds(12'000);
      transport.invoke(address, std::move(request), timeout,
                       [&findings, what, holdable](Result<RemotingCommand> response) {
                         std::lock_guard lock(findings.mutex);
                         --findings.in_flight;
                         findings.idle.notify_all();
                         if (!response) {
                           if (holdable && response.status().code() == plugin::v1::StatusCode::kTimeout) {
                             ++findings.held;
                           } else {
                             findings.add_problem("no answer (" + response.status().to_string() + ") to " + what);
                           }
                           return;
                         }
                         ++findings.answered;
                         ++findings.by_response_code[response->code];
                         if (response->code != rc::kSuccess && !is_outcome(response->code) &&
                             response->remark.value_or("").empty()) {
                           findings.add_problem("refusal " + std::to_string(response->code) + " without a remark to " + what);
                         }
                       });
    }
  }
  std::unique_lock lock(findings.mutex);
  findings.idle.wait(lock, [&] { return findings.in_flight == 0; });
}

// The servers' last-resort handler lines ("request N from ... failed: ...").
std::vector<std::string> unhandled_failures(const std::filesystem::path& log) {
  std::vector<std::string> lines;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(" request ") != std::string::npos && line.find(" failed: ") != std::string::npos &&
        line.find(" error [") != std::string::npos) {
      lines.push_back(line.substr(0, 400));
    }
  }
  return lines;
}

// Brokers that take different paths: the production store with SQL filters; the memory store as a
// SYNC_MASTER without a slave (sends answered SLAVE_NOT_AVAILABLE) with reads from slaves allowed;
// a broker checking an ACL, with requests signed by an admin, by a user, with a wrong secret or not
// at all (signed after they were broken, so the broken values reach the checks behind the ACL);
// a slave whose master never comes.
struct BrokerVariant {
  std::string name;
  BrokerSpec spec;
  bool acl = false;
};

const protocol::acl::Credentials kAdmin{.access_key = "hostile-admin", .secret_key = "hostile-admin-secret"};
const protocol::acl::Credentials kUser{.access_key = "hostile-user", .secret_key = "hostile-user-secret"};

constexpr std::string_view kAclFile = R"(global_white_remote_addresses = []

[[accounts]]
access_key = "hostile-admin"
secret_key = "hostile-admin-secret"
admin = true

[[accounts]]
access_key = "hostile-user"
secret_key = "hostile-user-secret"
default_topic_perm = "PUB|SUB"
default_group_perm = "SUB"
topic_perms = ["HostileTopic=PUB"]
)";

class HostileRequestsTest : public ::testing::TestWithParam<BrokerVariant> {};

INSTANTIATE_TEST_SUITE_P(
    Brokers, HostileRequestsTest,
    ::testing::Values(BrokerVariant{"commitlog", {.overrides = {"broker.enable_property_filter=true"}}},
                      BrokerVariant{"memory_sync_master",
                                    {.store = "memory", .overrides = {"broker.slave_read_enable=true"}, .role = "SYNC_MASTER"}},
                      BrokerVariant{"acl", {.store = "memory"}, /*acl=*/true},
                      BrokerVariant{"slave_without_master", {.broker_id = 1, .role = "SLAVE"}}),
    [](const auto& test) { return test.param.name; });

TEST_P(HostileRequestsTest, ServersAnswerEveryMalformedRequestAndStayUp) {
  LocalCluster cluster("hostile_requests_" + GetParam().name);
  ASSERT_TRUE(cluster.add_namesrv().is_ok());
  BrokerSpec spec = GetParam().spec;
  const bool acl = GetParam().acl;
  if (acl) {
    const auto acl_path = cluster.directory() / "plain_acl.toml";
    std::ofstream(acl_path) << kAclFile;
    spec.overrides.insert(spec.overrides.end(), {"broker.acl_enable=true", "broker.acl_file=" + acl_path.string()});
  }
  ASSERT_TRUE(cluster.add_broker(spec).is_ok());
  RemotingClient client;
  // The test's own requests, signed by the admin where the broker checks an ACL.
  const auto call_as_admin = [&](const std::string& address, RemotingCommand request) {
    if (acl) {
      EXPECT_TRUE(protocol::acl::sign(request, kAdmin).is_ok());
    }
    return client.call(address, std::move(request));
  };
  const auto create_topic = [&](const std::string& topic) {
    auto created = call_as_admin(cluster.broker_addr(0),
                                 make_request(code::kUpdateAndCreateTopic,
                                              {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "4"},
                                               {"writeQueueNums", "4"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                                               {"topicSysFlag", "0"}, {"order", "false"}}));
    ASSERT_TRUE(created.is_ok()) << created.status().to_string();
    ASSERT_EQ(created->code, rc::kSuccess) << created->remark.value_or("");
  };
  const bool slave = spec.role == "SLAVE";
  if (!slave) create_topic(std::string(kTopic));  // a slave takes its topics from its master

  auto transport = load_plugin<plugin::v1::Transport>("remoting");
  ASSERT_TRUE(transport);
  const std::uint64_t seed = campaign_setting("MQKIT_HOSTILE_SEED", 20261201);
  const std::uint64_t rounds = campaign_setting("MQKIT_HOSTILE_ROUNDS", 8);
  SCOPED_TRACE("MQKIT_HOSTILE_SEED=" + std::to_string(seed));

  for (const auto& [server, address] : {std::pair{"name server", cluster.namesrv_addr(0)},
                                        std::pair{"broker", cluster.broker_addr(0)}}) {
    Findings findings;
    std::mt19937_64 signing(seed);
    const Signer sign = [&](RemotingCommand& request) {
      if (!acl) return;
      const auto roll = signing() % 20;
      const protocol::acl::Credentials wrong{.access_key = kUser.access_key, .secret_key = "not-the-secret"};
      if (roll < 3) return;  // unsigned
      (void)protocol::acl::sign(request, roll < 12 ? kAdmin : roll < 18 ? kUser : wrong);
    };
    // Each variant breaks the name server's requests its own way too (the same base seed
    // reproduces a variant's run).
    send_hostile_requests(*transport, address, seed ^ std::hash<std::string>{}(GetParam().name), rounds, sign, findings);
    std::string answers;
    for (const auto& [response, count] : findings.by_response_code) {
      answers += " " + std::to_string(response) + ":" + std::to_string(count);
    }
    std::cout << server << ": " << findings.answered << " answered (by code" << answers << "), " << findings.held
              << " held pulls or pops\n";
    EXPECT_GT(findings.answered, 0) << server;
    for (const auto& problem : findings.problems) ADD_FAILURE() << server << ": " << problem;
  }
  transport->shutdown();

  ASSERT_TRUE(cluster.namesrv(0).running()) << cluster.namesrv(0).log_tail();
  ASSERT_TRUE(cluster.broker(0).running()) << cluster.broker(0).log_tail();
  // Still serving (the requests may have deleted the topic and the broker's registration, or
  // taken the broker's permissions: a fresh topic and the cluster table do not depend on them).
  auto clusters = client.call(cluster.namesrv_addr(0), make_request(code::kGetBrokerClusterInfo, {}));
  ASSERT_TRUE(clusters.is_ok()) << clusters.status().to_string();
  EXPECT_EQ(clusters->code, rc::kSuccess) << clusters->remark.value_or("");
  if (!slave) {
    create_topic("AfterTheHostileRequests");
    auto max_offset = call_as_admin(cluster.broker_addr(0),
                                    make_request(code::kGetMaxOffset, {{"topic", "AfterTheHostileRequests"}, {"queueId", "0"}}));
    ASSERT_TRUE(max_offset.is_ok()) << max_offset.status().to_string();
    EXPECT_EQ(max_offset->code, rc::kSuccess) << max_offset->remark.value_or("");
  }
  auto runtime = call_as_admin(cluster.broker_addr(0), make_request(code::kGetBrokerRuntimeInfo, {}));
  ASSERT_TRUE(runtime.is_ok()) << runtime.status().to_string();
  EXPECT_EQ(runtime->code, rc::kSuccess) << runtime->remark.value_or("");

  // A client reads back what the broken requests left: mqadmin, on the SDK like any client,
  // ends with an answer or an error, not a signal and not a hang. The topic is declared again,
  // and so registered again, since the requests may have taken its route from the name server.
  if (!slave) {
    create_topic(std::string(kTopic));
    EXPECT_TRUE(eventually([&] {
      auto routed = client.call(cluster.namesrv_addr(0), make_request(code::kGetRouteInfoByTopic, {{"topic", std::string(kTopic)}}));
      return routed.is_ok() && routed->code == rc::kSuccess;
    }, std::chrono::seconds(20))) << "no route of " << kTopic << " after the broker registered it again";
  }
  const std::vector<std::vector<std::string>> reads = {
      {"consumeMessage", "-t", std::string(kTopic), "-c", "2000"},
      {"queryMsgByKey", "-t", std::string(kTopic), "-k", "k1"},
      {"topicStatus", "-t", std::string(kTopic)},
      {"consumerProgress", "-g", std::string(kGroup)}};
  for (auto args : reads) {
    args.insert(args.end(), {"-n", cluster.namesrv_addr(0)});
    if (acl) args.insert(args.end(), {"--access-key", kAdmin.access_key, "--secret-key", kAdmin.secret_key});
    auto child = ChildProcess::spawn("mqadmin", args, "hostile-mqadmin-" + args.front());
    ASSERT_TRUE(child.is_ok()) << child.status().to_string();
    const std::optional<int> code = child->run_to_end(std::chrono::seconds(30));
    std::cout << "mqadmin " << args.front() << ": exit " << code.value_or(-1) << ", " << child->output().size()
              << " bytes\n";
    EXPECT_TRUE(code.has_value()) << "mqadmin " << args.front() << " did not end within 30 s";
    EXPECT_GE(code.value_or(0), 0) << "mqadmin " << args.front() << " died of signal " << -code.value_or(0) << ": "
                                   << child->log_tail();
  }

  for (const auto& line : unhandled_failures(cluster.namesrv(0).log_path())) ADD_FAILURE() << "name server: " << line;
  for (const auto& line : unhandled_failures(cluster.broker(0).log_path())) ADD_FAILURE() << "broker: " << line;
}

}  // namespace
}  // namespace mqkit::testing
