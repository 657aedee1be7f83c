#include "bench_run.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <thread>

#include "message_source.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"
#include "payload_stamp.hpp"
#include "receive_sink.hpp"
#include "result_line.hpp"
#include "topic_setup.hpp"

namespace mqkit::bench {

using client::Status;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_between(std::uint64_t from_ns, std::uint64_t to_ns) {
  return to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / 1e9 : 0.0;
}

std::string format_ms(std::uint64_t micros) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", static_cast<double>(micros) / 1000.0);
  return text;
}

// Prints one line a second on `out` until stopped: rates of the last second and that second's
// latency percentiles.
class ProgressReporter {
 public:
  ProgressReporter(BenchStats& stats, std::ostream& out) : stats_(stats), out_(out) {
    thread_ = std::thread([this] {
      plugin::v1::name_this_thread("BenchProgress");
      loop();
    });
  }
  ~ProgressReporter() { stop(); }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    const auto start = Clock::now();
    std::uint64_t sent = 0, sent_bytes = 0, received = 0, received_bytes = 0;
    std::unique_lock lock(mutex_);
    for (int tick = 1;; ++tick) {
      if (changed_.wait_until(lock, start + std::chrono::seconds(tick), [this] { return stopped_; })) return;
      // Counters restart when the measurement begins; a smaller value is a fresh start.
      auto delta = [](std::uint64_t now, std::uint64_t& before) {
        const std::uint64_t d = now >= before ? now - before : now;
        before = now;
        return d;
      };
      const std::uint64_t s = delta(stats_.sent.messages.load(), sent);
      const std::uint64_t sb = delta(stats_.sent.bytes.load(), sent_bytes);
      const std::uint64_t r = delta(stats_.received.messages.load(), received);
      const std::uint64_t rb = delta(stats_.received.bytes.load(), received_bytes);
      const LatencyHistogram pub = stats_.publish.take_interval();
      const LatencyHistogram e2e = stats_.e2e.take_interval();
      char line[320];
      std::snprintf(line, sizeof(line),
                    "[%4ds]%s prod %8llu msg/s %8.2f MB/s  pub p50 %s p99 %s ms | cons %8llu msg/s %8.2f MB/s  "
                    "e2e p50 %s p99 %s ms",
                    tick, stats_.measuring() ? "" : " warm-up", static_cast<unsigned long long>(s),
                    static_cast<double>(sb) / 1e6, format_ms(pub.percentile(50)).c_str(),
                    format_ms(pub.percentile(99)).c_str(), static_cast<unsigned long long>(r),
                    static_cast<double>(rb) / 1e6, format_ms(e2e.percentile(50)).c_str(),
                    format_ms(e2e.percentile(99)).c_str());
      out_ << line << std::endl;
    }
  }

  BenchStats& stats_;
  std::ostream& out_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopped_ = false;
  std::thread thread_;
};

void print_latency(std::ostream& out, const char* what, const LatencyHistogram& h) {
  if (h.count() == 0) return;
  out << what << " latency ms: p50 " << format_ms(h.percentile(50)) << "  p99 " << format_ms(h.percentile(99))
      << "  p99.9 " << format_ms(h.percentile(99.9)) << "  max " << format_ms(h.max()) << "  (" << h.count()
      << " samples)\n";
}

// Waits until every acknowledged message was received; false when nothing new arrived for
// `stall_timeout_s` first.
bool wait_for_consumption(const ReceiveSink& sink, const std::vector<ProducerLedger>& ledgers, double stall_timeout_s) {
  std::uint64_t last_missing = sink.missing(ledgers);
  auto last_progress = Clock::now();
  while (last_missing > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::uint64_t missing = sink.missing(ledgers);
    if (missing < last_missing) last_progress = Clock::now();
    last_missing = missing;
    if (Clock::now() - last_progress > std::chrono::duration<double>(stall_timeout_s)) return false;
  }
  return true;
}

struct Measurement {
  std::uint64_t start_ns;          // wall clock: measurement begins
  std::uint64_t produced_ns;       // last acknowledgement
  std::uint64_t consume_start_ns;  // = start_ns, or when a backlog run's consumers started
  bool consumed;                   // there were consumers
  bool stalled;                    // consumption stopped before everything arrived
};

