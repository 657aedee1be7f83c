// The Prometheus exporters against real processes (docs/metrics.md): a name server and a broker
// with metrics_exporter_type = PROM on ephemeral ports, an SDK producer and lite pull consumer,
// and /metrics scraped over HTTP on 127.0.0.1. The broker's in/out counters and the group's lag,
// in-flight and ready gauges must say exactly what was sent, pulled and committed at each step.
// Every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "client_cluster.hpp"
#include "exposition_page.hpp"
#include "mqkit/client/lite_pull_consumer.hpp"
#include "mqkit/client/producer.hpp"

namespace mqkit::client {
namespace {

using mqkit::testing::eventually;
using mqkit::testing::LabelPairs;
using mqkit::testing::sample_value;
using mqkit::testing::sum_of_samples;
using std::chrono::milliseconds;

constexpr const char* kTopic = "MetricsTopic";
constexpr const char* kGroup = "metrics_group";
constexpr int kQueues = 4;

// The port a server announced for its exporter ("<server> prometheus exporter on port N").
std::uint16_t exporter_port(mqkit::testing::ChildProcess& process) {
  static const std::regex kLine(R"(prometheus exporter on port (\d+))");
  const std::string output = process.output();
  std::smatch m;
  if (!std::regex_search(output, m, kLine)) return 0;
  return static_cast<std::uint16_t>(std::stoi(m[1]));
}

class MetricsIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>("metrics");
    ASSERT_TRUE(cluster_->add_namesrv({"namesrv.metrics_exporter_type=PROM", "namesrv.metrics_prom_exporter_port=0"})
                    .is_ok());
    ASSERT_TRUE(cluster_
                    ->add_broker({.name = "broker-m",
                                  .overrides = {"broker.metrics_exporter_type=PROM",
                                                "broker.metrics_prom_exporter_host=127.0.0.1",
                                                "broker.metrics_prom_exporter_port=0"}})
                    .is_ok());
    namesrv_port_ = exporter_port(cluster_->namesrv(0));
    broker_port_ = exporter_port(cluster_->broker(0));
    ASSERT_NE(namesrv_port_, 0) << cluster_->namesrv(0).output();
    ASSERT_NE(broker_port_, 0) << cluster_->broker(0).output();

    ProducerConfig config;
    config.group = "metrics_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    const Status created =
        mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 1, kTopic, kQueues);
    ASSERT_TRUE(created.is_ok()) << created.to_string();
  }

  void TearDown() override {
    consumer_.reset();
    producer_.reset();
    cluster_.reset();
  }

  void send(int count) {
    for (int i = 0; i < count; ++i) {
      auto sent = producer_->send(Message(kTopic, "TagA", "metrics-" + std::to_string(sent_ + i)));
      ASSERT_TRUE(sent.is_ok()) << sent.status().to_string();
    }
    sent_ += count;
  }

  // Polls until `count` more messages came (30 s at most).
  void poll(int count) {
    int got = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (got < count && std::chrono::steady_clock::now() < deadline) {
      auto messages = consumer_->poll(milliseconds(200));
      ASSERT_TRUE(messages.is_ok()) << messages.status().to_string();
      got += static_cast<int>(messages->size());
    }
    ASSERT_EQ(got, count);
  }

  std::string scrape(std::uint16_t port) {
    auto answer = mqkit::testing::http_get(port);
    EXPECT_TRUE(answer.is_ok()) << answer.status().to_string();
    if (!answer) return {};
    EXPECT_EQ(answer->status, 200);
    return answer->body;
  }

  // The group's progress on the topic as the broker reports it.
  struct Progress {
    double in = -1, out = -1, lag = -1, inflight = -1, ready = -1;
    bool operator==(const Progress&) const = default;
  };
  Progress progress() {
    const std::string page = scrape(broker_port_);
    const LabelPairs group{{"consumer_group", kGroup}, {"topic", kTopic}};
    Progress p;
    p.in = sample_value(page, "rocketmq_messages_in_total", {{"topic", kTopic}}).value_or(-1);
    p.out = sample_value(page, "rocketmq_messages_out_total", group).value_or(-1);
    p.lag = sample_value(page, "rocketmq_consumer_lag_messages", group).value_or(-1);
    p.inflight = sample_value(page, "rocketmq_consumer_inflight_messages", group).value_or(-1);
    p.ready = sample_value(page, "rocketmq_consumer_ready_messages", group).value_or(-1);
    return p;
  }
  // Waits (20 s at most) until the broker reports `expected`; the last report.
  Progress progress_becomes(const Progress& expected) {
    Progress last;
    eventually([&] { return (last = progress()) == expected; }, std::chrono::seconds(20));
    return last;
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<LitePullConsumer> consumer_;
  std::uint16_t namesrv_port_ = 0;
  std::uint16_t broker_port_ = 0;
  int sent_ = 0;
};

