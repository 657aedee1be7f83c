// One mqbench run: set up the topics, position the consumers at the end of every queue, warm up,
// produce the measured messages (a count or a duration), wait until every acknowledged message
// was consumed (or consumption stalls), then report. A backlog run produces everything first and
// only then starts the consumers, to measure how fast they drain it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

#include "load_producer.hpp"

namespace mqkit::bench {

// How consumers read: the SDK's PushConsumer, or raw long-polling PULL_MESSAGE requests.
enum class ConsumerApi { kPush, kPull };

struct RunOptions {
  std::string namesrv{};
  protocol::acl::Credentials credentials{};  // signs every request when set (plain ACL)
  std::map<std::string, std::string> transport_settings{};  // the clients' transport keys (--tls...)
  std::string topic = "mqbench";
  int topics = 1;
  int queues = 4;                 // per topic and broker
  bool create_topics = true;
  std::size_t size = 1024;
  std::uint64_t messages = 0;     // measured messages; 0 with duration_s
  double duration_s = 0;
  double rate = 0;                // total msgs/s; 0 = max
  double warmup_s = 0;
  int producers = 1;
  int consumers = 1;              // 0 = produce only
  SendMode mode = SendMode::kAsync;
  int batch_size = 32;
  std::size_t window = 10000;  // messages in flight per producer; a batch counts its messages
  // Async mode: the producer's auto batching (auto_batch) and its batch limits (0 = the
  // producer's defaults).
  bool auto_batch = false;
  std::size_t batch_max_bytes = 0;
  std::int64_t batch_max_delay_ms = 0;
  int pull_batch = 32;
  ConsumerApi consumer_api = ConsumerApi::kPush;
  int consume_threads = 4;        // push consumer: listener threads per consumer
  bool backlog = false;           // produce everything, then consume
  double stall_timeout_s = 10;    // give up waiting for consumption after this long without progress
};

// InvalidArgument naming the first bad option.
client::Status validate(const RunOptions& options);
std::string_view mode_name(SendMode mode);
// The RESULT line's variant: the mode, "+autobatch" with --auto-batch.
std::string variant_of(const RunOptions& options);

// Runs; a summary and the RESULT line go to `out`, progress once a second to `progress`.
// Returns the exit code: 0 when the run finished without errors, 1 on setup failure, 2 when the
// run completed but counted errors.
int run_benchmark(const RunOptions& options, std::ostream& out, std::ostream& progress);

}  // namespace mqkit::bench
