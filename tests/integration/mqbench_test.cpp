// mqbench as users run it: the real binary against a real name server and broker, with small
// counts. Checks the RESULT line (JSON, n as asked, no lost/duplicated/out-of-order message),
// never performance.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "local_cluster.hpp"

namespace mqkit::testing {
namespace {

struct BenchRun {
  int code = -1;
  std::string out;
  std::optional<rapidjson::Document> result;  // the RESULT line, parsed
};

class MqbenchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new LocalCluster("mqbench_test");
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    // Runs at full speed on a slow machine (sanitizers, a busy CI host) would meet the broker's
    // flow control ([TIMEOUT_CLEAN_QUEUE] after 200 ms in the worker queue); these tests check
    // mqbench's accounting, not flow control.
    ASSERT_TRUE(cluster_->add_broker({.name = "broker-a", .overrides = {"transport.max_queue_wait=0"}}).is_ok());
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  // Runs mqbench with `args` plus --namesrv; bounded by a 60 s wait.
  BenchRun mqbench(std::vector<std::string> args) {
    args.insert(args.end(), {"--namesrv", cluster_->namesrv_addrs()});
    auto child = ChildProcess::spawn("mqbench", args, "mqbench-" + std::to_string(++runs_));
    EXPECT_TRUE(child.is_ok());
    if (!child) return {};
    BenchRun run;
    run.code = child->run_to_end(std::chrono::seconds(60)).value_or(-1);
    run.out = child->output();
    std::istringstream lines(run.out);
    std::string line, last;
    while (std::getline(lines, line)) {
      if (!line.empty()) last = line;
    }
    if (last.rfind("RESULT ", 0) == 0) {
      rapidjson::Document doc;
      doc.Parse(last.c_str() + 7);
      if (!doc.HasParseError() && doc.IsObject()) run.result = std::move(doc);
    }
    if (!run.result) ADD_FAILURE() << "no RESULT line last; stdout:\n" << run.out << "\nstderr:\n" << child->log_tail();
    return run;
  }

  static void expect_clean(const BenchRun& run, std::uint64_t n, const char* variant) {
    ASSERT_TRUE(run.result.has_value());
    const rapidjson::Document& r = *run.result;
    EXPECT_EQ(run.code, 0) << run.out;
    EXPECT_STREQ(r["system"].GetString(), "mqkit");
    EXPECT_STREQ(r["variant"].GetString(), variant);
    EXPECT_EQ(r["n"].GetUint64(), n) << run.out;
    EXPECT_EQ(r["errors"].GetUint64(), 0u) << run.out;
    EXPECT_EQ(r["lost"].GetUint64(), 0u);
    EXPECT_EQ(r["duplicated"].GetUint64(), 0u);
    // Pipelined sends may be stored reordered (no order is promised); one-at-a-time sync sends not.
    if (std::string_view(variant) == "sync") {
      EXPECT_EQ(r["out_of_order"].GetUint64(), 0u);
    }
    EXPECT_GT(r["prod_msgs_s"].GetDouble(), 0.0);
  }

  static LocalCluster* cluster_;
  static int runs_;
};

LocalCluster* MqbenchTest::cluster_ = nullptr;
int MqbenchTest::runs_ = 0;

// Both consumer APIs: the SDK's push consumer (the default) and raw long-polling pulls.
class MqbenchConsumerApiTest : public MqbenchTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(MqbenchConsumerApiTest, AsyncProducersAndConsumersDeliverEveryMessageOnce) {
  const std::string topic = std::string("bench_async_") + GetParam();
  // Three queues over two consumers: the shares are uneven and differ per topic.
  auto run = mqbench({"--topic", topic, "--topics", "2", "--queues", "3", "--size", "256", "--messages", "3000",
                      "--producers", "2", "--consumers", "2", "--mode", "async", "--consumer-api", GetParam()});
  expect_clean(run, 3000, "async");
  ASSERT_TRUE(run.result);
  EXPECT_GT((*run.result)["cons_msgs_s"].GetDouble(), 0.0);
  EXPECT_FALSE(run.result->HasMember("e2e_p99_us")) << "latency keys only for a fixed rate";
}

TEST_P(MqbenchConsumerApiTest, BacklogRunDrainsWhatWasProducedFirst) {
  const std::string topic = std::string("bench_backlog_") + GetParam();
  auto run = mqbench({"--topic", topic, "--messages", "2000", "--size", "512", "--backlog", "--consumers", "2",
                      "--consumer-api", GetParam()});
  expect_clean(run, 2000, "async");
  ASSERT_TRUE(run.result);
  EXPECT_EQ((*run.result)["backlog"].GetUint64(), 1u);
  EXPECT_GT((*run.result)["cons_msgs_s"].GetDouble(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(ConsumerApis, MqbenchConsumerApiTest, ::testing::Values("push", "pull"));

TEST_F(MqbenchTest, FixedRateBatchReportsEndToEndLatency) {
  auto run = mqbench({"--topic", "bench_batch", "--size", "128", "--messages", "1000", "--rate", "2000",
                      "--warmup", "0.5", "--mode", "batch", "--batch-size", "10"});
  expect_clean(run, 1000, "batch");
  ASSERT_TRUE(run.result);
  const rapidjson::Document& r = *run.result;
  ASSERT_TRUE(r.HasMember("e2e_p50_us")) << run.out;
  EXPECT_LE(r["e2e_p50_us"].GetUint64(), r["e2e_p99_us"].GetUint64());
  EXPECT_LE(r["e2e_p99_us"].GetUint64(), r["e2e_p999_us"].GetUint64());
}

TEST_F(MqbenchTest, SyncAndOnewaySendsAreAccountedFor) {
  expect_clean(mqbench({"--topic", "bench_sync", "--messages", "300", "--mode", "sync"}), 300, "sync");
  expect_clean(mqbench({"--topic", "bench_oneway", "--messages", "300", "--mode", "oneway", "--rate", "3000"}), 300,
               "oneway");
}

TEST_F(MqbenchTest, ProducerOnlyDurationRunCountsWhatWasAcknowledged) {
  auto run = mqbench({"--topic", "bench_duration", "--duration", "1", "--rate", "500", "--producer-only"});
  ASSERT_TRUE(run.result);
  const rapidjson::Document& r = *run.result;
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_GT(r["n"].GetUint64(), 0u) << run.out;
  EXPECT_LE(r["n"].GetUint64(), 600u) << run.out;  // paced: at most ~500 in one second
  EXPECT_FALSE(r.HasMember("cons_msgs_s"));
  EXPECT_EQ(r["errors"].GetUint64(), 0u);
}

TEST_F(MqbenchTest, BadOptionsAreRefusedWithAMessage) {
  auto child = ChildProcess::spawn("mqbench", {"--namesrv", cluster_->namesrv_addrs(), "--messages", "10", "--size", "8"},
                                   "mqbench-bad");
  ASSERT_TRUE(child.is_ok());
  auto code = child->wait_exit(std::chrono::seconds(20));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 1);
  EXPECT_NE(child->log_tail().find("--size must be at least"), std::string::npos) << child->log_tail();
}

}  // namespace
}  // namespace mqkit::testing