void expect_equal(const auto& actual, const auto& expected) {
  EXPECT_EQ(actual.in, expected.in);
  EXPECT_EQ(actual.out, expected.out);
  EXPECT_EQ(actual.lag, expected.lag);
  EXPECT_EQ(actual.inflight, expected.inflight);
  EXPECT_EQ(actual.ready, expected.ready);
}

TEST_F(MetricsIntegrationTest, BrokerCountsWhatWasSentPulledAndCommitted) {
  ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, kGroup);
  config.auto_commit = false;
  config.pull_batch_size = 8;
  config.broker_suspend_max_time = milliseconds(500);  // how long the broker holds an empty pull
  consumer_ = std::make_unique<LitePullConsumer>(config);
  ASSERT_TRUE(consumer_->subscribe(kTopic, "*").is_ok());
  ASSERT_TRUE(consumer_->start().is_ok());
  ASSERT_TRUE(eventually([&] { return consumer_->assignment().size() == kQueues; })) << "never owned the queues";

  // 30 sent, all pulled and polled, committed: nothing left for the group.
  send(30);
  poll(30);
  ASSERT_TRUE(consumer_->commit().is_ok());
  expect_equal(progress_becomes({30, 30, 0, 0, 0}), Progress{30, 30, 0, 0, 0});

  // Paused: 7 more are stored and wait for the group, none pulled.
  const auto owned = consumer_->assignment();
  ASSERT_TRUE(consumer_->pause({owned.begin(), owned.end()}).is_ok());
  // A pull the broker holds when the queues are paused still takes what arrives while held: wait
  // until every held pull came back empty.
  std::this_thread::sleep_for(milliseconds(1500));
  send(7);
  expect_equal(progress_becomes({37, 30, 7, 0, 7}), Progress{37, 30, 7, 0, 7});
  std::this_thread::sleep_for(milliseconds(20));
  const std::string waiting = scrape(broker_port_);
  const LabelPairs group{{"consumer_group", kGroup}, {"topic", kTopic}, {"is_retry", "false"}, {"is_system", "false"}};
  EXPECT_GT(sample_value(waiting, "rocketmq_consumer_lag_latency", group).value_or(0), 0);
  EXPECT_GT(sample_value(waiting, "rocketmq_consumer_queueing_latency", group).value_or(0), 0);

  // Resumed and polled, not committed: the 7 are in flight and still lag.
  ASSERT_TRUE(consumer_->resume({owned.begin(), owned.end()}).is_ok());
  poll(7);
  expect_equal(progress_becomes({37, 37, 7, 7, 0}), Progress{37, 37, 7, 7, 0});
  EXPECT_EQ(sample_value(scrape(broker_port_), "rocketmq_consumer_queueing_latency", group), 0);

  ASSERT_TRUE(consumer_->commit().is_ok());
  expect_equal(progress_becomes({37, 37, 0, 0, 0}), Progress{37, 37, 0, 0, 0});

  const std::string page = scrape(broker_port_);
  const LabelPairs node{{"cluster", "DefaultCluster"}, {"node_type", "broker"}, {"node_id", "broker-m"}};
  EXPECT_EQ(sample_value(page, "rocketmq_messages_in_total", {{"topic", kTopic}, {"message_type", "normal"},
                                                              {"is_system", "false"}, {"cluster", "DefaultCluster"},
                                                              {"node_type", "broker"}, {"node_id", "broker-m"}}),
            37);
  // Every message stored once and read once by the one group: the bytes agree too.
  const double bytes_in = sample_value(page, "rocketmq_throughput_in_total", {{"topic", kTopic}}).value_or(0);
  EXPECT_GT(bytes_in, 37 * 10);
  EXPECT_EQ(sample_value(page, "rocketmq_throughput_out_total", {{"topic", kTopic}, {"consumer_group", kGroup}}),
            bytes_in);
  EXPECT_EQ(sample_value(page, "rocketmq_message_size_count", {{"topic", kTopic}}), 37);
  EXPECT_EQ(sample_value(page, "rocketmq_message_size_sum", {{"topic", kTopic}}), bytes_in);
  // Each send answered once, successfully.
  EXPECT_EQ(sum_of_samples(page, "rocketmq_rpc_latency_count", {{"request_code", "send_message_v2"}}) +
                sum_of_samples(page, "rocketmq_rpc_latency_count", {{"request_code", "send_message"}}),
            37);
  EXPECT_EQ(sum_of_samples(page, "rocketmq_rpc_latency_count", {{"response_code", "success"},
                                                                {"request_code", "send_message_v2"}}) +
                sum_of_samples(page, "rocketmq_rpc_latency_count", {{"response_code", "success"},
                                                                    {"request_code", "send_message"}}),
            37);
  // The lite pull consumer's one connection; the producer's.
  EXPECT_EQ(sum_of_samples(page, "rocketmq_consumer_connections", {{"consumer_group", kGroup}, {"consume_mode", "pull"}}),
            1);
  EXPECT_GE(sum_of_samples(page, "rocketmq_producer_connections", {{"protocol_type", "remoting"}}), 1);
  EXPECT_EQ(sample_value(page, "rocketmq_broker_permission", node), 6);
  EXPECT_GE(sample_value(page, "rocketmq_topic_number", node).value_or(0), 1);
  EXPECT_GE(sample_value(page, "rocketmq_consumer_group_number", node).value_or(0), 1);
  EXPECT_GT(sample_value(page, "rocketmq_storage_message_reserve_time", node).value_or(0), 0);
  EXPECT_TRUE(sample_value(page, "rocketmq_storage_dispatch_behind_bytes", node).has_value());
}

