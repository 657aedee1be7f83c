// Master/slave replication (docs/replication.md) with real processes on 127.0.0.1: a slave copies
// its master's commit log byte for byte and serves the same records, refuses sends, resumes from
// its own log after a restart; a SYNC_MASTER answers sends only once a slave has them.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "local_cluster.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/store_bodies.hpp"
#include "remoting_client.hpp"

namespace mqkit::testing {
namespace {

namespace code = protocol::request_code;
namespace rc = protocol::response_code;
using plugin::v1::RemotingCommand;
using Records = std::vector<std::vector<std::uint8_t>>;

constexpr int kQueues = 2;
// Quick heartbeats and reconnects, so a slave finds its master soon after it starts.
const std::vector<std::string> kFastHa = {"broker.ha_send_heartbeat_interval=200ms"};

constexpr auto request = &make_request;

class ReplicationTest : public ::testing::Test {
 protected:
  RemotingClient client_;

  static bool eventually(const std::function<bool()>& condition) {
    return testing::eventually(condition, std::chrono::seconds(30));
  }

  void create_topic(const std::string& broker, const std::string& topic) {
    client_.create_topic(broker, topic, kQueues);
  }

  // SEND_MESSAGE_V2 of one message; the response code (-1 when the call failed).
  int send(const std::string& broker, const std::string& topic, int queue, const std::string& body,
           const std::string& delay_level = "") {
    plugin::v1::Properties properties{{"TAGS", "TagA"}, {"KEYS", body}};
    if (!delay_level.empty()) properties.emplace_back("DELAY", delay_level);
    auto r = request(code::kSendMessageV2, {{"a", "PG"}, {"b", topic}, {"c", "TBW102"}, {"d", "4"},
                                            {"e", std::to_string(queue)}, {"f", "0"}, {"g", "1700000000000"},
                                            {"h", "0"}, {"i", plugin::v1::encode_properties(properties)},
                                            {"j", "0"}, {"k", "false"}});
    r.body.assign(body.begin(), body.end());
    auto response = client_.call(broker, std::move(r));
    if (!response) return -1;
    last_remark_ = response->remark.value_or("");
    return response->code;
  }

  std::int64_t commit_log_max_offset(const std::string& broker) { return runtime_value(broker, "commitLogMaxOffset"); }
  std::int64_t commit_log_min_offset(const std::string& broker) { return runtime_value(broker, "commitLogMinOffset"); }

  // A number of GET_BROKER_RUNTIME_INFO; -1 when absent.
  std::int64_t runtime_value(const std::string& broker, const std::string& key) {
    auto r = client_.call(broker, request(code::kGetBrokerRuntimeInfo, {}));
    if (!r || r->code != rc::kSuccess) return -1;
    auto info = protocol::decode_kv_table(protocol::body_text(*r));
    if (!info) return -1;
    auto it = info->table.find(key);
    return it == info->table.end() ? -1 : std::stoll(it->second);
  }

  // GET_MIN_OFFSET of a queue; -1 when the call failed.
  std::int64_t queue_min_offset(const std::string& broker, const std::string& topic, int queue) {
    auto r = client_.call(broker, request(code::kGetMinOffset, {{"topic", topic}, {"queueId", std::to_string(queue)}}));
    if (!r || r->code != rc::kSuccess) return -1;
    auto offset = r->ext_fields.get("offset");
    return offset ? std::stoll(std::string(*offset)) : -1;
  }

  // Every record of a queue, pulled 32 at a time (bounded by `limit` pulls).
  Records all_records(const std::string& broker, const std::string& topic, int queue, int limit = 100) {
    Records out;
    for (int i = 0; i < limit; ++i) {
      auto batch = client_.pull_records(broker, topic, queue, static_cast<std::int64_t>(out.size()));
      if (batch.empty()) break;
      out.insert(out.end(), batch.begin(), batch.end());
    }
    return out;
  }

  void produce(const std::string& broker, const std::string& topic, int from, int count) {
    for (int i = from; i < from + count; ++i) {
      // Bodies of varying sizes, some larger than a 1 KiB transfer batch.
      const std::string body = "message-" + std::to_string(i) + std::string(static_cast<std::size_t>(i * 37 % 3000), 'x');
      ASSERT_EQ(send(broker, topic, i % kQueues, body), rc::kSuccess) << last_remark_;
    }
  }