// Prints the summary and the RESULT line; returns the exit code.
int report(const RunOptions& o, const Measurement& m, const BenchStats& stats, const ReceiveSink& sink,
           const std::vector<ProducerLedger>& ledgers, std::ostream& out) {
  const double produce_s = seconds_between(m.start_ns, m.produced_ns);
  const std::uint64_t sent = stats.sent.messages.load();
  const std::uint64_t sent_bytes = stats.sent.bytes.load();
  const std::uint64_t received = stats.received.messages.load();
  const std::uint64_t received_bytes = stats.received.bytes.load();
  const double consume_s = seconds_between(m.consume_start_ns, stats.last_receive_ns.load());
  const double prod_rate = produce_s > 0 ? static_cast<double>(sent) / produce_s : 0;
  const double prod_mbps = produce_s > 0 ? static_cast<double>(sent_bytes) / 1e6 / produce_s : 0;
  const double cons_rate = consume_s > 0 ? static_cast<double>(received) / consume_s : 0;
  const double cons_mbps = consume_s > 0 ? static_cast<double>(received_bytes) / 1e6 / consume_s : 0;
  const SequenceErrors seq = m.consumed ? sink.errors(ledgers) : SequenceErrors{};
  const std::uint64_t send_errors = stats.send_errors.load();
  const std::uint64_t foreign = sink.foreign();
  // Only one-at-a-time sync sends promise per-queue order; pipelined sends may be stored in
  // another order (several broker workers), as with RocketMQ, so their reordering is reported
  // but is no error.
  const bool order_promised = o.mode == SendMode::kSync;
  const std::uint64_t errors =
      seq.lost + seq.duplicated + (order_promised ? seq.out_of_order : 0) + send_errors + foreign;
  const LatencyHistogram publish = stats.publish.total();
  const LatencyHistogram e2e = stats.e2e.total();

  char line[256];
  std::snprintf(line, sizeof(line),
                "mqbench: %s, %zu B, %d topic(s) x %d queues, %d producer(s), %d %s consumer(s), rate %s%s\n",
                variant_of(o).c_str(), o.size, o.topics, o.queues, o.producers, o.consumers,
                o.consumer_api == ConsumerApi::kPush ? "push" : "pull",
                o.rate > 0 ? std::to_string(static_cast<long long>(o.rate)).c_str() : "max",
                o.backlog ? ", backlog drain" : "");
  out << line;
  std::snprintf(line, sizeof(line), "produced %llu msgs in %.2f s: %.0f msg/s, %.2f MB/s\n",
                static_cast<unsigned long long>(sent), produce_s, prod_rate, prod_mbps);
  out << line;
  print_latency(out, "publish", publish);
  if (m.consumed) {
    std::snprintf(line, sizeof(line), "consumed %llu msgs in %.2f s: %.0f msg/s, %.2f MB/s%s\n",
                  static_cast<unsigned long long>(received), consume_s, cons_rate, cons_mbps,
                  m.stalled ? " (stopped waiting: consumption stalled)" : "");
    out << line;
    if (!o.backlog) print_latency(out, "end-to-end", e2e);
  }
  out << "errors: " << errors << " (lost " << seq.lost << ", duplicated " << seq.duplicated << ", out of order "
      << seq.out_of_order << (order_promised ? "" : " [no order promised]") << ", send failures " << send_errors
      << ", unstamped " << foreign << ")\n";
  for (const auto& [text, count] : stats.send_error_texts.snapshot()) {
    out << "  send failure x" << count << ": " << text << "\n";
  }

  ResultLine result("mqkit", variant_of(o), o.size, sent);
  if (o.auto_batch) {
    result.add("auto_batch", std::uint64_t{1});
    if (o.batch_max_bytes > 0) result.add("batch_max_bytes", std::uint64_t{o.batch_max_bytes});
    if (o.batch_max_delay_ms > 0) result.add("batch_max_delay_ms", static_cast<std::uint64_t>(o.batch_max_delay_ms));
  }
  result.add("prod_msgs_s", prod_rate);
  result.add("prod_MBps", prod_mbps);
  if (m.consumed) {
    result.add("cons_msgs_s", cons_rate);
    result.add("cons_MBps", cons_mbps);
  }
  result.add_latency("pub", publish);
  if (o.rate > 0 && m.consumed && !o.backlog) result.add_latency("e2e", e2e);
  result.add("backlog", std::uint64_t{o.backlog ? 1u : 0u});
  result.add("lost", seq.lost);
  result.add("duplicated", seq.duplicated);
  result.add("out_of_order", seq.out_of_order);
  result.add("send_errors", send_errors);
  result.add("errors", errors);
  out << result.to_string() << std::endl;
  return errors == 0 ? 0 : 2;
}

}  // namespace

std::string variant_of(const RunOptions& options) {
  std::string variant(mode_name(options.mode));
  if (options.auto_batch) variant += "+autobatch";
  return variant;
}

std::string_view mode_name(SendMode mode) {
  switch (mode) {
    case SendMode::kAsync: return "async";
    case SendMode::kSync: return "sync";
    case SendMode::kOneway: return "oneway";
    case SendMode::kBatch: return "batch";
  }
  return "?";
}