TEST_F(MetricsIntegrationTest, PagesAreWellFormedExpositionText) {
  send(3);
  for (const std::uint16_t port : {broker_port_, namesrv_port_}) {
    auto answer = mqkit::testing::http_get(port);
    ASSERT_TRUE(answer.is_ok()) << answer.status().to_string();
    EXPECT_EQ(answer->status, 200);
    EXPECT_NE(answer->head.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << answer->head;
    // Every line is a HELP or TYPE comment or a sample: name{label="value",...} number.
    static const std::regex kLine(
        R"(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? -?[0-9.e+]+|[a-zA-Z_:][a-zA-Z0-9_:]*\{.*\} \+Inf)");
    std::size_t start = 0;
    std::size_t lines = 0;
    while (start < answer->body.size()) {
      const auto end = answer->body.find('\n', start);
      ASSERT_NE(end, std::string::npos) << "the page does not end with a newline";
      const std::string line = answer->body.substr(start, end - start);
      EXPECT_TRUE(std::regex_match(line, kLine)) << line;
      start = end + 1;
      ++lines;
    }
    EXPECT_GT(lines, 5u);
    auto missing = mqkit::testing::http_get(port, "/nothing");
    ASSERT_TRUE(missing.is_ok());
    EXPECT_EQ(missing->status, 404);
  }
}

TEST_F(MetricsIntegrationTest, NameServerCountsClustersBrokersTopicsAndRequests) {
  std::string page;
  ASSERT_TRUE(eventually([&] {
    page = scrape(namesrv_port_);
    return sample_value(page, "mqkit_namesrv_topic_number").value_or(0) >= 1 &&
           sum_of_samples(page, "rocketmq_rpc_latency_count", {{"request_code", "get_routeinfo_by_topic"}}) >= 1;
  })) << page;
  EXPECT_EQ(sample_value(page, "mqkit_namesrv_cluster_number", {{"node_type", "nameserver"}}), 1);
  EXPECT_EQ(sample_value(page, "mqkit_namesrv_broker_number", {{"cluster", "DefaultCluster"}}), 1);
  // The broker registered (and re-registered after the topic was created).
  EXPECT_GE(sum_of_samples(page, "rocketmq_rpc_latency_count",
                           {{"request_code", "register_broker"}, {"response_code", "success"}}),
            1);
  const double topics = sample_value(page, "mqkit_namesrv_topic_number").value_or(0);
  auto listed = producer_->instance()->api().get_all_topic_list();
  ASSERT_TRUE(listed.is_ok()) << listed.status().to_string();
  EXPECT_EQ(topics, static_cast<double>(listed->topic_list.size()));
}

}  // namespace
}  // namespace mqkit::client
