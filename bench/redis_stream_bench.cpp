// redis_stream_bench: the Redis Streams baseline bench/compare.sh runs beside mqbench — the same
// stamped payloads, sequence accounting, histograms and RESULT line, over hiredis.
//
// Producer: XADD <stream> * d <payload>, pipelined (--pipeline commands in flight) or, with
// --rate, one paced XADD at a time. Consumer (own connection, own thread): XREAD BLOCK from the
// stream's end, recording end-to-end latency from the payload stamp. How durable the XADDs are
// is the server's appendfsync setting (compare.sh starts Redis with everysec or always).
#include <CLI/CLI.hpp>
#include <hiredis/hiredis.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "latency_histogram.hpp"
#include "payload_stamp.hpp"
#include "result_line.hpp"
#include "sequence_tracker.hpp"

namespace {

using namespace mqkit::bench;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string stream = "mqbench-stream";
  std::string variant = "xadd";
  std::size_t size = 1024;
  std::uint64_t messages = 100000;
  int pipeline = 128;
  double rate = 0;
  double stall_timeout_s = 10;
};

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

Context connect(const Options& o) {
  Context c(redisConnect(o.host.c_str(), o.port));
  if (!c || c->err) {
    std::cerr << "redis_stream_bench: connecting to " << o.host << ":" << o.port << ": "
              << (c ? c->errstr : "out of memory") << "\n";
    return nullptr;
  }
  return c;
}

Reply command(redisContext* c, const char* format, const char* arg) {
  return Reply(static_cast<redisReply*>(redisCommand(c, format, arg)));
}

std::uint64_t micros_since(Clock::time_point t) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count());
}

// Reads the stream from its start until `stop` and every expected message arrived.
struct Consumer {
  SequenceTracker tracker;
  LatencyHistogram e2e;
  std::uint64_t received = 0;
  std::uint64_t last_receive_ns = 0;
  std::uint64_t foreign = 0;
  std::string error;

  void run(redisContext* c, const Options& o, const std::atomic<bool>& stop) {
    // From the stream's start: it was deleted before the run, so everything in it is this run's.
    // ("$" would be re-read by every XREAD that timed out empty, and the entries added between
    // two of them were lost to the count.)
    std::string last_id = "0-0";
    while (!stop) {
      Reply reply(static_cast<redisReply*>(
          redisCommand(c, "XREAD COUNT 1000 BLOCK 200 STREAMS %s %s", o.stream.c_str(), last_id.c_str())));
      if (!reply) {
        error = c->errstr;
        return;
      }
      if (reply->type == REDIS_REPLY_NIL) continue;
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 1) {
        error = "unexpected XREAD reply";
        return;
      }
      const std::uint64_t now = wall_clock_ns();
      const redisReply* entries = reply->element[0]->element[1];
      for (std::size_t i = 0; i < entries->elements; ++i) {
        const redisReply* entry = entries->element[i];
        last_id.assign(entry->element[0]->str, entry->element[0]->len);
        const redisReply* fields = entry->element[1];
        if (fields->elements < 2) continue;
        auto stamp = read_stamp(std::string_view(fields->element[1]->str, fields->element[1]->len));
        if (!stamp) {
          ++foreign;
          continue;
        }
        // One reader reads the stream in its order: the entries read so far are its position.
        tracker.record(stamp->producer, stamp->sequence, 0, static_cast<std::int64_t>(received));
        e2e.record(now > stamp->send_time_ns ? (now - stamp->send_time_ns) / 1000 : 0);
        ++received;
        last_receive_ns = now;
      }
    }
  }
};

