#include "receive_sink.hpp"

#include "payload_stamp.hpp"

namespace mqkit::bench {

void ReceiveSink::on_messages(const client::MessageQueue& queue, std::span<const client::MessageExt> messages) {
  const std::uint64_t now_ns = wall_clock_ns();
  std::vector<std::uint64_t> latencies;
  latencies.reserve(messages.size());
  std::uint64_t measured = 0;
  std::uint64_t measured_bytes = 0;
  {
    std::lock_guard lock(mutex_);
    const std::uint64_t stream = streams_.try_emplace(queue, streams_.size()).first->second;
    for (const auto& message : messages) {
      auto stamp = read_stamp(message.body());
      if (!stamp) {
        ++foreign_;
        continue;
      }
      const std::uint64_t duplicates_before = tracker_.duplicated();
      tracker_.record(stamp->producer, stamp->sequence, stream, message.queue_offset);
      if (tracker_.duplicated() != duplicates_before || !stats_.measured(stamp->send_time_ns)) continue;
      ++measured;
      measured_bytes += message.body().size();
      latencies.push_back(now_ns > stamp->send_time_ns ? (now_ns - stamp->send_time_ns) / 1000 : 0);
    }
  }
  if (measured > 0) {
    stats_.received.messages.fetch_add(measured, std::memory_order_relaxed);
    stats_.received.bytes.fetch_add(measured_bytes, std::memory_order_relaxed);
    stats_.e2e.record_all(latencies);
    stats_.note_receive(now_ns);
  }
}

std::uint64_t ReceiveSink::missing(const std::vector<ProducerLedger>& ledgers) const {
  std::lock_guard lock(mutex_);
  return tracker_.missing(ledgers);
}

SequenceErrors ReceiveSink::errors(const std::vector<ProducerLedger>& ledgers) const {
  std::lock_guard lock(mutex_);
  return tracker_.errors(ledgers);
}

std::uint64_t ReceiveSink::foreign() const {
  std::lock_guard lock(mutex_);
  return foreign_;
}

}  // namespace mqkit::bench