  // The slave has the master's whole log, and serves every record of every queue byte for byte.
  void expect_same_records(const std::string& master, const std::string& slave, const std::string& topic,
                           std::size_t expected) {
    const std::int64_t master_end = commit_log_max_offset(master);
    ASSERT_GT(master_end, 0);
    ASSERT_TRUE(eventually([&] { return commit_log_max_offset(slave) == master_end; }))
        << "slave at " << commit_log_max_offset(slave) << ", master at " << master_end;
    std::size_t total = 0;
    for (int q = 0; q < kQueues; ++q) {
      Records from_master = all_records(master, topic, q);
      Records from_slave;
      // The slave's consume queues are built after its commit log grew: wait for them.
      ASSERT_TRUE(eventually([&] {
        from_slave = all_records(slave, topic, q);
        return from_slave.size() >= from_master.size();
      }));
      ASSERT_EQ(from_slave.size(), from_master.size()) << "queue " << q;
      for (std::size_t i = 0; i < from_master.size(); ++i) EXPECT_EQ(from_slave[i], from_master[i]) << "queue " << q << " #" << i;
      total += from_master.size();
    }
    EXPECT_EQ(total, expected);
  }

  // The body of a request without header fields; empty when it failed.
  std::string body_of(const std::string& broker, std::int32_t request_code) {
    auto r = client_.call(broker, request(request_code, {}));
    if (!r || r->code != rc::kSuccess) return {};
    return std::string(protocol::body_text(*r));
  }