int run(const Options& o) {
  Context producer = connect(o);
  Context reader = connect(o);
  if (!producer || !reader) return 1;
  command(producer.get(), "DEL %s", o.stream.c_str());

  Consumer consumer;
  std::atomic<bool> stop_consumer{false};
  std::thread consumer_thread([&] { consumer.run(reader.get(), o, stop_consumer); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the reader is blocked in XREAD

  LatencyHistogram publish;
  ProducerLedger ledger;
  std::uint64_t send_errors = 0;
  std::string body = make_payload(o.size, {});
  const std::uint64_t start_ns = wall_clock_ns();
  const std::size_t depth = o.rate > 0 ? 1 : static_cast<std::size_t>(o.pipeline);
  const auto interval = std::chrono::duration<double>(o.rate > 0 ? 1.0 / o.rate : 0.0);
  auto due = Clock::now();
  std::uint64_t sequence = 0;
  while (sequence < o.messages) {
    if (o.rate > 0) {
      if (due > Clock::now()) std::this_thread::sleep_until(due);
      due += std::chrono::duration_cast<Clock::duration>(interval);
    }
    const auto started = Clock::now();
    std::size_t batch = 0;
    for (; batch < depth && sequence < o.messages; ++batch, ++sequence) {
      restamp(body, PayloadStamp{0, sequence, wall_clock_ns()});
      redisAppendCommand(producer.get(), "XADD %s * d %b", o.stream.c_str(), body.data(), body.size());
    }
    for (std::size_t i = 0; i < batch; ++i) {
      void* raw = nullptr;
      if (redisGetReply(producer.get(), &raw) != REDIS_OK) {
        std::cerr << "redis_stream_bench: " << producer->errstr << "\n";
        return 1;
      }
      Reply reply(static_cast<redisReply*>(raw));
      if (reply->type == REDIS_REPLY_ERROR) {
        ++send_errors;
        ledger.failed.insert(sequence - batch + i);
      }
    }
    const std::uint64_t micros = micros_since(started);
    for (std::size_t i = 0; i < batch; ++i) publish.record(micros);
  }
  const std::uint64_t produced_ns = wall_clock_ns();
  ledger.sent = sequence;

  // Wait for the consumer to catch up (it only reads; the tracker is read after join).
  std::uint64_t last = 0;
  auto last_progress = Clock::now();
  while (consumer.received + ledger.failed.size() < ledger.sent && consumer.error.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::uint64_t now = consumer.received;
    if (now != last) last_progress = Clock::now();
    last = now;
    if (Clock::now() - last_progress > std::chrono::duration<double>(o.stall_timeout_s)) break;
  }
  stop_consumer = true;
  consumer_thread.join();
  if (!consumer.error.empty()) std::cerr << "redis_stream_bench: consumer: " << consumer.error << "\n";
  command(producer.get(), "DEL %s", o.stream.c_str());

  const double produce_s = static_cast<double>(produced_ns - start_ns) / 1e9;
  const double consume_s =
      consumer.last_receive_ns > start_ns ? static_cast<double>(consumer.last_receive_ns - start_ns) / 1e9 : 0;
  const double mb = static_cast<double>(o.size) / 1e6;
  const SequenceErrors seq = consumer.tracker.errors({ledger});
  const std::uint64_t errors = seq.total() + send_errors + consumer.foreign;

  std::printf("redis streams (%s): %zu B, pipeline %zu, rate %s\n", o.variant.c_str(), o.size, depth,
              o.rate > 0 ? std::to_string(static_cast<long long>(o.rate)).c_str() : "max");
  std::printf("produced %llu msgs in %.2f s: %.0f msg/s; consumed %llu in %.2f s; errors %llu\n",
              static_cast<unsigned long long>(ledger.sent), produce_s, ledger.sent / produce_s,
              static_cast<unsigned long long>(consumer.received), consume_s,
              static_cast<unsigned long long>(errors));
  ResultLine result("redis", o.variant, o.size, ledger.sent - send_errors);
  result.add("prod_msgs_s", (ledger.sent - send_errors) / produce_s);
  result.add("prod_MBps", (ledger.sent - send_errors) * mb / produce_s);
  result.add("cons_msgs_s", consume_s > 0 ? consumer.received / consume_s : 0.0);
  result.add("cons_MBps", consume_s > 0 ? consumer.received * mb / consume_s : 0.0);
  result.add_latency("pub", publish);
  if (o.rate > 0) result.add_latency("e2e", consumer.e2e);
  result.add("lost", seq.lost);
  result.add("duplicated", seq.duplicated);
  result.add("out_of_order", seq.out_of_order);
  result.add("send_errors", send_errors);
  result.add("errors", errors);
  std::cout << result.to_string() << std::endl;
  return errors == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"redis_stream_bench: Redis Streams XADD/XREAD baseline with mqbench's RESULT line"};
  app.add_option("--host", o.host)->capture_default_str();
  app.add_option("--port", o.port)->capture_default_str();
  app.add_option("--stream", o.stream, "stream key (deleted before and after)")->capture_default_str();
  app.add_option("--variant", o.variant, "label for the RESULT line (e.g. aof-everysec)")->capture_default_str();
  app.add_option("--size", o.size, "payload bytes")->check(CLI::Range(std::size_t{kStampSize}, std::size_t{1} << 26))
      ->capture_default_str();
  app.add_option("--messages", o.messages, "messages to add")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--pipeline", o.pipeline, "XADDs in flight (without --rate)")->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--rate", o.rate, "messages per second, one XADD at a time; 0 = pipelined, as fast as possible")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--stall-timeout", o.stall_timeout_s, "seconds to wait for the consumer without progress")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return run(o);
}
