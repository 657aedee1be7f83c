#include "load_producer.hpp"

#include <chrono>
#include <limits>

#include "mqkit/plugin/v1/thread_name.hpp"
#include "payload_stamp.hpp"

namespace mqkit::bench {

using client::Message;
using client::Result;
using client::SendResult;
using client::Status;
using Clock = std::chrono::steady_clock;

struct LoadProducers::Worker {
  std::uint32_t id = 0;
  std::uint64_t quota = 0;  // measured messages to send; 0 = unlimited
  std::unique_ptr<client::Producer> producer;
  std::thread thread;
  std::atomic<std::uint64_t> next_sequence{0};
  mutable std::mutex failed_mutex;
  std::set<std::uint64_t> failed;

  void fail(std::uint64_t first, std::uint64_t count) {
    std::lock_guard lock(failed_mutex);
    for (std::uint64_t s = first; s < first + count; ++s) failed.insert(s);
  }
};

namespace {

// Publish latency from the send's wall-clock stamp: one clock read per acknowledgement serves
// both the latency and note_ack (a clock stepping back counts as 0).
std::uint64_t micros_between(std::uint64_t send_ns, std::uint64_t ack_ns) {
  return ack_ns > send_ns ? (ack_ns - send_ns) / 1000 : 0;
}

std::size_t messages_per_send(const LoadSpec& spec) {
  return spec.mode == SendMode::kBatch ? static_cast<std::size_t>(spec.batch_size) : 1;
}

}  // namespace

LoadProducers::LoadProducers(LoadSpec spec, BenchStats& stats) : spec_(std::move(spec)), stats_(stats) {}

LoadProducers::~LoadProducers() { stop(); }

Status LoadProducers::start() {
  for (int i = 0; i < spec_.producers; ++i) {
    auto worker = std::make_unique<Worker>();
    worker->id = static_cast<std::uint32_t>(i);
    if (spec_.messages > 0) {
      const auto n = static_cast<std::uint64_t>(spec_.producers);
      worker->quota = spec_.messages / n + (static_cast<std::uint64_t>(i) < spec_.messages % n ? 1 : 0);
    }
    client::ProducerConfig config;
    config.client = spec_.client;
    config.group = "mqbench_producer";
    // Bodies are sent as sized, never compressed.
    config.compress_msg_body_over_howmuch = std::numeric_limits<std::size_t>::max();
    // The window counts messages: a batch takes --batch-size of it, so that batch mode keeps as
    // many bytes in flight as the other modes instead of --batch-size times more.
    config.max_in_flight_async_messages = std::max<std::size_t>(1, spec_.window / messages_per_send(spec_));
    config.max_in_flight_async_bytes = std::max<std::size_t>(64u << 20, spec_.window * spec_.size * 2);
    config.auto_batch = spec_.auto_batch;
    if (spec_.batch_max_bytes > 0) config.batch_max_bytes = spec_.batch_max_bytes;
    config.batch_max_delay = std::chrono::milliseconds(spec_.batch_max_delay_ms);
    worker->producer = std::make_unique<client::Producer>(config);
    if (Status s = worker->producer->start(); !s) return s.with_context("starting producer " + std::to_string(i));
    for (const std::string& topic : spec_.topics) {
      auto queues = worker->producer->fetch_publish_message_queues(topic);
      if (!queues) return queues.status().with_context("publish queues of " + topic);
    }
    workers_.push_back(std::move(worker));
  }
  return Status::ok();
}

void LoadProducers::run() {
  for (auto& worker : workers_) {
    Worker* w = worker.get();
    w->thread = std::thread([this, w] {
      plugin::v1::name_this_thread("BenchProducer", w->id);
      send_loop(*w);
    });
  }
}

void LoadProducers::wait() {
  for (auto& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

void LoadProducers::stop() {
  stop_ = true;
  wait();
  for (auto& worker : workers_) {
    if (worker->producer) worker->producer->shutdown();  // waits for every async callback
  }
}

std::vector<ProducerLedger> LoadProducers::ledgers() const {
  std::vector<ProducerLedger> ledgers;
  for (const auto& worker : workers_) {
    std::lock_guard lock(worker->failed_mutex);
    ledgers.push_back(ProducerLedger{worker->next_sequence.load(), worker->failed});
  }
  return ledgers;
}

void LoadProducers::send_loop(Worker& worker) {
  const std::size_t per_send = messages_per_send(spec_);
  // Pacing: send k is due at start + k × interval (per producer); a producer more than a
  // second behind forgets the debt instead of bursting.
  const double per_producer_rate = spec_.rate / spec_.producers;
  const auto interval = per_producer_rate > 0
                            ? std::chrono::duration<double>(static_cast<double>(per_send) / per_producer_rate)
                            : std::chrono::duration<double>(0);
  auto due = Clock::now();
  std::uint64_t measured_sent = 0;
  std::size_t topic_index = worker.id % spec_.topics.size();
  std::string body = make_payload(spec_.size, {});

  while (!stop_ && (worker.quota == 0 || measured_sent < worker.quota)) {
    if (interval.count() > 0) {
      const auto now = Clock::now();
      if (due > now) {
        std::this_thread::sleep_until(due);
      } else if (now - due > std::chrono::seconds(1)) {
        due = now;
      }
      due += std::chrono::duration_cast<Clock::duration>(interval);
    }
    const std::uint64_t send_ns = wall_clock_ns();
    const bool measured = stats_.measured(send_ns);
    std::size_t count = per_send;
    if (worker.quota > 0 && measured) count = std::min<std::uint64_t>(count, worker.quota - measured_sent);
    if (measured) measured_sent += count;
    const std::string& topic = spec_.topics[topic_index];
    topic_index = (topic_index + 1) % spec_.topics.size();
    const std::uint64_t first = worker.next_sequence.fetch_add(count);
    std::vector<Message> messages;
    messages.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
      restamp(body, PayloadStamp{worker.id, first + k, send_ns});
      messages.emplace_back(topic, body);
    }
    BenchStats& stats = stats_;
    const std::size_t size = spec_.size;
    auto on_result = [&stats, &worker, first, count, measured, send_ns, size](const Result<SendResult>& result) {
      if (!result) {
        worker.fail(first, count);
        if (measured) {
          stats.send_errors.fetch_add(count, std::memory_order_relaxed);
          stats.send_error_texts.note(result.status().to_string(), count);
        }
        return;
      }
      if (!measured) return;
      const std::uint64_t ack_ns = wall_clock_ns();
      const std::uint64_t micros = micros_between(send_ns, ack_ns);
      for (std::size_t k = 0; k < count; ++k) stats.publish.record(micros);
      stats.sent.add(count, size);
      stats.note_ack(ack_ns);
    };

    switch (spec_.mode) {
      case SendMode::kSync:
        on_result(worker.producer->send(std::move(messages.front())));
        break;
      case SendMode::kAsync: {
        Status s = worker.producer->send_async(std::move(messages.front()), on_result);
        if (!s) on_result(s);
        break;
      }
      case SendMode::kBatch: {
        Status s = worker.producer->send_batch_async(std::move(messages), on_result);
        if (!s) on_result(s);
        break;
      }
      case SendMode::kOneway: {
        Status s = worker.producer->send_oneway(std::move(messages.front()));
        if (!s) {
          on_result(s);
        } else if (measured) {
          stats_.sent.add(1, spec_.size);
          stats_.note_ack(wall_clock_ns());
        }
        break;
      }
    }
  }
}

}  // namespace mqkit::bench