Status validate(const RunOptions& o) {
  if (o.namesrv.empty()) return Status::invalid_argument("--namesrv is required (or set NAMESRV_ADDR)");
  if ((o.messages == 0) == (o.duration_s <= 0)) {
    return Status::invalid_argument("give exactly one of --messages N and --duration SECONDS");
  }
  if (o.size < kStampSize) {
    return Status::invalid_argument("--size must be at least " + std::to_string(kStampSize) +
                                    " bytes (the sequence stamp)");
  }
  if (o.backlog && o.messages == 0) return Status::invalid_argument("--backlog needs --messages");
  if (o.backlog && o.consumers == 0) return Status::invalid_argument("--backlog needs consumers");
  if (o.topics < 1 || o.queues < 1 || o.producers < 1 || o.consumers < 0 || o.batch_size < 1 || o.pull_batch < 1 ||
      o.consume_threads < 1) {
    return Status::invalid_argument("--topics, --queues, --producers, --batch-size and --pull-batch must be positive");
  }
  if (o.rate < 0 || o.warmup_s < 0) return Status::invalid_argument("--rate and --warmup must not be negative");
  if (o.auto_batch && o.mode != SendMode::kAsync) return Status::invalid_argument("--auto-batch needs --mode async");
  if (o.batch_max_delay_ms < 0) return Status::invalid_argument("--batch-max-delay must not be negative");
  return Status::ok();
}

int run_benchmark(const RunOptions& o, std::ostream& out, std::ostream& progress) {
  auto fail = [&](const std::string& what, const Status& s) {
    progress << "mqbench: " << what << ": " << s.message() << std::endl;
    return 1;
  };
  const std::vector<std::string> topics = topic_names(o.topic, o.topics);

  client::ClientConfig run_client;
  run_client.namesrv_addresses = client::split_namesrv_addresses(o.namesrv);
  run_client.credentials = o.credentials;
  run_client.transport.settings = o.transport_settings;
  if (o.create_topics) {
    client::ClientConfig config = run_client;
    config.instance_name = "mqbench-admin";
    auto admin = client::ClientInstance::create(config.resolved());
    if (!admin) return fail("connecting", admin.status());
    if (Status s = create_topics((*admin)->api(), topics, o.queues); !s) return fail("topic setup", s);
  }

  BenchStats stats;
  ReceiveSink sink(stats);
  std::vector<std::unique_ptr<MessageSource>> sources;
  if (o.consumers > 0) {
    const SourceSettings settings{run_client, "mqbench_consumer", topics, o.consumers, o.pull_batch, o.consume_threads};
    auto made = o.consumer_api == ConsumerApi::kPush ? make_push_sources(settings) : make_pull_sources(settings);
    if (!made) return fail("consumers", made.status());
    sources = std::move(made).value();
    for (auto& source : sources) {
      if (Status s = source->prepare(); !s) return fail("positioning consumers", s);
    }
  }
  auto start_sources = [&] {
    for (auto& source : sources) {
      if (Status s = source->start(sink.handler()); !s) return s;
    }
    return Status::ok();
  };
  if (!o.backlog) {
    if (Status s = start_sources(); !s) return fail("starting consumers", s);
  }

  LoadProducers producers(LoadSpec{run_client, topics, o.mode, o.size, o.batch_size, o.rate, o.producers, o.messages,
                                   o.window, o.auto_batch, o.batch_max_bytes, o.batch_max_delay_ms},
                          stats);
  if (Status s = producers.start(); !s) return fail("producers", s);

  ProgressReporter reporter(stats, progress);
  if (o.warmup_s > 0) {
    producers.run();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.warmup_s));
    stats.begin_measurement();
  } else {
    stats.begin_measurement();
    producers.run();
  }
  if (o.messages > 0) {
    producers.wait();
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(o.duration_s));
  }
  producers.stop();  // every acknowledgement is in
  const std::uint64_t produced_ns = wall_clock_ns();
  const std::vector<ProducerLedger> ledgers = producers.ledgers();

  std::uint64_t consume_start_ns = stats.measure_start_ns();
  bool stalled = false;
  if (!sources.empty()) {
    if (o.backlog) {
      consume_start_ns = wall_clock_ns();
      if (Status s = start_sources(); !s) return fail("starting consumers", s);
    }
    stalled = !wait_for_consumption(sink, ledgers, o.stall_timeout_s);
    for (auto& source : sources) source->stop();
  }
  reporter.stop();
  const std::uint64_t last_ack_ns = stats.last_ack_ns.load();
  const Measurement m{stats.measure_start_ns(), last_ack_ns > 0 ? last_ack_ns : produced_ns, consume_start_ns,
                      !sources.empty(), stalled};
  return report(o, m, stats, sink, ledgers, out);
}

}  // namespace mqkit::bench