  // QUERY_CONSUMER_OFFSET; -1 when the broker has none (or the call failed).
  std::int64_t committed_offset(const std::string& broker, const std::string& group, const std::string& topic,
                                int queue) {
    auto r = client_.call(broker, request(code::kQueryConsumerOffset,
                                          {{"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(queue)}}));
    if (!r || r->code != rc::kSuccess) return -1;
    auto offset = r->ext_fields.get("offset");
    return offset ? std::stoll(std::string(*offset)) : -1;
  }

  std::string last_remark_;
};

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(ReplicationTest, SlaveCopiesTheMasterRefusesSendsAndResumesAfterARestart) {
  LocalCluster cluster("replication-async");
  ASSERT_TRUE(cluster.add_namesrv());
  // A small transfer batch: records are cut across frames as a RocketMQ master cuts them.
  ASSERT_TRUE(cluster.add_broker({.overrides = {"broker.ha_transfer_batch_size=1KiB"}}));
  const std::string master = cluster.broker_addr(0);
  create_topic(master, "ReplicatedTopic");
  produce(master, "ReplicatedTopic", 0, 100);

  // The slave learns the master's HA address from the name server.
  ASSERT_TRUE(cluster.add_broker({.overrides = kFastHa, .broker_id = 1, .role = "SLAVE"}));
  const std::string slave = cluster.broker_addr(1);
  produce(master, "ReplicatedTopic", 100, 100);
  expect_same_records(master, slave, "ReplicatedTopic", 200);

  // GET_BROKER_HA_STATUS (mqadmin haStatus): the master sees one slave in sync, the slave its master.
  const auto ha_status = [&](const std::string& broker) {
    auto answer = client_.call(broker, request(code::kGetBrokerHaStatus, {}));
    EXPECT_TRUE(answer.is_ok() && answer->code == rc::kSuccess);
    auto info = protocol::decode_ha_runtime_info(answer ? protocol::body_text(*answer) : std::string_view("{}"));
    EXPECT_TRUE(info.is_ok()) << info.status().to_string();
    return info.value_or(protocol::HaRuntimeInfo{});
  };
  protocol::HaRuntimeInfo seen_by_master;
  ASSERT_TRUE(eventually([&] {
    seen_by_master = ha_status(master);
    return seen_by_master.ha_connection_info.size() == 1 && seen_by_master.ha_connection_info[0].diff == 0;
  }));
  EXPECT_TRUE(seen_by_master.master);
  EXPECT_EQ(seen_by_master.in_sync_slave_nums, 1);
  EXPECT_GT(seen_by_master.master_commit_log_max_offset, 0);
  EXPECT_EQ(seen_by_master.ha_connection_info[0].slave_ack_offset, seen_by_master.master_commit_log_max_offset);
  EXPECT_EQ(seen_by_master.ha_connection_info[0].transfer_from_where, seen_by_master.master_commit_log_max_offset);
  EXPECT_TRUE(seen_by_master.ha_connection_info[0].addr.starts_with("127.0.0.1:"));
  const protocol::HaRuntimeInfo seen_by_slave = ha_status(slave);
  EXPECT_FALSE(seen_by_slave.master);
  EXPECT_EQ(seen_by_slave.ha_client_runtime_info.max_offset, seen_by_master.master_commit_log_max_offset);
  EXPECT_FALSE(seen_by_slave.ha_client_runtime_info.master_addr.empty());
  EXPECT_GT(seen_by_slave.ha_client_runtime_info.last_read_timestamp, 1'600'000'000'000);

  // A slave stores nothing a producer sends.
  EXPECT_EQ(send(slave, "ReplicatedTopic", 0, "refused"), rc::kServiceNotAvailable);
  EXPECT_NE(last_remark_.find("slave"), std::string::npos) << last_remark_;

  // Restarted, it reports its own log's end and gets only what it misses.
  cluster.broker(1).stop();
  produce(master, "ReplicatedTopic", 200, 50);
  ASSERT_TRUE(cluster.restart_broker(1));
  expect_same_records(master, slave, "ReplicatedTopic", 250);
  const std::string log = file_text(cluster.broker(1).log_path());
  std::smatch resumed;
  ASSERT_TRUE(std::regex_search(log, resumed, std::regex("this log ends at ([0-9]+)"))) << cluster.broker(1).log_tail();
  EXPECT_GT(std::stoll(resumed[1]), 0);
}

TEST_F(ReplicationTest, AnEmptySlaveStartsAtTheMastersLastCommitLogFile) {
  LocalCluster cluster("replication-last-file");
  ASSERT_TRUE(cluster.add_namesrv());
  constexpr std::int64_t kFileSize = 64 * 1024;
  const std::vector<std::string> small_files = {"store.mapped_file_size_commit_log=64KiB"};
  ASSERT_TRUE(cluster.add_broker({.overrides = small_files}));
  const std::string master = cluster.broker_addr(0);
  create_topic(master, "LastFileTopic");
  produce(master, "LastFileTopic", 0, 120);  // about 180 KB: three files and part of a fourth
  const std::int64_t master_end = commit_log_max_offset(master);
  ASSERT_GT(master_end, 2 * kFileSize);
  const std::int64_t last_file = master_end - master_end % kFileSize;

  std::vector<std::string> slave_overrides = kFastHa;
  slave_overrides.insert(slave_overrides.end(), small_files.begin(), small_files.end());
  ASSERT_TRUE(cluster.add_broker({.overrides = slave_overrides, .broker_id = 1, .role = "SLAVE"}));
  const std::string slave = cluster.broker_addr(1);
  ASSERT_TRUE(eventually([&] { return commit_log_max_offset(slave) == master_end; }))
      << "slave at " << commit_log_max_offset(slave) << "\n" << cluster.broker(1).log_tail();
  EXPECT_EQ(commit_log_min_offset(slave), last_file) << "the slave holds the master's last file only";

  // Each queue starts on the slave at the first record of that file, with the master's queue
  // offsets, and serves the same bytes from there; what is sent later follows.
  produce(master, "LastFileTopic", 120, 10);
  const std::int64_t new_end = commit_log_max_offset(master);
  ASSERT_TRUE(eventually([&] { return commit_log_max_offset(slave) == new_end; }));
  for (int q = 0; q < kQueues; ++q) {
    const std::int64_t first = queue_min_offset(slave, "LastFileTopic", q);
    ASSERT_GT(first, 0) << "queue " << q;
    Records from_master;
    for (int i = 0; i < 100; ++i) {
      auto batch = client_.pull_records(master, "LastFileTopic", q, first + static_cast<std::int64_t>(from_master.size()));
      if (batch.empty()) break;
      from_master.insert(from_master.end(), batch.begin(), batch.end());
    }
    ASSERT_FALSE(from_master.empty());
    Records from_slave;
    ASSERT_TRUE(eventually([&] {
      from_slave.clear();
      for (int i = 0; i < 100; ++i) {
        auto batch = client_.pull_records(slave, "LastFileTopic", q, first + static_cast<std::int64_t>(from_slave.size()));
        if (batch.empty()) break;
        from_slave.insert(from_slave.end(), batch.begin(), batch.end());
      }
      return from_slave.size() >= from_master.size();
    })) << "queue " << q;
    ASSERT_EQ(from_slave.size(), from_master.size()) << "queue " << q;
    for (std::size_t i = 0; i < from_master.size(); ++i) EXPECT_EQ(from_slave[i], from_master[i]) << "queue " << q;
    // The record before the slave's first is in an earlier file of the master.
    const auto before = client_.pull_records(master, "LastFileTopic", q, first - 1);
    ASSERT_FALSE(before.empty());
    auto record = plugin::v1::decode_record(before.front());
    ASSERT_TRUE(record.is_ok());
    EXPECT_LT(record->commit_offset, last_file);
  }
}

TEST_F(ReplicationTest, SyncMasterAnswersOnlyOnceASlaveHasTheMessage) {
  LocalCluster cluster("replication-sync");
  ASSERT_TRUE(cluster.add_namesrv());
  ASSERT_TRUE(cluster.add_broker({.role = "SYNC_MASTER"}));
  const std::string master = cluster.broker_addr(0);
  create_topic(master, "SyncTopic");
  // No slave: stored, but answered SLAVE_NOT_AVAILABLE.
  EXPECT_EQ(send(master, "SyncTopic", 0, "alone"), rc::kSlaveNotAvailable);

  ASSERT_TRUE(cluster.add_broker({.overrides = kFastHa, .broker_id = 1, .role = "SLAVE"}));
  const std::string slave = cluster.broker_addr(1);
  // Once the slave has connected, every send is acknowledged by it before the answer.
  int attempts = 0;
  ASSERT_TRUE(eventually([&] {
    ++attempts;
    return send(master, "SyncTopic", 1, "probe-" + std::to_string(attempts)) == rc::kSuccess;
  }));
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(send(master, "SyncTopic", i % kQueues, "sync-" + std::to_string(i)), rc::kSuccess) << last_remark_;
  }
  expect_same_records(master, slave, "SyncTopic", static_cast<std::size_t>(1 + attempts + 20));

  // The slave gone: SLAVE_NOT_AVAILABLE again.
  cluster.broker(1).stop();
  ASSERT_TRUE(eventually([&] { return send(master, "SyncTopic", 0, "gone") == rc::kSlaveNotAvailable; }));
}

TEST_F(ReplicationTest, SlaveTakesTheMastersOffsetsGroupsAndDelayOffsets) {
  LocalCluster cluster("replication-metadata");
  ASSERT_TRUE(cluster.add_namesrv());
  ASSERT_TRUE(cluster.add_broker({}));
  ASSERT_TRUE(cluster.add_broker({.overrides = kFastHa, .broker_id = 1, .role = "SLAVE"}));
  const std::string master = cluster.broker_addr(0);
  const std::string slave = cluster.broker_addr(1);
  create_topic(master, "OffsetTopic");
  produce(master, "OffsetTopic", 0, 10);

  // A consumer commits its offsets on the master (a slave keeps no commits of its own).
  for (int q = 0; q < kQueues; ++q) {
    auto r = client_.call(master, request(code::kUpdateConsumerOffset, {{"consumerGroup", "SyncedGroup"},
                                                                        {"topic", "OffsetTopic"},
                                                                        {"queueId", std::to_string(q)},
                                                                        {"commitOffset", std::to_string(3 + q)}}));
    ASSERT_TRUE(r.is_ok() && r->code == rc::kSuccess);
  }
  // A group created on the master.
  auto group = request(code::kUpdateAndCreateSubscriptionGroup, {});
  protocol::set_body(group, R"({"groupName":"CreatedOnMaster","retryMaxTimes":5})");
  ASSERT_EQ(client_.call(master, std::move(group))->code, rc::kSuccess);
  // A delayed message (level 1, 1 s) delivered on the master moves its delay offset.
  ASSERT_EQ(send(master, "OffsetTopic", 0, "delayed", "1"), rc::kSuccess) << last_remark_;
  ASSERT_TRUE(eventually([&] { return body_of(master, code::kGetAllDelayOffset).find(R"("1":1)") != std::string::npos; }))
      << body_of(master, code::kGetAllDelayOffset);

  // The slave copies all three (first after 3 s, then every 10 s).
  ASSERT_TRUE(eventually([&] {
    return committed_offset(slave, "SyncedGroup", "OffsetTopic", 0) == 3 &&
           committed_offset(slave, "SyncedGroup", "OffsetTopic", 1) == 4;
  })) << cluster.broker(1).log_tail();
  EXPECT_EQ(body_of(slave, code::kGetAllConsumerOffset), body_of(master, code::kGetAllConsumerOffset));
  ASSERT_TRUE(eventually([&] {
    return body_of(slave, code::kGetAllSubscriptionGroupConfig).find(R"("CreatedOnMaster":{)") != std::string::npos;
  })) << body_of(slave, code::kGetAllSubscriptionGroupConfig);
  EXPECT_EQ(body_of(slave, code::kGetAllSubscriptionGroupConfig), body_of(master, code::kGetAllSubscriptionGroupConfig));
  ASSERT_TRUE(eventually([&] {
    return body_of(slave, code::kGetAllDelayOffset) == body_of(master, code::kGetAllDelayOffset);
  })) << body_of(slave, code::kGetAllDelayOffset);

  // A later commit on the master reaches the slave too.
  auto r = client_.call(master, request(code::kUpdateConsumerOffset, {{"consumerGroup", "SyncedGroup"},
                                                                      {"topic", "OffsetTopic"},
                                                                      {"queueId", "0"},
                                                                      {"commitOffset", "8"}}));
  ASSERT_TRUE(r.is_ok() && r->code == rc::kSuccess);
  ASSERT_TRUE(eventually([&] { return committed_offset(slave, "SyncedGroup", "OffsetTopic", 0) == 8; }));
}

TEST_F(ReplicationTest, SyncMasterAnswersFlushSlaveTimeoutWhenTheSlaveStopsAcknowledging) {
  LocalCluster cluster("replication-flush-slave-timeout");
  ASSERT_TRUE(cluster.add_namesrv());
  ASSERT_TRUE(cluster.add_broker({.overrides = {"broker.ha_slave_timeout=1s"}, .role = "SYNC_MASTER"}));
  const std::string master = cluster.broker_addr(0);
  create_topic(master, "PausedSlaveTopic");
  ASSERT_TRUE(cluster.add_broker({.overrides = kFastHa, .broker_id = 1, .role = "SLAVE"}));
  int attempts = 0;
  ASSERT_TRUE(eventually([&] {
    return send(master, "PausedSlaveTopic", 0, "probe-" + std::to_string(++attempts)) == rc::kSuccess;
  }));

  // A frozen slave keeps its connection (well within ha_housekeeping_interval) but acknowledges
  // nothing: the send is stored and answered FLUSH_SLAVE_TIMEOUT once ha_slave_timeout passed.
  cluster.broker(1).pause();
  EXPECT_EQ(send(master, "PausedSlaveTopic", 0, "unacknowledged"), rc::kFlushSlaveTimeout) << last_remark_;
  cluster.broker(1).resume();

  // Thawed, it catches up and acknowledges again; the message it missed is on both.
  int after = 0;  // every send is stored, whatever it is answered
  ASSERT_TRUE(eventually([&] { return send(master, "PausedSlaveTopic", 1, "after-" + std::to_string(++after)) == rc::kSuccess; }));
  expect_same_records(master, cluster.broker_addr(1), "PausedSlaveTopic", static_cast<std::size_t>(attempts + 1 + after));
}

// A peer on the HA port that reports a negative offset is no slave: the master closes the
// connection and names the problem, and keeps serving.
TEST_F(ReplicationTest, AMasterDropsAPeerReportingANegativeOffset) {
  LocalCluster cluster("replication-bad-report");
  ASSERT_TRUE(cluster.add_namesrv());
  ASSERT_TRUE(cluster.add_broker({}));
  std::smatch listening;
  std::string log;
  ASSERT_TRUE(eventually([&] {
    log = file_text(cluster.broker(0).log_path());
    return std::regex_search(log, listening, std::regex("accepting slaves on 127\\.0\\.0\\.1:([0-9]+)"));
  })) << cluster.broker(0).log_tail();
  const int port = std::stoi(listening[1]);

  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
  const std::array<std::uint8_t, 8> minus_one{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(::write(fd, minus_one.data(), minus_one.size()), 8);
  timeval bound{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  std::array<std::uint8_t, 64> ignored{};
  EXPECT_EQ(::read(fd, ignored.data(), ignored.size()), 0) << "the master kept the connection";
  ::close(fd);
  EXPECT_TRUE(eventually([&] {
    return file_text(cluster.broker(0).log_path()).find("it reported offset -1: not a commit log offset") !=
           std::string::npos;
  })) << cluster.broker(0).log_tail();
  create_topic(cluster.broker_addr(0), "AfterABadPeer");
  EXPECT_EQ(send(cluster.broker_addr(0), "AfterABadPeer", 0, "still serving"), rc::kSuccess) << last_remark_;
}

}  // namespace
}  // namespace mqkit::testing
