// mqbench: producer/consumer load against a RocketMQ-compatible cluster, shaped like the
// OpenMessaging Benchmark workloads. Only argument parsing lives here (bench_run.hpp runs).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <map>

#include "bench_run.hpp"
#include "tls_options.hpp"
#include "mqkit/kernel/logging.hpp"

int main(int argc, char** argv) {
  using namespace mqkit::bench;
  RunOptions o;
  CLI::App app{"mqbench: benchmark a RocketMQ-compatible cluster (live progress on stderr; summary and a "
               "RESULT {json} line on stdout)"};
  app.add_option("-n,--namesrv", o.namesrv, "name servers host:port[;host:port] (default: $NAMESRV_ADDR)");
  app.add_option("--access-key", o.credentials.access_key,
                 "plain ACL account: sign every request with this access key (default: $MQKIT_ACCESS_KEY)");
  app.add_option("--secret-key", o.credentials.secret_key,
                 "the account's secret key (default: $MQKIT_SECRET_KEY, which keeps it out of the process list)");
  mqkit::tools::add_tls_options(app, o.transport_settings);
  app.add_option("--topic", o.topic, "topic name (with --topics N: name-0 .. name-<N-1>)")->capture_default_str();
  app.add_option("--topics", o.topics, "number of topics")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--queues", o.queues, "queues per topic on each broker")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_flag("!--no-create-topics", o.create_topics, "use the topics as they are (default: create them first)");
  app.add_option("--size", o.size, "message size in bytes")->capture_default_str();
  auto* messages = app.add_option("--messages", o.messages, "measured messages to send (after the warm-up)");
  app.add_option("--duration", o.duration_s, "seconds to send for (after the warm-up)")->excludes(messages);
  app.add_option("--rate", o.rate, "total messages per second; 0 = as fast as possible")->capture_default_str();
  app.add_option("--warmup", o.warmup_s, "seconds of unmeasured sending first")->capture_default_str();
  app.add_option("--producers", o.producers, "producers, one thread and connection each")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--consumers", o.consumers, "consumers sharing the queues; 0 = produce only")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  bool producer_only = false;
  app.add_flag("--producer-only", producer_only, "no consumers (same as --consumers 0)");
  const std::map<std::string, SendMode> modes{
      {"async", SendMode::kAsync}, {"sync", SendMode::kSync}, {"oneway", SendMode::kOneway}, {"batch", SendMode::kBatch}};
  app.add_option("--mode", o.mode, "async | sync | oneway | batch")
      ->transform(CLI::CheckedTransformer(modes, CLI::ignore_case))->capture_default_str();
  app.add_option("--batch-size", o.batch_size, "messages per batch (--mode batch)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--window", o.window, "messages in flight per producer (async and batch; a batch counts its messages)")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_flag("--auto-batch", o.auto_batch,
               "async mode: the producer's auto batching (auto_batch: what waits behind a request to a queue goes "
               "as one SEND_BATCH_MESSAGE)");
  app.add_option("--batch-max-bytes", o.batch_max_bytes, "--auto-batch: bytes per batch at most (default: the "
                                                         "producer's batch_max_bytes)");
  app.add_option("--batch-max-delay", o.batch_max_delay_ms, "--auto-batch: ms a message to an idle queue waits for "
                                                            "company (default 0)")->capture_default_str();
  app.add_option("--pull-batch", o.pull_batch, "messages per pull request")->check(CLI::Range(1, 1024))->capture_default_str();
  const std::map<std::string, ConsumerApi> consumer_apis{{"push", ConsumerApi::kPush}, {"pull", ConsumerApi::kPull}};
  app.add_option("--consumer-api", o.consumer_api, "push (the SDK's PushConsumer) | pull (raw PULL_MESSAGE long polling)")
      ->transform(CLI::CheckedTransformer(consumer_apis, CLI::ignore_case))->capture_default_str();
  app.add_option("--consume-threads", o.consume_threads, "push consumer: listener threads per consumer")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_flag("--backlog", o.backlog, "produce every message first, then consume (drain rate)");
  app.add_option("--stall-timeout", o.stall_timeout_s, "stop waiting for consumption after this many seconds "
                                                       "without progress")->capture_default_str();
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "show the SDK's informational log lines");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (producer_only) o.consumers = 0;
  if (o.namesrv.empty()) {
    if (const char* env = std::getenv("NAMESRV_ADDR")) o.namesrv = env;
  }
  o.credentials = mqkit::client::credentials_or_environment(std::move(o.credentials));
  if (auto valid = validate(o); !valid) {
    std::cerr << "mqbench: " << valid.message() << "\n";
    return 1;
  }
  if (!verbose) mqkit::kernel::logger("client")->set_level(spdlog::level::warn);
  return run_benchmark(o, std::cout, std::cerr);
}
